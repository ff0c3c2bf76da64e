import type { Router } from '../../http/route';
import { declared, t } from '../../http/params';
import { forbidden } from '../../http/errors';
import { paginateArray } from '../../http/pagination';
import { inTransaction } from '../../db/connection';
import { Access } from '../core/access';
import { member } from '../core/entities';
import { loadSource, manageMembersLevel, sourceAccess } from '../core/members';
import { accessRequester, newAccessRequest } from './entities';
import { approveAccessRequest, deleteAccessRequest, listAccessRequests, requestAccess } from './access_requests';

/** /groups/:id/access_requests and /projects/:id/access_requests. */
export function registerAccessRequestRoutes(r: Router): void {
  for (const kind of ['groups', 'projects'] as const) {
    const base = `/${kind}/:id/access_requests`;

    r.get(base, (rc) => {
      rc.requireUser();
      const source = loadSource(rc, kind);
      if (sourceAccess(rc, source) < manageMembersLevel(source)) throw forbidden();
      return paginateArray(rc, listAccessRequests(rc, source)).map((m) => accessRequester(rc, m));
    });

    r.post(base, (rc) => {
      const user = rc.requireUser();
      const source = loadSource(rc, kind);
      return newAccessRequest(rc, inTransaction(rc.svc.db, () => requestAccess(rc, source, user)));
    });

    r.put(`${base}/:user_id/approve`, (rc) => {
      rc.requireUser();
      const source = loadSource(rc, kind);
      const p = declared({ ...rc.params, user_id: rc.path.user_id }, { user_id: t.integer().required(), access_level: t.integer().default(Access.DEVELOPER) });
      const m = inTransaction(rc.svc.db, () => approveAccessRequest(rc, source, p.user_id, p.access_level));
      rc.status = 201;
      return member(rc, m);
    });

    r.delete(`${base}/:user_id`, (rc) => {
      const source = loadSource(rc, kind);
      const p = declared({ user_id: rc.path.user_id }, { user_id: t.integer().required() });
      inTransaction(rc.svc.db, () => deleteAccessRequest(rc, source, p.user_id));
      return undefined;
    });
  }
}
