import { createReadStream, statSync } from 'node:fs';
import type { RequestContext, Router } from '../../../http/route';
import type { Reply } from '../../../http/server';
import { declared, t } from '../../../http/params';
import { notFound } from '../../../http/errors';
import { inTransaction } from '../../../db/connection';
import { contentDisposition } from '../../uploads/disposition';
import { mimeTypeFor } from '../../uploads/uploads';
import { canReadGroup, canReadProject, loadGroup, loadProject } from '../access';
import { findNamespaceById } from '../namespaces';
import { findProjectById } from '../projects';
import { findUserById } from '../users';
import { type AvatarOwner, AVATAR_URL_SEGMENTS, avatarPath, avatarUrl, readAvatarParam, writeAvatar } from '../avatars';

/** Streams an avatar file with its image type (`disposition` as the route serves it). */
function sendAvatar(rc: RequestContext, path: string | null, filename: string, disposition: 'inline' | 'attachment'): Reply {
  if (!path) throw notFound('Avatar');
  return rc.reply
    .code(200)
    .header('content-type', mimeTypeFor(filename))
    .header('content-length', String(statSync(path).size))
    .header('content-disposition', contentDisposition(disposition, filename))
    .send(createReadStream(path));
}

/** The stored avatar file name of an owner the caller may see, or undefined. */
function visibleAvatar(rc: RequestContext, owner: AvatarOwner, id: number): string | null | undefined {
  switch (owner) {
    case 'user':
      return findUserById(rc.svc, id)?.avatar;
    case 'group': {
      const g = findNamespaceById(rc.svc, id);
      return g && g.kind === 'group' && canReadGroup(rc.svc, rc.user, g) ? g.avatar : undefined;
    }
    case 'project': {
      const p = findProjectById(rc.svc, id);
      return p && canReadProject(rc.svc, rc.user, p) ? p.avatar : undefined;
    }
    case 'topic':
      return (rc.svc.db.prepare('SELECT avatar FROM topics WHERE id = ?').get(id) as { avatar: string | null } | undefined)?.avatar;
  }
}

/** Avatars: the files at GitLab's upload URLs, the groups' and projects' download endpoints, and PUT /user/avatar. */
export function registerAvatarRoutes(r: Router): void {
  for (const owner of Object.keys(AVATAR_URL_SEGMENTS) as AvatarOwner[]) {
    r.rootRoute(
      'GET',
      `/uploads/-/system/${AVATAR_URL_SEGMENTS[owner]}/avatar/:owner_id/:filename`,
      (rc) => {
        const id = /^\d+$/.test(rc.path.owner_id) ? Number(rc.path.owner_id) : 0;
        const stored = visibleAvatar(rc, owner, id);
        if (!stored || stored !== rc.path.filename) throw notFound();
        return sendAvatar(rc, avatarPath(rc.svc, owner, id, stored), stored, 'inline');
      },
      { auth: 'optional' },
    );
  }

  r.get(
    '/groups/:id/avatar',
    (rc) => {
      const g = loadGroup(rc);
      return sendAvatar(rc, avatarPath(rc.svc, 'group', g.id, g.avatar), g.avatar ?? '', 'attachment');
    },
    { auth: 'optional' },
  );

  r.get(
    '/projects/:id/avatar',
    (rc) => {
      const p = loadProject(rc);
      return sendAvatar(rc, avatarPath(rc.svc, 'project', p.id, p.avatar), p.avatar ?? '', 'attachment');
    },
    { auth: 'optional' },
  );

  // PUT /user/avatar: the caller's own avatar; answers Entities::Avatar.
  r.put('/user/avatar', (rc) => {
    const user = rc.requireUser();
    declared(rc.params, { avatar: t.file().required() });
    const avatar = readAvatarParam(rc.params.avatar)!;
    inTransaction(rc.svc.db, () => writeAvatar(rc.svc, 'user', user.id, avatar));
    return { avatar_url: avatarUrl(rc.baseUrl, 'user', user.id, findUserById(rc.svc, user.id)!.avatar) };
  });
}
