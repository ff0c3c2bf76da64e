import type { ServiceContext } from '../../context';
import { addFilter } from '../../db/filter';
import { t, type Declared } from '../../http/params';
import { likeEscape } from './routes/users';
import { isoDate } from './time';

const TOKEN_SORTS: Record<string, string> = {
  created_asc: 'created_at ASC, id ASC',
  created_desc: 'created_at DESC, id DESC',
  expires_asc: 'expires_at IS NULL, expires_at ASC, id ASC',
  expires_desc: 'expires_at IS NULL, expires_at DESC, id DESC',
  last_used_asc: 'last_used_at IS NULL, last_used_at ASC, id ASC',
  last_used_desc: 'last_used_at IS NULL, last_used_at DESC, id DESC',
  name_asc: 'lower(name) ASC, id ASC',
  name_desc: 'lower(name) DESC, id DESC',
};
export const TOKEN_SORT_VALUES = Object.keys(TOKEN_SORTS);

/** The personal access token list filters of the reference, as declared parameters. */
export const tokenFilterParams = () => ({
  created_after: t.dateTime(),
  created_before: t.dateTime(),
  last_used_after: t.dateTime(),
  last_used_before: t.dateTime(),
  expires_after: t.date(),
  expires_before: t.date(),
  revoked: t.boolean(),
  search: t.string(),
  sort: t.string().values(TOKEN_SORT_VALUES),
  state: t.string().values(['active', 'inactive']),
});

/** The filters as declared; a null filter is no filter. */
export type TokenFilters = Partial<Declared<ReturnType<typeof tokenFilterParams>>>;

/** SQL for tokens under those filters: one user's, or everyone's when `userId` is null (admins). */
export function tokenListQuery(svc: ServiceContext, userId: number | null, f: TokenFilters): { sql: string; args: unknown[]; order: string } {
  const where: string[] = [];
  const args: unknown[] = [];
  if (userId !== null) addFilter(where, args, 'user_id = ?', userId);
  const today = isoDate(svc.now());
  if (f.revoked != null) addFilter(where, args, 'revoked = ?', Number(f.revoked));
  if (f.state === 'active') addFilter(where, args, 'revoked = 0 AND (expires_at IS NULL OR expires_at > ?)', today);
  if (f.state === 'inactive') addFilter(where, args, '(revoked = 1 OR expires_at <= ?)', today);
  if (f.search) addFilter(where, args, "name LIKE ? ESCAPE '\\'", `%${likeEscape(f.search)}%`);
  if (f.created_after) addFilter(where, args, 'created_at >= ?', f.created_after);
  if (f.created_before) addFilter(where, args, 'created_at <= ?', f.created_before);
  if (f.last_used_after) addFilter(where, args, 'last_used_at >= ?', f.last_used_after);
  if (f.last_used_before) addFilter(where, args, 'last_used_at <= ?', f.last_used_before);
  if (f.expires_after) addFilter(where, args, 'expires_at >= ?', f.expires_after);
  if (f.expires_before) addFilter(where, args, 'expires_at <= ?', f.expires_before);
  const sql = `FROM personal_access_tokens ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`;
  return { sql, args, order: TOKEN_SORTS[f.sort ?? ''] ?? 'id ASC' };
}
