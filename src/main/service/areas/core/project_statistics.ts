import type { ServiceContext } from '../../context';
import { type EntityContext, withFieldsAfter } from './entities';
import { effectiveProjectAccess, Access } from './access';
import type { Project } from './projects';
import { isoTime } from './time';

/**
 * Project statistics (API::Entities::ProjectStatistics, `statistics=true`). GitLab keeps them in
 * project_statistics, refreshed in the background after pushes; Sandlab keeps the repository's part
 * (core/114: commit count and size), marked stale by every change of branches or tags
 * (staleProjectStatistics) and measured again by the next read that shows it, so a push pays for
 * no git runs of its own; the rest is summed from its own rows when read. Sandlab has no wiki, LFS,
 * CI artifacts, packages or registry: those parts are 0. An administrator's order by size reads
 * the sizes last measured.
 */

/** ProjectsHelpers::STATISTICS_SORT_PARAMS: an administrator's orders (anyone else gets the default). */
export const STATISTICS_ORDERS = ['storage_size', 'repository_size', 'wiki_size', 'packages_size'] as const;
export type StatisticsOrder = (typeof STATISTICS_ORDERS)[number];

// The repository's size and its snippets' and uploads' (alias.id a project id): storage_size is their sum.
const repositorySizeSql = (alias: string) => `coalesce((SELECT repository_size FROM project_statistics WHERE project_id = ${alias}.id), 0)`;
const snippetsSizeSql = (alias: string) =>
  `coalesce((SELECT sum(length(CAST(b.content AS BLOB))) FROM snippets s JOIN snippet_blobs b ON b.snippet_id = s.id WHERE s.project_id = ${alias}.id), 0)`;
const uploadsSizeSql = (alias: string) => `coalesce((SELECT sum(size) FROM uploads WHERE project_id = ${alias}.id), 0)`;

/** The ORDER BY expression of a statistics order over projects `alias`. */
export function statisticsOrderSql(order: StatisticsOrder, alias: string): string {
  if (order === 'repository_size') return repositorySizeSql(alias);
  if (order === 'storage_size') return `(${repositorySizeSql(alias)} + ${snippetsSizeSql(alias)} + ${uploadsSizeSql(alias)})`;
  return '0';
}

/** After a change of branches or tags: the kept statistics are measured again when next shown. */
export function staleProjectStatistics(svc: ServiceContext, projectId: number): void {
  svc.db.prepare('UPDATE project_statistics SET stale = 1 WHERE project_id = ? AND stale = 0').run(projectId);
}

/** Counts and sizes the repository holds now: commits on the default branch (HEAD), objects' bytes. */
async function refreshProjectStatistics(svc: ServiceContext, projectId: number): Promise<void> {
  let commitCount = 0;
  let repositorySize = 0;
  if (svc.git.hasCommits(projectId)) {
    const repo = svc.git.repository(projectId);
    const head = await repo.resolveCommit('HEAD');
    commitCount = head ? await repo.countCommits([head]) : 0;
    // `count-objects -v`: loose and packed objects in KiB (Gitaly's RepositorySize is KiB too).
    const out = (await repo.run(['count-objects', '-v'])).stdout.toString();
    const kib = (key: string) => Number(new RegExp(`^${key}: (\\d+)$`, 'm').exec(out)?.[1] ?? 0);
    repositorySize = (kib('size') + kib('size-pack')) * 1024;
  }
  svc.db
    .prepare(
      `INSERT INTO project_statistics (project_id, commit_count, repository_size, refreshed_at) SELECT id, ?, ?, ? FROM projects WHERE id = ?
       ON CONFLICT (project_id) DO UPDATE SET commit_count = excluded.commit_count, repository_size = excluded.repository_size, stale = 0,
         refreshed_at = excluded.refreshed_at`,
    )
    .run(commitCount, repositorySize, isoTime(svc.now()), projectId);
}

/** Measures the repositories of `projectIds` whose kept statistics are stale, or missing (a repository's first read). */
async function freshenStatistics(svc: ServiceContext, projectIds: number[]): Promise<void> {
  const kept = svc.db.prepare('SELECT stale FROM project_statistics WHERE project_id = ?');
  for (const id of projectIds) {
    const row = kept.get(id) as { stale: number } | undefined;
    if (row ? row.stale : svc.git.hasCommits(id)) await refreshProjectStatistics(svc, id);
  }
}

/** Whether the viewer may read a project's statistics (ProjectPolicy :read_statistics: Reporter and up). */
function canReadStatistics(ec: EntityContext, p: Project): boolean {
  return !!ec.user && effectiveProjectAccess(ec.svc, ec.user, p) >= Access.REPORTER;
}

/**
 * The `statistics` of each project the viewer may read them of, measuring the repository's part
 * first where it is stale or none was kept yet (a repository's first read).
 */
export async function projectStatistics(ec: EntityContext, projects: Project[]): Promise<Map<number, Record<string, number>>> {
  const db = ec.svc.db;
  const shown = projects.filter((p) => canReadStatistics(ec, p));
  await freshenStatistics(ec.svc, shown.map((p) => p.id));
  const read = db.prepare(
    `SELECT coalesce((SELECT commit_count FROM project_statistics WHERE project_id = p.id), 0) AS commit_count,
            ${repositorySizeSql('p')} AS repository_size, ${snippetsSizeSql('p')} AS snippets_size, ${uploadsSizeSql('p')} AS uploads_size
       FROM projects p WHERE p.id = ?`,
  );
  const stats = new Map<number, Record<string, number>>();
  for (const p of shown) {
    const r = read.get(p.id) as { commit_count: number; repository_size: number; snippets_size: number; uploads_size: number };
    stats.set(p.id, { commit_count: r.commit_count, ...storageSizes(r), container_registry_size: 0 });
  }
  return stats;
}

/** The sizes both statistics entities show (a project's adds commit_count before and container_registry_size after). */
function storageSizes(r: { repository_size: number; snippets_size: number; uploads_size: number }): Record<string, number> {
  return {
    storage_size: r.repository_size + r.snippets_size + r.uploads_size,
    repository_size: r.repository_size,
    wiki_size: 0,
    lfs_objects_size: 0,
    job_artifacts_size: 0,
    pipeline_artifacts_size: 0,
    packages_size: 0,
    snippets_size: r.snippets_size,
    uploads_size: r.uploads_size,
  };
}

/** The project entity with `statistics` where Entities::Project exposes it (after issue_branch_template). */
export function withStatistics(entity: Record<string, unknown>, statistics: Record<string, number> | undefined): Record<string, unknown> {
  return statistics ? withFieldsAfter(entity, 'issue_branch_template', { statistics }) : entity;
}

/**
 * A group list's `statistics` (an administrator's, `Group.with_statistics`): the sums of its own
 * projects' statistics (not its subgroups').
 */
export async function groupStatistics(svc: ServiceContext, groupId: number): Promise<Record<string, number>> {
  const own = svc.db.prepare('SELECT id FROM projects WHERE namespace_id = ?').all(groupId) as { id: number }[];
  await freshenStatistics(svc, own.map((p) => p.id));
  const r = svc.db
    .prepare(
      `SELECT coalesce(sum(${repositorySizeSql('p')}), 0) AS repository_size, coalesce(sum(${snippetsSizeSql('p')}), 0) AS snippets_size,
              coalesce(sum(${uploadsSizeSql('p')}), 0) AS uploads_size
         FROM projects p WHERE p.namespace_id = ?`,
    )
    .get(groupId) as { repository_size: number; snippets_size: number; uploads_size: number };
  return storageSizes(r);
}
