import { createHmac, timingSafeEqual } from 'node:crypto';
import type { RequestContext } from '../../http/route';
import { ApiError, validationError } from '../../http/errors';
import { applicationSettings } from '../application_settings/settings';
import { isoTime } from '../core/time';

export interface SpamLogRow {
  id: number;
  user_id: number;
  source_ip: string | null;
  user_agent: string | null;
  via_api: number;
  noteable_type: string;
  title: string | null;
  description: string | null;
  submitted_as_ham: number;
  recaptcha_verified: number;
  created_at: string;
  updated_at: string;
}

/** GitLab's spammable models, by the name a spam log records (`noteable_type`). */
export type SpammableType = 'Issue' | 'MergeRequest' | 'ProjectSnippet' | 'PersonalSnippet';

/** What one create or update would write: GitLab's spam_title and spam_description, plus more text to read. */
export interface SpamCandidate {
  type: SpammableType;
  title: string | null | undefined;
  description: string | null | undefined;
  /** Further text the local check reads (a snippet's file paths and contents). */
  extra?: readonly string[];
}

/**
 * Per model, as GitLab answers (Spammable, SpammableActions::CaptchaCheck::RestApiActionsSupport):
 * the entity name in the messages; whether a CAPTCHA can let it through (`supports_recaptcha?`,
 * and only issues and snippets wrap their errors in `with_captcha_check_rest_api`); how the plain
 * refusal is shaped (snippets `{"message":{"error":...}}`, issues and merge requests
 * `render_validation_error!`, `{"message":{"base":[...]}}`); whether `allow_possible_spam` may let
 * it through (never for snippets, "the biggest sources of spam").
 */
const MODELS: Record<SpammableType, { entity: string; captcha: boolean; refusal: 'error' | 'base'; allowPossibleSpam: boolean }> = {
  Issue: { entity: 'issue', captcha: true, refusal: 'base', allowPossibleSpam: true },
  MergeRequest: { entity: 'merge request', captcha: false, refusal: 'base', allowPossibleSpam: true },
  ProjectSnippet: { entity: 'snippet', captcha: true, refusal: 'error', allowPossibleSpam: false },
  PersonalSnippet: { entity: 'snippet', captcha: true, refusal: 'error', allowPossibleSpam: false },
};

/**
 * The CAPTCHA response that solves a spam log offline: lowercase hex HMAC-SHA256 of the spam log
 * id (decimal) keyed with the `recaptcha_private_key` setting. Documented in the README so a test
 * or a person can compute it (`printf 42 | openssl dgst -sha256 -hmac "$KEY"`).
 */
export function captchaSolution(privateKey: string, spamLogId: number): string {
  return createHmac('sha256', privateKey).update(String(spamLogId)).digest('hex');
}

const header = (rc: RequestContext, ...names: string[]): string | undefined => {
  for (const name of names) {
    const value = rc.req.headers[name];
    const first = Array.isArray(value) ? value[0] : value;
    if (first) return first;
  }
  return undefined;
};

/**
 * The spam check of a create or update (GitLab's Spam::SpamActionService with the local pattern
 * check standing in for its spam verdict service). Call it from the route once the input is
 * validated and before the write's transaction, on a create and on an update that changes the
 * spammable text; it returns when the write may go ahead and throws GitLab's refusal otherwise.
 * The spam log it writes is committed on its own, so it outlives the refused request.
 */
export function checkSpam(rc: RequestContext, candidate: SpamCandidate): void {
  const settings = applicationSettings(rc.svc);
  if (!settings.sandlab_spam_check_enabled) return;
  const user = rc.requireUser();
  const recaptcha = settings.recaptcha_enabled === true;
  if (recaptcha && solvedCaptcha(rc, user.id, String(settings.recaptcha_private_key ?? ''))) return;
  if (!matchesSpamPatterns(settings.sandlab_spam_patterns, candidate)) return;

  const model = MODELS[candidate.type];
  const log = createSpamLog(rc, user.id, candidate);
  if (model.allowPossibleSpam && settings.allow_possible_spam === true) return;
  if (recaptcha && model.captcha) {
    throw new ApiError(409, {
      needs_captcha_response: true,
      spam_log_id: log.id,
      captcha_site_key: settings.recaptcha_site_key ?? null,
      message: { error: `Your ${model.entity} has been recognized as spam. Please, change the content or solve the reCAPTCHA to proceed.` },
    });
  }
  const discarded = `Your ${model.entity} has been recognized as spam and has been discarded.`;
  if (model.refusal === 'base') throw validationError({ base: [discarded] });
  throw new ApiError(400, { message: { error: discarded } });
}

/** Case-insensitive substrings; blank patterns never match. */
function matchesSpamPatterns(patterns: readonly string[], c: SpamCandidate): boolean {
  const text = [c.title, c.description, ...(c.extra ?? [])].filter(Boolean).join('\n').toLowerCase();
  return patterns.some((p) => p.trim() !== '' && text.includes(p.trim().toLowerCase()));
}

/**
 * A resubmission carrying `X-Service-Captcha-Response` (or GitLab's `X-GitLab-Captcha-Response`)
 * and `X-Service-Spam-Log-Id` (`X-GitLab-Spam-Log-Id`): it passes once, when the response solves
 * one of the caller's own unverified spam logs; the log is then marked verified, so a reused
 * response is checked (and refused) again.
 */
function solvedCaptcha(rc: RequestContext, userId: number, privateKey: string): boolean {
  const response = header(rc, 'x-service-captcha-response', 'x-gitlab-captcha-response');
  const logId = Number(header(rc, 'x-service-spam-log-id', 'x-gitlab-spam-log-id'));
  if (!response || !privateKey || !Number.isSafeInteger(logId) || logId <= 0) return false;
  const expected = Buffer.from(captchaSolution(privateKey, logId));
  const given = Buffer.from(response.trim().toLowerCase());
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return false;
  const verified = rc.svc.db
    .prepare('UPDATE spam_logs SET recaptcha_verified = 1, updated_at = ? WHERE id = ? AND user_id = ? AND recaptcha_verified = 0')
    .run(isoTime(rc.svc.now()), logId, userId);
  return verified.changes === 1;
}

function createSpamLog(rc: RequestContext, userId: number, c: SpamCandidate): SpamLogRow {
  const now = isoTime(rc.svc.now());
  return rc.svc.db
    .prepare(
      `INSERT INTO spam_logs (user_id, source_ip, user_agent, via_api, noteable_type, title, description, created_at, updated_at)
       VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?) RETURNING *`,
    )
    .get(userId, rc.req.ip, header(rc, 'user-agent') ?? null, c.type, c.title ?? null, c.description ?? null, now, now) as SpamLogRow;
}

/**
 * `checkSpam` for an update: GitLab checks only an update that changes the spammable text
 * (`spammable_attribute_changed?`), and reads the text as it will be once saved.
 */
export function checkSpamOnUpdate(
  rc: RequestContext,
  type: SpammableType,
  current: { title: string; description: string | null },
  update: { title?: string | null; description?: string | null },
  extra?: readonly string[],
): void {
  const title = update.title ?? current.title;
  const description = update.description === undefined ? current.description : update.description;
  if (title === current.title && description === current.description && !extra?.length) return;
  checkSpam(rc, { type, title, description, extra });
}
