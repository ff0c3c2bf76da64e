import { type EntityContext } from '../core/entities';
import { findUserById } from '../core/users';
import { type UploadRow, markdownFor } from './uploads';

/** Entities::ProjectUpload: what POST /projects/:id/uploads answers. */
export function projectUpload(u: UploadRow): Record<string, unknown> {
  const url = `/uploads/${u.secret}/${u.filename}`;
  const { alt, markdown } = markdownFor(u.filename, url);
  return { id: u.id, alt, url, full_path: `/-/project/${u.project_id}/uploads/${u.secret}/${u.filename}`, markdown };
}

/** Entities::MarkdownUploadAdmin: the list item. */
export function markdownUploadAdmin(ec: EntityContext, u: UploadRow): Record<string, unknown> {
  const by = u.uploaded_by_user_id === null ? undefined : findUserById(ec.svc, u.uploaded_by_user_id);
  return {
    id: u.id,
    size: u.size,
    filename: u.filename,
    created_at: u.created_at,
    uploaded_by: by ? { id: by.id, name: by.name, username: by.username } : null,
  };
}
