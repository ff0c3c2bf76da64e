import type { RequestContext, Router } from '../../http/route';
import { declared, t } from '../../http/params';
import { inTransaction } from '../../db/connection';
import { loadGroup, loadProject } from '../core/access';
import { globalNotificationSetting, notificationSetting } from './entities';
import { EVENT_PARAMS, type SourceType, readSetting, updateSetting } from './notification_settings';

const eventFields = Object.fromEntries(EVENT_PARAMS.map((e) => [e, t.boolean()])) as Record<(typeof EVENT_PARAMS)[number], ReturnType<typeof t.boolean>>;

function readChange(rc: RequestContext, global: boolean) {
  const p = declared(rc.params, { level: t.string(), ...(global ? { notification_email: t.string() } : {}), ...eventFields });
  const events: Record<string, boolean | null> = {};
  for (const e of EVENT_PARAMS) if (p[e] !== undefined) events[e] = p[e] ?? null;
  return { level: p.level, notificationEmail: global ? (p as { notification_email?: string | null }).notification_email : undefined, events };
}

function source(rc: RequestContext, kind: 'groups' | 'projects'): { type: SourceType; id: number } {
  return kind === 'groups' ? { type: 'Namespace', id: loadGroup(rc).id } : { type: 'Project', id: loadProject(rc).id };
}

export function registerNotificationSettingRoutes(r: Router): void {
  r.get('/notification_settings', (rc) => {
    const user = rc.requireUser();
    return globalNotificationSetting(readSetting(rc.svc, user, 'Global', 0), user);
  });

  r.put('/notification_settings', (rc) => {
    const user = rc.requireUser();
    const change = readChange(rc, true);
    const s = inTransaction(rc.svc.db, () => updateSetting(rc.svc, user, 'Global', 0, change));
    return globalNotificationSetting(s, user);
  });

  for (const kind of ['groups', 'projects'] as const) {
    r.get(`/${kind}/:id/notification_settings`, (rc) => {
      const user = rc.requireUser();
      const s = source(rc, kind);
      return notificationSetting(readSetting(rc.svc, user, s.type, s.id));
    });

    r.put(`/${kind}/:id/notification_settings`, (rc) => {
      const user = rc.requireUser();
      const s = source(rc, kind);
      const change = readChange(rc, false);
      return notificationSetting(inTransaction(rc.svc.db, () => updateSetting(rc.svc, user, s.type, s.id, change)));
    });
  }
}
