import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, ROOT_TOKEN, TestService } from '../helpers/service';
import { preparedBy } from '../helpers/lists';

// A page of entities reads what its rows show of other tables once for the page (parents,
// children, thumbs, subscriptions...). These tests pin that each row still shows exactly what the
// record's own GET shows, field by field and in order, for records with and without each of them.

const CLOCK = new Date('2026-03-02T10:00:00Z');
let s: TestService;
beforeAll(async () => {
  s = await TestService.start({ clock: () => new Date(CLOCK) });
});
afterAll(async () => s?.stop());

/** The answer's text for one record, its fields in the order the answer gave them. */
const text = (record: unknown): string => JSON.stringify(record);
const without = (record: Record<string, unknown>, ...keys: string[]): Record<string, unknown> =>
  Object.fromEntries(Object.entries(record).filter(([k]) => !keys.includes(k)));

describe('epic pages', () => {
  let group: any;
  let sub: any;
  let reporter: { user: any; token: string };
  let guest: { user: any; token: string };
  /** A Reporter of the subgroup only: administers the subgroup's epics, reads the group's. */
  let subReporter: { user: any; token: string };
  const epics: Record<string, any> = {};

  beforeAll(async () => {
    reporter = await s.createUser();
    guest = await s.createUser();
    subReporter = await s.createUser();
    group = await s.createGroup({ visibility: 'private' });
    sub = await s.createGroup({ parent_id: group.id, visibility: 'private' });
    await s.addMember('groups', sub.id, subReporter.user.id, 20);
    await s.addMember('groups', group.id, reporter.user.id, 20);
    await s.addMember('groups', group.id, guest.user.id, 10);
    ok(await s.post(`/groups/${group.id}/labels`, { name: 'shared', color: '#0000ff', description: 'In the group' }));
    ok(await s.post(`/groups/${sub.id}/labels`, { name: 'sub-only', color: '#eeeeee' }));
    const make = async (key: string, groupId: number, body: Record<string, unknown>, token?: string) =>
      (epics[key] = ok(await s.post(`/groups/${groupId}/epics`, { title: key, ...body }, { token })));
    await make('parent', group.id, { labels: 'shared,zeta,alpha', description: 'Top' });
    await make('fixed', group.id, { parent_id: epics.parent.id, start_date_is_fixed: true, start_date_fixed: '2026-01-05', due_date_is_fixed: true, due_date_fixed: '2026-02-05' });
    await make('inherits', group.id, { parent_id: epics.parent.id, confidential: true }, reporter.token);
    await make('grandchild', group.id, { parent_id: epics.inherits.id, start_date_is_fixed: true, start_date_fixed: '2025-12-01', labels: 'shared' });
    await make('in-sub', sub.id, { parent_id: epics.parent.id, due_date_is_fixed: true, due_date_fixed: '2026-06-30', color: '#123456', labels: 'sub-only,shared' });
    await make('plain', group.id, {});
    for (const [key, name, token] of [
      ['parent', 'thumbsup', undefined],
      ['parent', 'thumbsdown', reporter.token],
      ['fixed', 'thumbsup', reporter.token],
      ['fixed', 'thumbsup', undefined],
      ['grandchild', 'rocket', undefined],
    ] as const) {
      const e = epics[key];
      ok(await s.post(`/groups/${e.group_id}/epics/${e.iid}/award_emoji`, { name }, { token }));
    }
    ok(await s.put(`/groups/${group.id}/epics/${epics.plain.iid}`, { state_event: 'close' }));
  });

  it("shows each epic of a page as its own GET does, for an administrator, a Reporter, a Guest and a subgroup's Reporter", async () => {
    for (const [token, total] of [
      [undefined, '6'],
      [reporter.token, '6'],
      [guest.token, '5'],
      [subReporter.token, '5'],
    ] as const) {
      const page = await s.get(`/groups/${group.id}/epics?per_page=100`, { token });
      expect(page.status).toBe(200);
      expect(page.headers.get('x-total')).toBe(total);
      for (const row of page.body) {
        const own = ok(await s.get(`/groups/${row.group_id}/epics/${row.iid}`, { token }));
        // The list is read through the top group: an epic of the subgroup is `sub&1` from there.
        const expected = row.group_id === group.id ? own : { ...own, references: { ...own.references, relative: `${sub.full_path}&${row.iid}` } };
        expect(text(row)).toBe(text(without(expected, 'subscribed')));
      }
      if (token === subReporter.token) {
        const adminFields = (e: any) => 'start_date_is_fixed' in e;
        expect(page.body.filter(adminFields).map((e: any) => e.title)).toEqual(['in-sub']);
      }
    }
  });

  it('shows parents, dates from children and grandchildren, thumbs and the admin fields in place', async () => {
    const page = ok(await s.get(`/groups/${group.id}/epics?per_page=100&order_by=title&sort=asc`));
    const by = (key: string) => page.find((e: any) => e.id === epics[key].id);
    expect(page.map((e: any) => e.title)).toEqual(['fixed', 'grandchild', 'in-sub', 'inherits', 'parent', 'plain']);
    const api = `${s.url}/api/v4`;
    expect(text(by('parent'))).toBe(
      text({
        id: epics.parent.id,
        iid: epics.parent.iid,
        color: '#1068bf',
        text_color: '#FFFFFF',
        group_id: group.id,
        parent_id: null,
        parent_iid: null,
        title: 'parent',
        description: 'Top',
        confidential: false,
        author: by('parent').author,
        // The earliest start among its children (the grandchild's, through `inherits`), the latest due date.
        start_date: '2025-12-01',
        end_date: '2026-06-30',
        due_date: '2026-06-30',
        state: 'opened',
        web_url: `${s.url}/groups/${group.full_path}/-/epics/${epics.parent.iid}`,
        reference: `&${epics.parent.iid}`,
        references: { short: `&${epics.parent.iid}`, relative: `&${epics.parent.iid}`, full: `${group.full_path}&${epics.parent.iid}` },
        created_at: CLOCK.toISOString(),
        updated_at: CLOCK.toISOString(),
        closed_at: null,
        labels: ['alpha', 'shared', 'zeta'],
        upvotes: 1,
        downvotes: 1,
        work_item_id: null,
        imported: false,
        imported_from: 'none',
        _links: {
          self: `${api}/groups/${group.id}/epics/${epics.parent.iid}`,
          epic_issues: `${api}/groups/${group.id}/epics/${epics.parent.iid}/issues`,
          group: `${api}/groups/${group.id}`,
          parent: null,
        },
        start_date_is_fixed: false,
        start_date_fixed: null,
        start_date_from_milestones: '2025-12-01',
        start_date_from_inherited_source: '2025-12-01',
        due_date_is_fixed: false,
        due_date_fixed: null,
        due_date_from_milestones: '2026-06-30',
        due_date_from_inherited_source: '2026-06-30',
      }),
    );
    expect(by('parent').author.username).toBe('root');
    expect([by('fixed').upvotes, by('fixed').downvotes]).toEqual([2, 0]);
    expect([by('grandchild').upvotes, by('grandchild').downvotes]).toEqual([0, 0]);
    expect(by('inherits')).toMatchObject({ parent_iid: epics.parent.iid, start_date: '2025-12-01', due_date: null, start_date_from_inherited_source: '2025-12-01' });
    expect(by('grandchild')._links.parent).toBe(`${api}/groups/${group.id}/epics/${epics.inherits.iid}`);
    expect(by('in-sub')).toMatchObject({ parent_iid: epics.parent.iid, group_id: sub.id, due_date: '2026-06-30', start_date: null, text_color: '#FFFFFF' });
    expect(by('in-sub')._links.parent).toBe(`${api}/groups/${group.id}/epics/${epics.parent.iid}`);
    expect(by('fixed')).toMatchObject({ start_date: '2026-01-05', due_date: '2026-02-05', start_date_from_milestones: null, start_date_from_inherited_source: null });
    // A Guest does not administer epics: no date settings at all.
    const asGuest = ok(await s.get(`/groups/${group.id}/epics?per_page=100`, { token: guest.token }));
    for (const e of asGuest) expect(Object.keys(e).filter((k) => k.includes('_is_fixed') || k.includes('_from_'))).toEqual([]);
    expect(asGuest.find((e: any) => e.id === epics.parent.id).start_date).toBe('2025-12-01');
  });

  it('shows with_labels_details as each epic group resolves its labels', async () => {
    const page = ok(await s.get(`/groups/${group.id}/epics?per_page=100&with_labels_details=true`));
    const groupLabels = ok(await s.get(`/groups/${sub.id}/labels?per_page=100`));
    const id = (name: string) => groupLabels.find((l: any) => l.name === name).id;
    const labelsOf = (key: string) => page.find((e: any) => e.id === epics[key].id).labels;
    // `alpha` and `zeta` were created with the parent; `sub-only` is the subgroup's, invisible from the group.
    expect(labelsOf('parent').map((l: any) => [l.name, l.id])).toEqual([['alpha', id('alpha')], ['shared', id('shared')], ['zeta', id('zeta')]]);
    expect(labelsOf('in-sub').map((l: any) => [l.name, l.id])).toEqual([['shared', id('shared')], ['sub-only', id('sub-only')]]);
    expect(labelsOf('plain')).toEqual([]);
    const shared = groupLabels.find((l: any) => l.name === 'shared');
    expect(shared.description_html).toContain('In the group');
    expect(text(labelsOf('grandchild'))).toBe(
      text([{ id: shared.id, name: 'shared', description: 'In the group', description_html: shared.description_html, text_color: '#FFFFFF', color: '#0000ff' }]),
    );
  });

  it('reads parents, children and thumbs once for a page, not once per epic', async () => {
    const sql = await preparedBy(s, async () => {
      ok(await s.put(`/groups/${group.id}`, { description: 'a write, so nothing is remembered' }));
      ok(await s.get(`/groups/${group.id}/epics?per_page=100`));
    });
    const count = (re: RegExp) => sql.filter((q) => re.test(q)).length;
    expect(count(/FROM epic_award_emoji/)).toBe(1);
    expect(count(/FROM epics WHERE id/)).toBe(1);
    // The page's children at once; below them, each child whose dates are not fixed reads its own:
    // `inherits` and `in-sub` under `parent`, `grandchild` under `inherits` (twice: as the parent's
    // grandchild and as the child of `inherits`, itself on the page).
    expect(count(/CROSS JOIN epics c ON c.parent_id/)).toBe(1);
    expect(count(/FROM epics WHERE parent_id = \?/)).toBe(4);
  });
});

