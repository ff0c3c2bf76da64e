import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, TestService } from '../helpers/service';

/**
 * Who may promote a project label: GitLab's LabelHelpers#promote_label finds the project
 * (`user_project`: 404 where the caller cannot see it), answers 400 outside a group, then
 * `authorize! :admin_label, parent.group`: Planner and up in the group (inherited from an
 * ancestor too) or an admin. A role in the project alone does not count.
 */
let s: TestService;
type Who = 'projectMaintainer' | 'groupGuestProjectMaintainer' | 'groupPlanner' | 'groupReporter' | 'parentPlanner' | 'outsider';
const u = {} as Record<Who, { user: { id: number }; token: string }>;
let parent: { id: number };
let group: { id: number };
let project: { id: number };
let labelSeq = 0;

beforeAll(async () => {
  s = await TestService.start();
  for (const who of ['projectMaintainer', 'groupGuestProjectMaintainer', 'groupPlanner', 'groupReporter', 'parentPlanner', 'outsider'] as const) u[who] = await s.createUser({ username: `lpp-${who.toLowerCase()}` });
  parent = await s.createGroup({ path: 'lpp-parent', visibility: 'private' });
  group = await s.createGroup({ path: 'lpp-group', parent_id: parent.id, visibility: 'private' });
  project = await s.createProject({ name: 'lpp-project', namespace_id: group.id, visibility: 'private' });
  await s.addMember('projects', project.id, u.projectMaintainer.user.id, 40);
  await s.addMember('groups', group.id, u.groupGuestProjectMaintainer.user.id, 10);
  await s.addMember('projects', project.id, u.groupGuestProjectMaintainer.user.id, 40);
  await s.addMember('groups', group.id, u.groupPlanner.user.id, 15);
  await s.addMember('groups', group.id, u.groupReporter.user.id, 20);
  await s.addMember('groups', parent.id, u.parentPlanner.user.id, 15);
}, 120_000);
afterAll(async () => s?.stop());

async function newLabel(): Promise<{ id: number; name: string }> {
  return ok(await s.post(`/projects/${project.id}/labels`, { name: `promote-${++labelSeq}`, color: '#123456' })) as { id: number; name: string };
}

const groupLabelNames = async () => (ok(await s.get(`/groups/${group.id}/labels`, { query: { per_page: '100' } })) as { name: string }[]).map((l) => l.name).sort();

describe('promoting a project label needs admin_label on the group', () => {
  it('403 for a project Maintainer who is not a Planner of the group; the label stays the project\'s', async () => {
    for (const who of ['projectMaintainer', 'groupGuestProjectMaintainer'] as const) {
      const label = await newLabel();
      for (const path of [`/projects/${project.id}/labels/${label.id}/promote`, `/projects/${project.id}/labels/${label.name}/promote`]) {
        const res = await s.put(path, {}, { token: u[who].token });
        expect(res.status, `${who} ${path}`).toBe(403);
        expect(res.body).toEqual({ message: '403 Forbidden' });
      }
      const deprecated = await s.put(`/projects/${project.id}/labels/promote`, { name: label.name }, { token: u[who].token });
      expect(deprecated.status).toBe(403);
      expect(ok(await s.get(`/projects/${project.id}/labels/${label.id}`))).toMatchObject({ id: label.id, is_project_label: true });
    }
    expect(await groupLabelNames()).toEqual([]);
  });

  it('403 before the label is looked up: a missing label is a 403 too, not a 404', async () => {
    const res = await s.put(`/projects/${project.id}/labels/no-such-label/promote`, {}, { token: u.projectMaintainer.token });
    expect(res.status).toBe(403);
  });

  it('404 for a caller who cannot see the project', async () => {
    const label = await newLabel();
    const res = await s.put(`/projects/${project.id}/labels/${label.id}/promote`, {}, { token: u.outsider.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: '404 Project Not Found' });
  });

  it('allowed for a Planner or Reporter of the group (or of an ancestor group) without a project role', async () => {
    const promoted: string[] = [];
    for (const who of ['groupPlanner', 'groupReporter', 'parentPlanner'] as const) {
      const label = await newLabel();
      const res = await s.put(`/projects/${project.id}/labels/${label.id}/promote`, {}, { token: u[who].token });
      expect(res.status, who).toBe(200);
      expect(res.body).toMatchObject({ name: label.name, color: '#123456' });
      expect(res.body).not.toHaveProperty('is_project_label');
      promoted.push(label.name);
      expect((await s.get(`/projects/${project.id}/labels/${label.id}`)).status).toBe(404);
    }
    expect(await groupLabelNames()).toEqual(promoted.sort());
  });

  it('a missing label is a 404 once the caller may promote', async () => {
    const res = await s.put(`/projects/${project.id}/labels/no-such-label/promote`, {}, { token: u.groupPlanner.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: '404 Label Not Found' });
  });
});
