import type { RequestContext, Router } from '../../../http/route';
import { declared, t } from '../../../http/params';
import { apiError, notFound, validationError } from '../../../http/errors';
import { paginate } from '../../../http/pagination';
import { inTransaction } from '../../../db/connection';
import { addFilter } from '../../../db/filter';
import { type TopicRow, topicEntity } from '../topics';
import { isoTime } from '../time';
import { likeEscape } from './users';
import { readAvatarParam, writeAvatar } from '../avatars';

function loadTopic(rc: RequestContext, id = rc.path.id): TopicRow {
  const n = declared({ id }, { id: t.integer() }).id;
  const row = rc.svc.db.prepare('SELECT * FROM topics WHERE id = ?').get(n) as TopicRow | undefined;
  if (!row) throw notFound('Topic');
  return row;
}

function nameTaken(rc: RequestContext, name: string, selfId: number | null): boolean {
  return !!rc.svc.db.prepare('SELECT 1 FROM topics WHERE lower(name) = lower(?) AND id IS NOT ?').get(name, selfId);
}

/** Renames a topic on every project that carries it. */
function renameOnProjects(rc: RequestContext, from: string, to: string | null): void {
  const rows = rc.svc.db
    .prepare('SELECT id, topics FROM projects p WHERE EXISTS (SELECT 1 FROM json_each(p.topics) WHERE lower(value) = lower(?))')
    .all(from) as { id: number; topics: string }[];
  for (const row of rows) {
    const list = (JSON.parse(row.topics) as string[]).flatMap((x) => (x.toLowerCase() === from.toLowerCase() ? (to === null ? [] : [to]) : [x]));
    rc.svc.db.prepare('UPDATE projects SET topics = ? WHERE id = ?').run(JSON.stringify([...new Set(list)]), row.id);
  }
}

/** /topics (lib/api/topics.rb): anyone may read, administrators write. */
export function registerTopicRoutes(r: Router): void {
  r.get(
    '/topics',
    (rc) => {
      const q = declared(rc.params, { search: t.string(), without_projects: t.boolean() });
      const where: string[] = [];
      const args: unknown[] = [];
      if (q.search) addFilter(where, args, "(name LIKE ? ESCAPE '\\' OR title LIKE ? ESCAPE '\\')", `%${likeEscape(q.search)}%`, `%${likeEscape(q.search)}%`);
      if (q.without_projects) where.push("NOT EXISTS (SELECT 1 FROM projects p, json_each(p.topics) j WHERE lower(j.value) = lower(topics.name))");
      const sql = `FROM topics ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`;
      const rows = rc.svc.db.prepare(`SELECT * ${sql}`).all(...args) as TopicRow[];
      // Projects::TopicsFinder: most used first, then by name.
      const sorted = rows
        .map((row) => ({ row, entity: topicEntity(rc, row) }))
        .sort((a, b) => (b.entity.total_projects_count as number) - (a.entity.total_projects_count as number) || a.row.name.localeCompare(b.row.name));
      return paginate(rc, { count: () => sorted.length, rows: (limit, offset) => sorted.slice(offset, offset + limit) }).map((x) => x.entity);
    },
    { auth: 'optional' },
  );

  r.get('/topics/:id', (rc) => topicEntity(rc, loadTopic(rc)), { auth: 'optional' });

  r.post('/topics', (rc) => {
    rc.requireAdmin();
    const p = declared(rc.params, { name: t.string().required(), title: t.string().required(), description: t.string(), avatar: t.any() });
    const avatar = readAvatarParam(p.avatar);
    if (nameTaken(rc, p.name, null)) throw validationError({ name: ['has already been taken'] });
    const now = isoTime(rc.svc.now());
    const row = inTransaction(rc.svc.db, () => {
      const info = rc.svc.db.prepare('INSERT INTO topics (name, title, description, created_at, updated_at) VALUES (?, ?, ?, ?, ?)').run(p.name, p.title, p.description ?? null, now, now);
      if (avatar) writeAvatar(rc.svc, 'topic', Number(info.lastInsertRowid), avatar);
      return rc.svc.db.prepare('SELECT * FROM topics WHERE id = ?').get(Number(info.lastInsertRowid)) as TopicRow;
    });
    return topicEntity(rc, row);
  });

  r.put('/topics/:id', (rc) => {
    rc.requireAdmin();
    const current = loadTopic(rc);
    const p = declared(rc.params, { name: t.string(), title: t.string(), description: t.string(), avatar: t.any() });
    const avatar = readAvatarParam(p.avatar);
    if (p.name && nameTaken(rc, p.name, current.id)) throw validationError({ name: ['has already been taken'] });
    const row = inTransaction(rc.svc.db, () => {
      if (p.name && p.name !== current.name) renameOnProjects(rc, current.name, p.name);
      rc.svc.db
        .prepare('UPDATE topics SET name = ?, title = ?, description = ?, updated_at = ? WHERE id = ?')
        .run(p.name ?? current.name, p.title ?? current.title, p.description === undefined ? current.description : p.description, isoTime(rc.svc.now()), current.id);
      if (avatar !== undefined) writeAvatar(rc.svc, 'topic', current.id, avatar);
      return rc.svc.db.prepare('SELECT * FROM topics WHERE id = ?').get(current.id) as TopicRow;
    });
    return topicEntity(rc, row);
  });

  r.delete('/topics/:id', (rc) => {
    rc.requireAdmin();
    const current = loadTopic(rc);
    inTransaction(rc.svc.db, () => {
      renameOnProjects(rc, current.name, null);
      rc.svc.db.prepare('DELETE FROM topics WHERE id = ?').run(current.id);
    });
    return undefined;
  });

  // Topics::MergeService: the source's projects take the target topic; the source goes away.
  r.post('/topics/merge', (rc) => {
    rc.requireAdmin();
    const p = declared(rc.params, { source_topic_id: t.integer().required(), target_topic_id: t.integer().required() });
    const source = loadTopic(rc, String(p.source_topic_id));
    const target = loadTopic(rc, String(p.target_topic_id));
    if (source.id === target.id) throw apiError(400, 'The source topic and the target topic are identical.');
    inTransaction(rc.svc.db, () => {
      renameOnProjects(rc, source.name, target.name);
      rc.svc.db.prepare('DELETE FROM topics WHERE id = ?').run(source.id);
    });
    return topicEntity(rc, target);
  });
}