describe('label pages', () => {
  let group: any;
  let project: any;
  let dev: { user: any; token: string };
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    dev = await s.createUser();
    group = await s.createGroup({ visibility: 'public' });
    project = await s.createProject({ namespace_id: group.id, visibility: 'public' });
    await s.addMember('projects', project.id, dev.user.id, 30);
    for (const [name, body] of [
      ['bug', { color: '#d9534f', description: 'A **bug**', priority: 2 }],
      ['feature', { color: '#eeeeee' }],
      ['docs', { color: 'navy', description: 'Docs' }],
    ] as const) {
      ids[name] = ok(await s.post(`/projects/${project.id}/labels`, { name, ...body })).id;
    }
    ids.team = ok(await s.post(`/groups/${group.id}/labels`, { name: 'team', color: '#00ff00' })).id;
    ok(await s.post(`/projects/${project.id}/issues`, { title: 'one', labels: 'bug,team' }));
    ok(await s.post(`/projects/${project.id}/labels/${ids.bug}/subscribe`, undefined, { token: dev.token }));
    ok(await s.post(`/projects/${project.id}/labels/${ids.team}/subscribe`, undefined, { token: dev.token }));
    ok(await s.post(`/projects/${project.id}/labels/${ids.docs}/subscribe`));
  });

  it("shows each label of a page as its own GET does, with each viewer's subscriptions", async () => {
    for (const [token, subscribed] of [
      [dev.token, ['bug', 'team']],
      [undefined, ['docs']],
      [null, []],
    ] as const) {
      const page = ok(await s.get(`/projects/${project.id}/labels?with_counts=true&per_page=100`, { token }));
      expect(page.map((l: any) => l.name)).toEqual(['bug', 'docs', 'feature', 'team']);
      expect(page.filter((l: any) => l.subscribed).map((l: any) => l.name)).toEqual(subscribed);
      for (const row of page) expect(text(row)).toBe(text(ok(await s.get(`/projects/${project.id}/labels/${row.id}`, { token }))));
      const plain = ok(await s.get(`/projects/${project.id}/labels?per_page=100`, { token }));
      expect(plain.map(text)).toEqual(page.map((l: any) => text(without(l, 'open_issues_count', 'closed_issues_count', 'open_merge_requests_count'))));
    }
    const fromGroup = ok(await s.get(`/groups/${group.id}/labels`, { token: dev.token }));
    expect(text(fromGroup)).toBe(
      text([{ id: ids.team, name: 'team', description: null, description_html: '', text_color: '#FFFFFF', color: '#00ff00', subscribed: true, archived: false }]),
    );
  });

  it('pins the project label entity field by field', async () => {
    const page = ok(await s.get(`/projects/${project.id}/labels?with_counts=true`, { token: dev.token }));
    expect(text(page[0])).toBe(
      text({
        id: ids.bug,
        name: 'bug',
        description: 'A **bug**',
        description_html: page[0].description_html,
        text_color: '#FFFFFF',
        color: '#d9534f',
        open_issues_count: 1,
        closed_issues_count: 0,
        open_merge_requests_count: 0,
        subscribed: true,
        priority: 2,
        is_project_label: true,
        archived: false,
      }),
    );
    expect(page[0].description_html).toContain('<strong>bug</strong>');
    expect(page[3]).toMatchObject({ name: 'team', is_project_label: false, priority: null, subscribed: true });
    // Dark text on a light color, white on the others, each label its own.
    expect(page.map((l: any) => [l.name, l.text_color])).toEqual([
      ['bug', '#FFFFFF'],
      ['docs', '#FFFFFF'],
      ['feature', '#333333'],
      ['team', '#FFFFFF'],
    ]);
  });

  it('reads the subscriptions once for a page, not once per label', async () => {
    const sql = await preparedBy(s, async () => {
      ok(await s.put(`/projects/${project.id}`, { description: 'a write, so nothing is remembered' }));
      ok(await s.get(`/projects/${project.id}/labels?per_page=100`, { token: dev.token }));
    });
    expect(sql.filter((q) => q.includes('label_subscriptions')).length).toBe(1);
  });
});

