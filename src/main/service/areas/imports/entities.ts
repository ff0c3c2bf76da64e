import type { EntityContext } from '../core/entities';
import { fullName } from '../core/entities';
import { findNamespaceById } from '../core/namespaces';
import type { Project } from '../core/projects';
import { type ProjectImportRow, importStats, providerLink, recordFailures } from './imports';

function paths(ec: EntityContext, p: Project): { fullPath: string; fullName: string } {
  const ns = findNamespaceById(ec.svc, p.namespace_id)!;
  return { fullPath: `${ns.full_path}/${p.path}`, fullName: `${fullName(ec.svc, ns)} / ${p.name}` };
}

/** ProjectImportEntity (ProjectSerializer with `serializer: :import`): what POST /import/* answers. */
export function projectImportResult(ec: EntityContext, p: Project, row: ProjectImportRow): Record<string, unknown> {
  const { fullPath, fullName: name } = paths(ec, p);
  const out: Record<string, unknown> = {
    id: p.id,
    name: p.name,
    full_path: `/${fullPath}`,
    full_name: name,
    refs_url: `/${fullPath}/refs`,
    import_source: row.import_source,
    import_status: p.import_status,
    human_import_status_name: p.import_status,
    provider_link: providerLink(row.import_source),
  };
  if (p.import_status === 'failed') out.import_error = p.import_error;
  out.relation_type = null;
  out.import_warning = null;
  return out;
}

/** The answer of POST /import/github/cancel: the reference's cancel result. */
export function canceledImportResult(ec: EntityContext, p: Project, row: ProjectImportRow): Record<string, unknown> {
  const { fullPath, fullName: name } = paths(ec, p);
  return {
    id: p.id,
    name: p.name,
    full_path: `/${fullPath}`,
    full_name: name,
    import_source: row.import_source,
    import_status: p.import_status,
    human_import_status_name: p.import_status,
    provider_link: providerLink(row.import_source),
  };
}

/**
 * Entities::ProjectImportStatus (GET /projects/:id/import), plus `import_source`. The error reads
 * as GitLab's hint for those who may not see it (below Maintainer).
 */
export function projectImportStatus(ec: EntityContext, p: Project, row: ProjectImportRow | undefined, canReadError: boolean): Record<string, unknown> {
  const ns = findNamespaceById(ec.svc, p.namespace_id)!;
  const error = p.import_error && ec.user ? (canReadError ? p.import_error : 'Ask a maintainer to check the import status for more details.') : null;
  return {
    id: p.id,
    description: p.description,
    name: p.name,
    name_with_namespace: `${fullName(ec.svc, ns)} / ${p.name}`,
    path: p.path,
    path_with_namespace: `${ns.full_path}/${p.path}`,
    created_at: p.created_at,
    import_status: p.import_status,
    import_type: p.import_type,
    correlation_id: row?.correlation_id ?? null,
    failed_relations: row
      ? recordFailures(ec.svc, row).map((f) => ({
          id: f.id,
          created_at: f.created_at,
          exception_class: f.exception_class,
          source: f.source,
          exception_message: null,
          relation_name: f.relation_key,
          line_number: f.relation_index,
        }))
      : [],
    import_error: error,
    // GitLab counts GitHub imports only; Sandlab counts every provider's.
    stats: row ? importStats(row) : null,
    import_source: row?.import_source ?? null,
  };
}
