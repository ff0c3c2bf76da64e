import { createHash } from 'node:crypto';

/**
 * Inbound alert payloads -> alert attributes, as GitLab's Gitlab::AlertManagement::Payload does:
 * the generic HTTP endpoint's fields and the Prometheus (metrics) webhook's. Pure functions.
 */

export type Severity = 'critical' | 'high' | 'medium' | 'low' | 'info' | 'unknown';

/** What one inbound alert (a generic payload, or one item of a Prometheus `alerts[]`) amounts to. */
export interface ParsedAlert {
  title: string | null;
  description: string | null;
  severity: Severity;
  startedAt: string | null;
  /** Present (ISO time) when this payload resolves its alert. */
  endedAt: string | null;
  service: string | null;
  monitoringTool: string | null;
  hosts: string[];
  environment: string | null;
  runbook: string | null;
  /** SHA1 hex that groups repeats; null when the payload gives nothing to group on. */
  fingerprint: string | null;
  /** The raw payload (or Prometheus item), kept whole. */
  payload: Record<string, unknown>;
}

/** The generic endpoint's severities (case-insensitive); anything else is critical. */
const GENERIC_SEVERITIES: Record<string, Severity> = {
  critical: 'critical',
  high: 'high',
  medium: 'medium',
  low: 'low',
  info: 'info',
  unknown: 'unknown',
};

/** The metrics webhook's `labels.severity` table; anything else (or none) is critical. */
const METRICS_SEVERITIES: Record<string, Severity> = {
  critical: 'critical',
  s1: 'critical',
  p1: 'critical',
  emergency: 'critical',
  fatal: 'critical',
  high: 'high',
  s2: 'high',
  p2: 'high',
  major: 'high',
  page: 'high',
  medium: 'medium',
  s3: 'medium',
  p3: 'medium',
  error: 'medium',
  alert: 'medium',
  low: 'low',
  s4: 'low',
  p4: 'low',
  warn: 'low',
  warning: 'low',
  minor: 'low',
  info: 'info',
  s5: 'info',
  p5: 'info',
  debug: 'info',
  information: 'info',
  notice: 'info',
};

export const genericSeverity = (raw: unknown): Severity => GENERIC_SEVERITIES[String(raw ?? '').trim().toLowerCase()] ?? 'critical';
export const metricsSeverity = (raw: unknown): Severity => METRICS_SEVERITIES[String(raw ?? '').trim().toLowerCase()] ?? 'critical';

export const GENERIC_DEFAULT_TITLE = 'New: Alert';

/** Top-level attributes every metrics (Prometheus/Alertmanager) webhook payload must carry. */
export const METRICS_REQUIRED_KEYS = [
  'version',
  'groupKey',
  'status',
  'receiver',
  'groupLabels',
  'commonLabels',
  'commonAnnotations',
  'externalURL',
  'alerts',
] as const;
const METRICS_SUPPORTED_VERSION = '4';
/** GitLab processes at most this many items of one metrics payload. */
export const METRICS_MAX_ALERTS = 100;

// Column limits of GitLab's alert model; longer values are truncated as GitLab's payload parser does.
const TITLE_MAX = 200;
const DESCRIPTION_MAX = 1000;
const SERVICE_MAX = 100;
const TOOL_MAX = 100;
const HOSTS_MAX = 255;