describe('long answers', () => {
  it('sends a page of over 16 KB whole, its non-ASCII text byte for byte, with the Content-Length of its bytes (GET and HEAD)', async () => {
    const project = await s.createProject();
    for (let i = 0; i < 60; i++) {
      ok(await s.post(`/projects/${project.id}/labels`, { name: `läbel-${i} 🚀`, color: '#123456', description: `Ünïcødé ${'ü'.repeat(i)} 日本語 ${'🚀'.repeat(i % 5)} "quoted" \\ back` }));
    }
    const path = `/projects/${project.id}/labels?per_page=100`;
    const res = await fetch(`${s.url}/api/v4${path}`, { headers: { 'private-token': ROOT_TOKEN } });
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.length).toBeGreaterThan(16_384);
    expect(res.headers.get('content-length')).toBe(String(bytes.length));
    expect(res.headers.get('content-type')).toBe('application/json');
    const page = JSON.parse(bytes.toString('utf8'));
    expect(page).toHaveLength(60);
    // The same text the labels' own (short) answers carry, and the same bytes JSON.stringify's text encodes to.
    expect(bytes.equals(Buffer.from(JSON.stringify(page)))).toBe(true);
    for (const row of page.slice(0, 5)) expect(text(row)).toBe(text(without(ok(await s.get(`/projects/${project.id}/labels/${row.id}`)), 'open_issues_count', 'closed_issues_count', 'open_merge_requests_count')));
    const head = await fetch(`${s.url}/api/v4${path}`, { method: 'HEAD', headers: { 'private-token': ROOT_TOKEN } });
    expect(head.headers.get('content-length')).toBe(String(bytes.length));
    expect((await head.arrayBuffer()).byteLength).toBe(0);
  });
});

