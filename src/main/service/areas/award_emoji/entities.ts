import { type EntityContext, userBasicById } from '../core/entities';
import type { AwardRow } from './awards';

/** Entities::AwardEmoji (`url` is a custom emoji's image; Sandlab has none). */
export function awardEmoji(ec: EntityContext, a: AwardRow): Record<string, unknown> {
  return {
    id: a.id,
    name: a.name,
    user: userBasicById(ec, a.user_id),
    created_at: a.created_at,
    updated_at: a.updated_at,
    awardable_id: a.awardable_id,
    awardable_type: a.awardable_type,
    url: null,
  };
}
