import type { ServiceContext } from '../../context';
import { isoTime } from '../core/time';
import { toSentence } from '../core/sentence';
import { isEmojiName, normalizeEmojiName } from './emoji';

export type AwardableType = 'Issue' | 'MergeRequest' | 'Snippet' | 'Note';

export interface Awardable {
  type: AwardableType;
  id: number;
}

export interface AwardRow {
  id: number;
  name: string;
  user_id: number;
  awardable_type: AwardableType;
  awardable_id: number;
  created_at: string;
  updated_at: string;
}

export function findAward(svc: ServiceContext, awardable: Awardable, id: number): AwardRow | undefined {
  return svc.db
    .prepare('SELECT * FROM award_emoji WHERE id = ? AND awardable_type = ? AND awardable_id = ?')
    .get(id, awardable.type, awardable.id) as AwardRow | undefined;
}

/**
 * AwardEmojis::AddService: the name is normalized (`+1` -> `thumbsup`) and must be one of GitLab's
 * emoji, once per user. Returns the award, or the model's full messages as one sentence.
 * Call inside a transaction.
 */
export function addAward(svc: ServiceContext, awardable: Awardable, name: string, userId: number): AwardRow | string {
  const canonical = normalizeEmojiName(name);
  const errors: string[] = [];
  if (!canonical.trim()) errors.push("Name can't be blank");
  if (!isEmojiName(canonical)) errors.push('Name is not a valid emoji name');
  else if (svc.db.prepare('SELECT 1 FROM award_emoji WHERE awardable_type = ? AND awardable_id = ? AND user_id = ? AND name = ?').get(awardable.type, awardable.id, userId, canonical)) {
    errors.push('Name has already been taken');
  }
  if (errors.length) return toSentence(errors);
  const now = isoTime(svc.now());
  const info = svc.db
    .prepare('INSERT INTO award_emoji (name, user_id, awardable_type, awardable_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
    .run(canonical, userId, awardable.type, awardable.id, now, now);
  return svc.db.prepare('SELECT * FROM award_emoji WHERE id = ?').get(Number(info.lastInsertRowid)) as AwardRow;
}