describe('snippet pages', () => {
  it("shows each snippet of a page as its own GET does: the latest revision's files, each author", async () => {
    const dev = await s.createUser();
    const group = await s.createGroup({ visibility: 'public' });
    const project = await s.createProject({ namespace_id: group.id, visibility: 'public' });
    await s.addMember('projects', project.id, dev.user.id, 30);
    const P = `/projects/${project.id}/snippets`;
    const made: any[] = [];
    for (let i = 0; i < 6; i++) {
      const files = Array.from({ length: (i % 3) + 1 }, (_, k) => ({ file_path: `dir/f${(k * 7 + i) % 5}-${k}.txt`, content: `c${i}${k}` }));
      made.push(ok(await s.post(P, { title: `Snippet ${i}`, visibility: 'public', files }, { token: i % 2 ? dev.token : undefined })));
    }
    // New revisions: one file renamed and one added; a file moved to another name.
    ok(await s.put(`${P}/${made[1].id}`, { files: [{ action: 'create', file_path: 'a-first.txt', content: 'new' }] }, { token: dev.token }));
    ok(await s.put(`${P}/${made[2].id}`, { files: [{ action: 'move', previous_path: made[2].files[0].path, file_path: 'zz-last.txt' }] }));
    const outsider = await s.createUser();
    for (const token of [undefined, dev.token, outsider.token]) {
      const page = ok(await s.get(`${P}?per_page=100`, { token }));
      expect(page.map((x: any) => x.id)).toEqual(made.map((x) => x.id).reverse());
      for (const row of page) expect(text(row)).toBe(text(ok(await s.get(`${P}/${row.id}`, { token }))));
    }
    const page = ok(await s.get(`${P}?per_page=100`));
    const files = (id: number) => page.find((x: any) => x.id === id).files.map((f: any) => f.path);
    expect(files(made[1].id)).toEqual(['a-first.txt', ...made[1].files.map((f: any) => f.path)].sort());
    expect(files(made[2].id)).toEqual([...made[2].files.slice(1).map((f: any) => f.path), 'zz-last.txt'].sort());
    expect(page.find((x: any) => x.id === made[1].id).file_name).toBe('a-first.txt');
    expect(files(made[0].id)).toEqual(made[0].files.map((f: any) => f.path));
    // A dev's own e-mail is theirs to see; root's is shown to root.
    expect(ok(await s.get(`${P}?per_page=100`, { token: dev.token })).find((x: any) => x.id === made[1].id).author.email).toBe(dev.user.email);

    // A write to the files' table (core/145's version moves, so no snippet's paths are kept): one statement each for the page.
    s.service.context.db.prepare('UPDATE snippet_revision_files SET path = path').run();
    const sql = await preparedBy(s, async () => ok(await s.get(`${P}?per_page=100`)));
    expect(sql.filter((q) => q.includes('snippet_revisions')).length).toBe(1);
    expect(sql.filter((q) => q.includes('snippet_revision_files')).length).toBe(1);
  });
});

