import type { Router } from '../../http/route';
import { notFound } from '../../http/errors';
import { paginateArray } from '../../http/pagination';
import { loadProject } from '../core/access';
import { findUserByIdOrUsername } from '../core/users';
import { events } from './entities';
import { listEvents } from './events';

const USER_SCOPES = ['read_api', 'read_user'] as const;

export function registerEventRoutes(r: Router): void {
  r.get(
    '/events',
    (rc) => {
      const me = rc.requireUser();
      const scope = typeof rc.params.scope === 'string' ? rc.params.scope : undefined;
      const rows = listEvents(rc, scope === 'all' ? { kind: 'memberProjects' } : { kind: 'author', userId: me.id });
      return events(rc, rows);
    },
    { scopes: USER_SCOPES },
  );

  r.get(
    '/users/:id/events',
    (rc) => {
      const user = findUserByIdOrUsername(rc.svc, rc.path.id);
      if (!user) throw notFound('User');
      // A private profile reads as no activity to everyone but its owner and admins.
      if (user.private_profile && rc.user?.id !== user.id && !rc.user?.admin) return paginateArray(rc, []);
      return events(rc, listEvents(rc, { kind: 'author', userId: user.id }));
    },
    // GitLab's lib/api/events.rb asks no authentication here: anonymous callers read the public projects' events.
    { auth: 'optional', scopes: USER_SCOPES },
  );

  r.get(
    '/projects/:id/events',
    (rc) => {
      const project = loadProject(rc);
      return events(rc, listEvents(rc, { kind: 'project', projectId: project.id }));
    },
    { auth: 'optional' },
  );
}
