import { createReadStream, statSync } from 'node:fs';
import type { RequestContext, Router } from '../../http/route';
import type { Reply } from '../../http/server';
import { declared, t } from '../../http/params';
import { badRequest, grapeError, notFound, recordNotFound } from '../../http/errors';
import { paginate, limitSql } from '../../http/pagination';
import { Access, loadProject } from '../core/access';
import type { Project } from '../core/projects';
import { contentDisposition } from './disposition';
import { markdownUploadAdmin, projectUpload } from './entities';
import { type UploadRow, destroyUpload, findUpload, findUploadBySecret, storeUpload, uploadPath } from './uploads';

/** Streams the file from disk (never whole in memory) as an attachment with its type. */
function sendUpload(rc: RequestContext, u: UploadRow | undefined): Reply {
  if (!u) throw notFound();
  const path = uploadPath(rc.svc, u);
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    throw notFound();
  }
  return rc.reply
    .code(200)
    .header('content-type', u.mime_type)
    .header('content-length', String(size))
    .header('content-disposition', contentDisposition('attachment', u.filename))
    .send(createReadStream(path));
}

const NOTHING_TO_DESTROY =
  "The resource that you are attempting to access does not exist or you don't have permission to perform this action.";

function uploadIdParam(rc: RequestContext): number {
  if (!/^\d+$/.test(rc.path.upload_id)) throw grapeError(400, 'upload_id is invalid');
  return Number(rc.path.upload_id);
}

/** `:secret/:filename`; the filename must be a plain file path (Grape `file_path: true`). */
function bySecret(rc: RequestContext, project: Project): UploadRow | undefined {
  const filename = rc.path.filename;
  if (filename.includes('/') || filename.includes('\\') || filename === '..' || filename.includes('\0')) {
    throw grapeError(400, 'filename should be a valid file path');
  }
  return findUploadBySecret(rc.svc, project.id, rc.path.secret, filename);
}

export function registerUploadRoutes(r: Router): void {
  r.post('/projects/:id/uploads', (rc) => {
    const user = rc.requireUser();
    const project = loadProject(rc);
    const p = declared(rc.params, { file: t.file().required() });
    return projectUpload(storeUpload(rc.svc, project.id, user.id, p.file));
  });

  r.get('/projects/:id/uploads', (rc) => {
    const project = loadProject(rc, Access.MAINTAINER);
    const sql = 'FROM uploads WHERE project_id = ?';
    return paginate(rc, {
      count: () => (rc.svc.db.prepare(`SELECT count(*) AS n ${sql}`).get(project.id) as { n: number }).n,
      rows: (limit, offset) =>
        rc.svc.db.prepare(`SELECT * ${sql} ORDER BY created_at DESC, id DESC ${limitSql(limit)} OFFSET ?`).all(project.id, offset) as UploadRow[],
    }).map((u) => markdownUploadAdmin(rc, u));
  });

  r.get('/projects/:id/uploads/:upload_id', (rc) => {
    const project = loadProject(rc, Access.MAINTAINER);
    const u = findUpload(rc.svc, project.id, uploadIdParam(rc));
    if (!u) throw recordNotFound();
    return sendUpload(rc, u);
  });

  // Sandlab-only: an upload's link and Markdown again, by id (GitLab shows them on upload only and its
  // list omits the secret), so the desktop app can copy the Markdown of any listed upload. Maintainer, as the list.
  r.get('/projects/:id/sandlab/uploads/:upload_id', (rc) => {
    const project = loadProject(rc, Access.MAINTAINER);
    const u = findUpload(rc.svc, project.id, uploadIdParam(rc));
    if (!u) throw recordNotFound();
    return projectUpload(u);
  });

  r.get('/projects/:id/uploads/:secret/:filename', (rc) => sendUpload(rc, bySecret(rc, loadProject(rc))), { auth: 'optional' });

  r.delete('/projects/:id/uploads/:upload_id', (rc) => {
    const project = loadProject(rc, Access.MAINTAINER);
    const u = findUpload(rc.svc, project.id, uploadIdParam(rc));
    if (!u) throw recordNotFound();
    destroyUpload(rc.svc, u);
    return undefined;
  });

  r.delete('/projects/:id/uploads/:secret/:filename', (rc) => {
    const project = loadProject(rc, Access.MAINTAINER);
    const u = bySecret(rc, project);
    // Uploads::DestroyService refuses a missing upload; the route answers its message as `bad_request!`.
    if (!u) throw badRequest(NOTHING_TO_DESTROY);
    destroyUpload(rc.svc, u);
    return undefined;
  });

  // The upload's `full_path` (GitLab's web URL for it) serves the same bytes to whoever may read the project.
  r.rootRoute('GET', '/-/project/:id/uploads/:secret/:filename', (rc) => sendUpload(rc, bySecret(rc, loadProject(rc))), { auth: 'optional' });
}