describe('note pages', () => {
  it('shows each note of a page as its own GET does: authors, resolvers, system and internal notes', async () => {
    const dev = await s.createUser();
    const rep = await s.createUser();
    const project = await s.createProject({ visibility: 'private' });
    await s.addMember('projects', project.id, dev.user.id, 30);
    await s.addMember('projects', project.id, rep.user.id, 20);
    const M = `/projects/${project.id}/merge_requests`;
    const mr = ok(await s.post(M, { source_branch: 'b', target_branch: 'main', title: 'MR' }));
    const threads: any[] = [];
    for (const [i, token] of [undefined, dev.token, rep.token, dev.token, undefined].entries()) {
      threads.push(ok(await s.post(`${M}/${mr.iid}/discussions`, { body: `Thread ${i}` }, { token })));
    }
    ok(await s.post(`${M}/${mr.iid}/notes`, { body: 'Plain' }, { token: rep.token }));
    ok(await s.post(`${M}/${mr.iid}/notes`, { body: 'Internal', internal: true }, { token: dev.token }));
    ok(await s.put(`${M}/${mr.iid}/discussions/${threads[1].id}`, { resolved: true }));
    ok(await s.put(`${M}/${mr.iid}/discussions/${threads[2].id}`, { resolved: true }, { token: dev.token }));
    ok(await s.put(`${M}/${mr.iid}`, { labels: 'bug' }));
    for (const token of [undefined, dev.token, rep.token]) {
      const page = ok(await s.get(`${M}/${mr.iid}/notes?per_page=100`, { token }));
      expect(page.length).toBeGreaterThanOrEqual(7);
      const resolvers = page.filter((n: any) => n.resolved).map((n: any) => [n.body, n.author.id, n.resolved_by.id]);
      expect(resolvers).toEqual([
        ['Thread 2', rep.user.id, dev.user.id],
        ['Thread 1', dev.user.id, 1],
      ]);
      for (const row of page) expect(text(row)).toBe(text(ok(await s.get(`${M}/${mr.iid}/notes/${row.id}`, { token }))));
      const discussions = ok(await s.get(`${M}/${mr.iid}/discussions?per_page=100`, { token }));
      for (const d of discussions) expect(text(d.notes)).toBe(text(d.notes.map((n: any) => page.find((x: any) => x.id === n.id))));
    }
  });
});

