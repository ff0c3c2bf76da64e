import type { ServiceContext } from '../../context';
import { isoTime } from './time';
import { avatarUrl } from './avatars';
import type { EntityContext } from './entities';

export interface TopicRow {
  id: number;
  name: string;
  title: string;
  description: string | null;
  avatar: string | null;
  created_at: string;
  updated_at: string;
}

/** Projects::TopicsService-ish: topics a project names exist as records (name and title alike). */
export function ensureTopics(svc: ServiceContext, names: string[]): void {
  const now = isoTime(svc.now());
  const insert = svc.db.prepare('INSERT OR IGNORE INTO topics (name, title, created_at, updated_at) VALUES (?, ?, ?, ?)');
  for (const name of names) insert.run(name, name, now, now);
}

/** Projects carrying the topic (names match case-insensitively). */
export function topicProjectsCount(svc: ServiceContext, name: string): number {
  return (
    svc.db.prepare('SELECT count(*) AS n FROM projects p WHERE EXISTS (SELECT 1 FROM json_each(p.topics) WHERE lower(value) = lower(?))').get(name) as { n: number }
  ).n;
}

/** Entities::Projects::Topic. */
export function topicEntity(ec: EntityContext, t: TopicRow): Record<string, unknown> {
  return {
    id: t.id,
    name: t.name,
    title: t.title,
    description: t.description,
    total_projects_count: topicProjectsCount(ec.svc, t.name),
    organization_id: 1,
    avatar_url: avatarUrl(ec.baseUrl, 'topic', t.id, t.avatar),
  };
}