/** Fields the generic fingerprint leaves out, so repeats and the resolving payload group together. */
const FINGERPRINT_EXCLUDED = new Set(['start_time', 'end_time', 'hosts']);

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function text(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') return v.length ? v : null;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

/** Rails' String#truncate: at most `max` characters, ending in "..." when cut. */
function truncate(s: string | null, max: number): string | null {
  if (s === null || s.length <= max) return s;
  return `${s.slice(0, max - 3)}...`;
}

/** A parseable time as ISO-8601, else null. Prometheus' zero time (year 1) counts as none. */
export function parseTime(v: unknown): string | null {
  if (typeof v !== 'string' && typeof v !== 'number') return null;
  if (typeof v === 'string' && !v.trim()) return null;
  const d = new Date(v);
  if (Number.isNaN(d.getTime()) || d.getUTCFullYear() <= 1) return null;
  return d.toISOString();
}

function hostList(v: unknown): string[] {
  const list = (Array.isArray(v) ? v.flat(Infinity) : v === undefined || v === null || v === '' ? [] : [v]).map((h) => text(h) ?? '');
  const out: string[] = [];
  let used = 0;
  for (const h of list.filter(Boolean)) {
    if (used + h.length > HOSTS_MAX) break;
    out.push(h);
    used += h.length;
  }
  return out;
}

/** Ruby's `inspect` of the values GitLab hashes (flattened hash pairs), so fingerprints stay stable. */
function rubyInspect(v: unknown): string {
  if (v === null || v === undefined) return 'nil';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(rubyInspect).join(', ')}]`;
  return `{${Object.entries(v as Record<string, unknown>)
    .map(([k, x]) => `${JSON.stringify(k)}=>${rubyInspect(x)}`)
    .join(', ')}}`;
}

/** Nested hashes flattened to dotted keys (Gitlab::Utils::SafeInlineHash.merge_keys!). */
function mergeKeys(hash: Record<string, unknown>, prefix = ''): [string, unknown][] {
  return Object.entries(hash).flatMap(([k, v]) => (isObject(v) ? mergeKeys(v, `${prefix}${k}.`) : [[`${prefix}${k}`, v] as [string, unknown]]));
}

/**
 * Gitlab::AlertManagement::Fingerprint.generate: SHA1 hex of a string, of an array's flattened
 * elements joined, or of a hash's sorted flattened pairs. Blank input gives null.
 */
export function fingerprintOf(data: unknown): string | null {
  if (data === undefined || data === null || data === '' || data === false) return null;
  let s: string;
  if (Array.isArray(data)) {
    if (data.length === 0) return null;
    s = data
      .flat(Infinity)
      .map((x) => (typeof x === 'string' ? x : x === null ? '' : isObject(x) ? rubyInspect(x) : String(x)))
      .join('');
  } else if (isObject(data)) {
    const pairs = mergeKeys(data).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    if (pairs.length === 0) return null;
    s = rubyInspect(pairs);
  } else {
    s = String(data);
  }
  if (!s.trim()) return null;
  return createHash('sha1').update(s).digest('hex');
}

/** One generic HTTP endpoint payload. Every field is optional. */
export function parseGenericPayload(payload: Record<string, unknown>): ParsedAlert {
  const given = fingerprintOf(payload.fingerprint);
  const rest = Object.fromEntries(Object.entries(payload).filter(([k]) => !FINGERPRINT_EXCLUDED.has(k)));
  return {
    title: truncate(text(payload.title) ?? GENERIC_DEFAULT_TITLE, TITLE_MAX),
    description: truncate(text(payload.description), DESCRIPTION_MAX),
    severity: genericSeverity(payload.severity),
    startedAt: parseTime(payload.start_time),
    endedAt: parseTime(payload.end_time),
    service: truncate(text(payload.service), SERVICE_MAX),
    monitoringTool: truncate(text(payload.monitoring_tool), TOOL_MAX),
    hosts: hostList(payload.hosts),
    environment: text(payload.gitlab_environment_name) ?? text(payload.platform_environment_name),
    runbook: text(payload.runbook),
    fingerprint: given ?? fingerprintOf(rest),
    payload,
  };
}

/** Whether a metrics webhook payload carries every required top-level attribute (and version "4"). */
export function isProcessableMetricsPayload(payload: unknown): payload is Record<string, unknown> & { alerts: unknown[] } {
  if (!isObject(payload)) return false;
  if (!METRICS_REQUIRED_KEYS.every((k) => k in payload)) return false;
  return String(payload.version) === METRICS_SUPPORTED_VERSION && Array.isArray(payload.alerts);
}

/** The `g0.expr` query parameter of a Prometheus `generatorURL`, or null. */
export function metricsQuery(generatorUrl: unknown): string | null {
  if (typeof generatorUrl !== 'string' || !generatorUrl) return null;
  try {
    return new URL(generatorUrl, 'http://localhost').searchParams.get('g0.expr');
  } catch {
    return null;
  }
}

/**
 * One item of a metrics payload's `alerts[]`. `now` decides whether an `endsAt` already passed.
 * Title and startsAt are required: without them the item yields no alert (null title/startedAt).
 */
export function parseMetricsAlert(item: Record<string, unknown>, now: Date): ParsedAlert {
  const annotations = isObject(item.annotations) ? item.annotations : {};
  const labels = isObject(item.labels) ? item.labels : {};
  const title = text(annotations.title) ?? text(annotations.summary) ?? text(labels.alertname);
  const startsAtRaw = typeof item.startsAt === 'string' ? item.startsAt : null;
  const startedAt = parseTime(item.startsAt);
  const endsAt = parseTime(item.endsAt);
  const status = typeof item.status === 'string' ? item.status.toLowerCase() : '';
  // Alertmanager sends endsAt on firing alerts too (zero time, or the expected end); only a
  // `resolved` status or an end already past resolves.
  const resolved = status === 'resolved' || (status !== 'firing' && endsAt !== null && new Date(endsAt) <= now);
  const query = metricsQuery(item.generatorURL);
  return {
    title: truncate(title, TITLE_MAX),
    description: truncate(text(annotations.description), DESCRIPTION_MAX),
    severity: metricsSeverity(labels.severity),
    startedAt,
    endedAt: resolved ? (endsAt ?? now.toISOString()) : null,
    service: null,
    monitoringTool: 'Prometheus',
    hosts: [],
    environment: text(labels.gitlab_environment_name) ?? text(labels.platform_environment_name),
    runbook: text(annotations.runbook),
    fingerprint: title && startsAtRaw ? fingerprintOf([startsAtRaw, title, query ?? ''].join('/')) : null,
    payload: item,
  };
}

/** Nesting depth of a JSON value (GitLab's DeepSize refuses payloads deeper than 20). */
export function jsonDepth(v: unknown, limit = 64): number {
  if (!v || typeof v !== 'object') return 0;
  if (limit <= 0) return 1;
  let max = 0;
  for (const x of Array.isArray(v) ? v : Object.values(v as Record<string, unknown>)) {
    const d = jsonDepth(x, limit - 1);
    if (d > max) max = d;
  }
  return max + 1;
}