describe('member pages', () => {
  it("shows each member of a page as its own GET does (e-mails as each viewer sees them, creators), the page's users read at once", async () => {
    const owner = await s.createUser();
    const group = await s.createGroup({ visibility: 'private' });
    const sub = await s.createGroup({ parent_id: group.id, visibility: 'private' });
    await s.addMember('groups', group.id, owner.user.id, 50);
    const users: { user: any; token: string }[] = [];
    for (let i = 0; i < 6; i++) {
      const u = await s.createUser();
      users.push(u);
      // Half added by the group's Owner, half by root: created_by differs.
      const target = i % 3 === 2 ? sub.id : group.id;
      ok(await s.post(`/groups/${target}/members`, { user_id: u.user.id, access_level: 10 + 10 * (i % 4) }, { token: i % 2 ? owner.token : undefined }));
    }
    for (const token of [undefined, owner.token, users[0].token]) {
      for (const [path, single] of [
        [`/groups/${group.id}/members?per_page=100`, (id: number) => `/groups/${group.id}/members/${id}`],
        [`/groups/${sub.id}/members/all?per_page=100`, (id: number) => `/groups/${sub.id}/members/all/${id}`],
      ] as const) {
        const page = ok(await s.get(path, { token }));
        expect(page.length).toBeGreaterThanOrEqual(4);
        for (const row of page) expect(text(row)).toBe(text(ok(await s.get(single(row.id), { token }))));
      }
    }
    const asMember = ok(await s.get(`/groups/${group.id}/members?per_page=100`, { token: users[0].token }));
    expect(asMember.filter((m: any) => 'email' in m).map((m: any) => m.id)).toEqual([users[0].user.id]);
    const creators = ok(await s.get(`/groups/${group.id}/members?per_page=100`)).map((m: any) => [m.id, m.created_by?.id ?? null]);
    expect(creators).toContainEqual([users[1].user.id, owner.user.id]);
    expect(creators).toContainEqual([users[0].user.id, 1]);

    const sql = await preparedBy(s, async () => {
      ok(await s.put(`/groups/${group.id}`, { description: 'a write, so nothing is remembered' }));
      ok(await s.get(`/groups/${group.id}/members?per_page=100`));
    });
    // The caller's own user (authentication) and no other user one by one.
    expect(sql.filter((q) => q === 'SELECT * FROM users WHERE id = ?').length).toBeLessThanOrEqual(1);
  });
});
