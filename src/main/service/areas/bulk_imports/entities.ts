import type { ServiceContext } from '../../context';
import { findNamespaceById } from '../core/namespaces';
import { findProjectById } from '../core/projects';
import {
  type BulkImportRow,
  type EntityRow,
  type FailureRow,
  entityHasFailures,
  failuresOf,
  importHasFailures,
  statsOf,
} from './bulk_imports';

/** Entities::BulkImport */
export function bulkImport(svc: ServiceContext, b: BulkImportRow): Record<string, unknown> {
  return {
    id: b.id,
    status: b.status,
    source_type: b.source_type,
    source_url: b.source_url,
    created_at: b.created_at,
    updated_at: b.updated_at,
    has_failures: importHasFailures(svc, b.id),
  };
}

/** The group or project an entity made, by its full path; null until it exists. */
function destinationFullPath(svc: ServiceContext, e: EntityRow): string | null {
  if (e.entity_type === 'group') return e.namespace_id ? (findNamespaceById(svc, e.namespace_id)?.full_path ?? null) : null;
  const p = e.project_id ? findProjectById(svc, e.project_id) : undefined;
  if (!p) return null;
  return `${findNamespaceById(svc, p.namespace_id)!.full_path}/${p.path}`;
}

/** GitLab shows at most 255 characters of an error (Entities::BulkImports::EntityFailure). */
const shortMessage = (m: string): string => (m.length > 255 ? `${m.slice(0, 252)}...` : m);

/** A failure inside an entity: the seed's fields, plus where the record is on the source. */
function embeddedFailure(f: FailureRow): Record<string, unknown> {
  return {
    relation: f.relation,
    step: f.pipeline_step,
    exception_message: shortMessage(f.exception_message),
    exception_class: f.exception_class,
    correlation_id_value: f.correlation_id_value,
    created_at: f.created_at,
    pipeline_class: f.pipeline_class,
    pipeline_step: f.pipeline_step,
    source_url: f.source_url,
    source_title: f.source_title,
  };
}

/** Entities::BulkImports::EntityFailure, as the failures endpoint lists them. */
export function entityFailure(f: FailureRow): Record<string, unknown> {
  return {
    relation: f.relation,
    exception_message: shortMessage(f.exception_message),
    exception_class: f.exception_class,
    correlation_id_value: f.correlation_id_value,
    source_url: f.source_url,
    source_title: f.source_title,
  };
}

/** Entities::BulkImports::Entity */
export function bulkImportEntity(svc: ServiceContext, e: EntityRow): Record<string, unknown> {
  return {
    id: e.id,
    bulk_import_id: e.bulk_import_id,
    status: e.status,
    entity_type: e.entity_type,
    source_full_path: e.source_full_path,
    destination_full_path: destinationFullPath(svc, e),
    destination_name: e.destination_slug,
    destination_slug: e.destination_slug,
    destination_namespace: e.destination_namespace,
    parent_id: e.parent_id,
    namespace_id: e.entity_type === 'group' ? e.namespace_id : null,
    project_id: e.project_id,
    created_at: e.created_at,
    updated_at: e.updated_at,
    failures: failuresOf(svc, e.id).map(embeddedFailure),
    migrate_projects: !!e.migrate_projects,
    migrate_memberships: !!e.migrate_memberships,
    has_failures: entityHasFailures(svc, e),
    stats: Object.fromEntries(statsOf(svc, e.id).map((s) => [s.relation, { source: s.source, fetched: s.fetched, imported: s.imported }])),
  };
}
