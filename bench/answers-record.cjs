/**
 * Records a build's answers to read requests, byte for byte, so two builds can be compared: status,
 * the headers a client reads (X-Total and the other paging headers, Link, content type, ETag) and
 * the body of each request, one line each. Run the same requests against copies of one data dir
 * with the build before a change and after it, then `cmp`/`diff` the two files.
 *
 * Two kinds of data dir:
 * - `seed`: an instance made here (with the build given, through its API, at a fixed clock) with one
 *   of each shape the entity serializers draw: issues, merge requests and epics with and without
 *   milestones (project's, group's, expired), labels (project's, group's, with descriptions),
 *   assignees, reviewers, closed_by, merged_by, award emoji, notes, closing merge requests, parent
 *   and child epics (fixed and inherited dates), confidential records, label subscriptions; read as
 *   root, a developer, a reporter, a guest, an outsider and anonymously. The first run seeds an
 *   empty DATA_DIR; later runs (another build, a copy) only read.
 * - `scale`: bench/build-scale.ts's big/ instance (with bench/scale-more.ts's records when present):
 *   pages of its million-row lists, per_page=100 and deep pages, as root.
 *
 * Run: node bench/answers-record.cjs OUT_DIR seed|scale DATA_DIR > answers.txt
 * (e.g. `node bench/answers-record.cjs /old/out seed /tmp/a > a.txt && cp -a /tmp/a /tmp/b &&
 *  node bench/answers-record.cjs out seed /tmp/b > b.txt && cmp a.txt b.txt`)
 */
const { existsSync, readdirSync, readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const [out, kind, dir] = process.argv.slice(2);
const chunks = join(out, 'main/chunks');
const { createService } = require(join(chunks, readdirSync(chunks).find((f) => f.startsWith('service-'))));
/** The fixed clock of the seeded instance: its answers (dates, `expired`) do not move with the day. */
const CLOCK = new Date('2026-03-02T10:00:00Z');
const SEED_TOKEN = 'glpat-answers-root-token-0001';
const SCALE_TOKEN = 'glpat-bench-root-token-00000001';
const KEPT_HEADERS = ['content-type', 'x-total', 'x-total-pages', 'x-page', 'x-per-page', 'x-next-page', 'x-prev-page', 'link', 'etag'];

(async () => {
  const seeded = kind === 'seed';
  const manifestFile = join(dir, 'answers-manifest.json');
  const fresh = seeded && !existsSync(manifestFile);
  const svc = await createService({ dataDir: dir, rootToken: seeded ? SEED_TOKEN : SCALE_TOKEN, ...(seeded ? { clock: () => new Date(CLOCK) } : {}) });
  const call = async (method, url, token, body) => {
    const res = await svc.inject({
      method,
      url: `/api/v4${url}`,
      headers: { host: 'sandlab.test', ...(token ? { 'private-token': token } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
      payload: body ? JSON.stringify(body) : undefined,
    });
    if (method !== 'GET' && res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
    return res;
  };
  let requests;
  if (seeded) {
    if (fresh) writeFileSync(manifestFile, JSON.stringify(await seed(svc, call)));
    requests = seededRequests(JSON.parse(readFileSync(manifestFile, 'utf8')));
  } else {
    requests = scaleRequests(JSON.parse(readFileSync(join(dir, 'bench-manifest.json'), 'utf8')));
  }
  for (const [who, token, url] of requests) {
    const res = await call('GET', url, token);
    const headers = KEPT_HEADERS.filter((h) => res.headers[h] !== undefined).map((h) => `${h}: ${res.headers[h]}`);
    process.stdout.write(`${who} GET ${url}\n${res.statusCode} ${headers.join(' | ')}\n${res.body}\n`);
  }
  await svc.close();
})().catch((e) => {
  console.error(e);
  process.exit(1);
});

/** The seeded instance: made through the API as root (and its users), returns what the requests need. */
async function seed(svc, call) {
  const root = SEED_TOKEN;
  const json = async (method, url, body, token = root) => JSON.parse((await call(method, url, token, body)).body || 'null');
  const users = {};
  for (const [name, extra] of [['dev', {}], ['rep', {}], ['guest', {}], ['out', {}], ['gone', {}]]) {
    const u = await json('POST', '/users', { username: name, name: `User ${name}`, email: `${name}@example.com`, password: 'password-1234567', ...extra });
    const t = await json('POST', `/users/${u.id}/personal_access_tokens`, { name: 't', scopes: ['api'] });
    users[name] = { id: u.id, token: t.token };
  }
  const group = await json('POST', '/groups', { name: 'Answers', path: 'answers', visibility: 'private' });
  const sub = await json('POST', '/groups', { name: 'Sub', path: 'sub', parent_id: group.id, visibility: 'private' });
  await json('POST', `/groups/${group.id}/members`, { user_id: users.rep.id, access_level: 20 });
  await json('POST', `/groups/${group.id}/members`, { user_id: users.guest.id, access_level: 10 });
  await json('POST', `/groups/${group.id}/members`, { user_id: users.gone.id, access_level: 30 });
  const project = await json('POST', '/projects', { name: 'Main', path: 'main', namespace_id: group.id, description: 'The *main* project' });
  const other = await json('POST', '/projects', { name: 'Other', path: 'other', namespace_id: sub.id, visibility: 'private' });
  const pub = await json('POST', '/projects', { name: 'Public', path: 'public', visibility: 'public' });
  await json('POST', `/projects/${project.id}/members`, { user_id: users.dev.id, access_level: 30 });
  const P = `/projects/${project.id}`;
  const past = await json('POST', `${P}/milestones`, { title: 'v0', due_date: '2025-01-01', description: 'Old' });
  const v1 = await json('POST', `${P}/milestones`, { title: 'v1', start_date: '2026-01-01', due_date: '2026-12-31' });
  const gm = await json('POST', `/groups/${group.id}/milestones`, { title: 'g1' });
  const om = await json('POST', `/projects/${other.id}/milestones`, { title: 'o1' });
  await json('POST', `${P}/labels`, { name: 'bug', color: '#d9534f', description: 'A **bug**', priority: 1 });
  const feature = await json('POST', `${P}/labels`, { name: 'feature', color: '#eeeeee' });
  await json('POST', `/groups/${group.id}/labels`, { name: 'group-label', color: 'navy', description: 'From the group' });
  await json('POST', `/groups/${group.id}/labels`, { name: 'epic-label', color: '#0f0' });
  for (let i = 0; i < 30; i++) await json('POST', `${P}/labels`, { name: `extra-${i}`, color: i % 2 ? '#123456' : '#abcdef', description: i % 3 ? null : `Extra ${i}` });
  await json('POST', `${P}/labels/${feature.id}/subscribe`, undefined, users.dev.token);
  await json('POST', `/groups/${group.id}/labels/group-label/subscribe`, undefined, root);

  const issueSpecs = [
    {},
    { labels: 'bug', milestone_id: v1.id, assignee_ids: [users.dev.id] },
    { labels: 'bug,feature,group-label', milestone_id: past.id, assignee_ids: [users.dev.id, users.rep.id], due_date: '2026-04-01', weight: 3 },
    { milestone_id: gm.id, confidential: true, description: 'Secret' },
    { issue_type: 'incident', labels: 'feature', discussion_locked: true },
    { labels: 'group-label', assignee_ids: [users.rep.id], milestone_id: v1.id },
  ];
  const issues = [];
  for (let i = 0; i < 24; i++) {
    const spec = issueSpecs[i % issueSpecs.length];
    const token = i % 5 === 2 ? users.dev.token : i % 7 === 3 ? users.gone.token : root;
    issues.push(await json('POST', `${P}/issues`, { title: `Issue ${i}`, description: `Body ${i}`, ...spec }, token));
  }
  for (const [k, i] of issues.entries()) {
    if (k % 4 === 1) await json('PUT', `${P}/issues/${i.iid}`, { state_event: 'close' }, k % 8 === 1 ? users.dev.token : root);
    if (k % 3 === 0) await json('POST', `${P}/issues/${i.iid}/award_emoji`, { name: 'thumbsup' });
    if (k % 6 === 0) await json('POST', `${P}/issues/${i.iid}/award_emoji`, { name: 'thumbsdown' }, users.dev.token);
    if (k % 5 === 0) await json('POST', `${P}/issues/${i.iid}/award_emoji`, { name: 'rocket' }, users.dev.token);
    if (k % 2 === 0) await json('POST', `${P}/issues/${i.iid}/notes`, { body: `Note on ${k}` });
    if (k % 4 === 0) await json('POST', `${P}/issues/${i.iid}/notes`, { body: `Internal on ${k}`, internal: true }, users.dev.token);
  }
  const O = `/projects/${other.id}`;
  const otherIssue = await json('POST', `${O}/issues`, { title: 'Elsewhere', milestone_id: om.id });

  const mrSpecs = [
    {},
    { labels: 'bug', milestone_id: v1.id, assignee_ids: [users.dev.id], reviewer_ids: [users.rep.id] },
    { title: 'Draft: wip', labels: 'feature,group-label', milestone_id: gm.id, reviewer_ids: [users.dev.id, users.rep.id], squash: true },
    { description: `Closes #${issues[0].iid} and #${issues[3].iid}`, remove_source_branch: true },
    { title: '[Draft] other', milestone_id: past.id, assignee_ids: [users.rep.id, users.dev.id] },
  ];
  const mrs = [];
  for (let i = 0; i < 20; i++) {
    const spec = mrSpecs[i % mrSpecs.length];
    mrs.push(await json('POST', `${P}/merge_requests`, { source_branch: `b${i}`, target_branch: 'main', title: `MR ${i}`, ...spec }, i % 3 === 1 ? users.dev.token : root));
  }
  await json('POST', `${O}/merge_requests`, { source_branch: 'x', target_branch: 'main', title: `Closes the other`, description: `Closes ${project.path_with_namespace}#${issues[6].iid}` });
  for (const [k, m] of mrs.entries()) {
    if (k % 5 === 2) await json('PUT', `${P}/merge_requests/${m.iid}`, { state_event: 'close' });
    if (k % 3 === 0) await json('POST', `${P}/merge_requests/${m.iid}/award_emoji`, { name: 'thumbsup' }, users.dev.token);
    if (k % 2 === 1) await json('POST', `${P}/merge_requests/${m.iid}/notes`, { body: `MR note ${k}` });
  }
  // Merged records: Sandlab merges through git; the serializer only reads these columns.
  const db = svc.context.db;
  for (const k of [4, 9]) {
    db.prepare("UPDATE merge_requests SET state = 'merged', merged_by_id = ?, merged_at = '2026-02-01T00:00:00.000Z', merge_commit_sha = 'abc' WHERE id = ?").run(k === 4 ? users.dev.id : 1, mrs[k].id);
  }

  const G = `/groups/${group.id}`;
  const epics = [];
  const parent = await json('POST', `${G}/epics`, { title: 'Parent', labels: 'epic-label,group-label', description: 'Top' });
  epics.push(parent);
  epics.push(await json('POST', `${G}/epics`, { title: 'Child fixed', parent_id: parent.id, start_date_is_fixed: true, start_date_fixed: '2026-01-05', due_date_is_fixed: true, due_date_fixed: '2026-02-05' }));
  epics.push(await json('POST', `${G}/epics`, { title: 'Child inherited', parent_id: parent.id, confidential: true }, users.rep.token));
  epics.push(await json('POST', `${G}/epics`, { title: 'Grandchild', parent_id: epics[2].id, start_date_is_fixed: true, start_date_fixed: '2025-12-01', labels: 'bug' }));
  epics.push(await json('POST', `/groups/${sub.id}/epics`, { title: 'In sub', parent_id: parent.id, due_date_is_fixed: true, due_date_fixed: '2026-06-30', color: '#123456' }));
  for (let i = 0; i < 25; i++) {
    epics.push(await json('POST', `${G}/epics`, { title: `Epic ${i}`, labels: i % 3 === 0 ? 'epic-label' : i % 3 === 1 ? 'unknown-label,epic-label' : '', confidential: i % 7 === 3, color: i % 2 ? '#ff0000' : undefined }, i % 4 === 1 ? users.rep.token : root));
  }
  for (const [k, e] of epics.entries()) {
    const base = `/groups/${e.group_id}/epics/${e.iid}`;
    if (k % 4 === 2) await json('PUT', base, { state_event: 'close' });
    if (k % 3 === 0) await json('POST', `${base}/award_emoji`, { name: 'thumbsup' });
    if (k % 5 === 0) await json('POST', `${base}/award_emoji`, { name: 'thumbsdown' }, users.rep.token);
    if (k % 2 === 0) await json('POST', `/groups/${e.group_id}/epics/${e.id}/notes`, { body: `Epic note ${k}` }, k % 4 === 0 ? root : users.rep.token);
  }
  const snippets = [];
  for (let i = 0; i < 8; i++) {
    const files = Array.from({ length: (i % 3) + 1 }, (_, k) => ({ file_path: `dir/f${(k * 7 + i) % 5}-${k}.txt`, content: `c${i}${k}` }));
    snippets.push(await json('POST', `${P}/snippets`, { title: `Snippet ${i}`, description: i % 2 ? 'Described' : undefined, visibility: i % 3 ? 'private' : 'internal', files }, i % 2 ? users.dev.token : root));
  }
  await json('PUT', `${P}/snippets/${snippets[1].id}`, { files: [{ action: 'create', file_path: 'a-first.txt', content: 'new' }] });
  await json('PUT', `${P}/snippets/${snippets[2].id}`, { files: [{ action: 'move', previous_path: snippets[2].files[0].path, file_path: 'zz-last.txt' }] });
  const personal = [];
  for (let i = 0; i < 3; i++) personal.push(await json('POST', '/snippets', { title: `Mine ${i}`, visibility: 'public', files: [{ file_path: `p${i}.md`, content: '# hi' }] }, i ? users.dev.token : root));
  // A user gone: their records keep their id (author null where the serializer finds none).
  db.prepare('DELETE FROM users WHERE id = ?').run(users.gone.id);
  return {
    users,
    root,
    projectId: project.id,
    otherId: other.id,
    pubId: pub.id,
    groupId: group.id,
    subId: sub.id,
    milestones: [past.id, v1.id],
    groupMilestone: gm.id,
    issueIids: issues.map((i) => i.iid),
    otherIssueIid: otherIssue.iid,
    mrIids: mrs.map((m) => m.iid),
    epics: epics.map((e) => [e.group_id, e.iid, e.id]),
    snippetIds: snippets.map((x) => x.id),
    personalSnippetIds: personal.map((x) => x.id),
  };
}

function seededRequests(m) {
  const viewers = [
    ['root', m.root],
    ['dev', m.users.dev.token],
    ['rep', m.users.rep.token],
    ['guest', m.users.guest.token],
    ['out', m.users.out.token],
    ['anon', null],
  ];
  const P = `/projects/${m.projectId}`;
  const G = `/groups/${m.groupId}`;
  const lists = [
    `${P}/issues?per_page=100`,
    `${P}/issues?per_page=7&page=2`,
    `${P}/issues?per_page=100&with_labels_details=true`,
    `${P}/issues?state=closed&order_by=updated_at&sort=asc`,
    `${P}/issues?labels=bug&per_page=3`,
    `${G}/issues?per_page=100`,
    '/issues?scope=all&per_page=100',
    `/projects/${m.otherId}/issues`,
    `${P}/merge_requests?per_page=100`,
    `${P}/merge_requests?per_page=6&page=3`,
    `${P}/merge_requests?state=merged`,
    `${P}/merge_requests?view=simple`,
    `${P}/merge_requests?with_labels_details=true`,
    `${G}/merge_requests?per_page=100`,
    '/merge_requests?scope=all&per_page=100',
    `${P}/labels?per_page=100`,
    `${P}/labels?with_counts=true&per_page=100`,
    `${P}/labels?per_page=5&page=4`,
    `${P}/labels?include_ancestor_groups=false`,
    `${P}/labels?search=extra`,
    `${G}/labels?per_page=100`,
    `${G}/labels?with_counts=true&only_group_labels=false&per_page=100`,
    `${G}/epics?per_page=100`,
    `${G}/epics?per_page=100&with_labels_details=true`,
    `${G}/epics?per_page=4&page=2`,
    `${G}/epics?state=closed&order_by=updated_at&sort=asc`,
    `${G}/epics?created_after=2026-01-01T00:00:00Z`,
    `${G}/epics?created_after=2027-01-01T00:00:00Z`,
    `${G}/epics?created_before=2026-03-02T10:00:00Z&per_page=5`,
    `${G}/epics?labels=epic-label`,
    `/groups/${m.subId}/epics?include_ancestor_groups=true`,
    `/groups/${m.subId}/epics`,
    `${G}/epics?include_descendant_groups=false`,
    '/projects?per_page=100',
    '/projects?simple=true&per_page=100',
    `${G}/projects?per_page=100&include_subgroups=true`,
    `${P}/milestones`,
    `${G}/milestones`,
    ...m.milestones.flatMap((id) => [`${P}/milestones/${id}/issues`, `${P}/milestones/${id}/merge_requests`]),
    `${G}/milestones/${m.groupMilestone}/issues`,
    `${G}/milestones/${m.groupMilestone}/merge_requests`,
    `${P}/snippets?per_page=100`,
    `${P}/snippets?per_page=3&page=2`,
    '/snippets',
    '/snippets/public',
    '/snippets/all',
    `${G}/members?per_page=100`,
    `${G}/members/all?per_page=100`,
    `/groups/${m.subId}/members/all`,
    `${P}/members/all?per_page=100`,
  ];
  const singles = [
    ...m.issueIids.flatMap((iid) => [`${P}/issues/${iid}`, `${P}/issues/${iid}/notes`, `${P}/issues/${iid}/related_merge_requests`, `${P}/issues/${iid}/closed_by`]),
    ...m.mrIids.flatMap((iid) => [`${P}/merge_requests/${iid}`, `${P}/merge_requests/${iid}/notes`, `${P}/merge_requests/${iid}/closes_issues`]),
    ...m.epics.flatMap(([g, iid, id]) => [`/groups/${g}/epics/${iid}`, `/groups/${g}/epics/${id}/notes`]),
    `/projects/${m.otherId}/issues/${m.otherIssueIid}`,
    ...m.snippetIds.map((id) => `${P}/snippets/${id}`),
    ...m.personalSnippetIds.map((id) => `/snippets/${id}`),
    P,
    `/projects/${m.pubId}`,
  ];
  const out = [];
  for (const [who, token] of viewers) for (const url of [...lists, ...singles]) out.push([who, token, url]);
  return out;
}

function scaleRequests(m) {
  const P = `/projects/${m.bigProjectId}`;
  const G = `/groups/${m.groupId}`;
  const lists = [
    `${P}/issues`,
    `${P}/issues?per_page=100&order_by=updated_at`,
    `${P}/issues?per_page=100&page=7`,
    `${P}/issues?labels=bug&per_page=100`,
    `${P}/issues?page=2500`,
    `${P}/merge_requests`,
    `${P}/merge_requests?per_page=100`,
    `${P}/merge_requests?per_page=100&page=2500`,
    `${P}/merge_requests?labels=bug&per_page=100`,
    `${P}/merge_requests?milestone=v1&per_page=100`,
    `${P}/labels?per_page=100`,
    `${P}/labels?per_page=100&page=2500`,
    `${P}/labels?per_page=100&with_counts=true`,
    `${G}/labels?per_page=100`,
    `${G}/epics`,
    `${G}/epics?per_page=100`,
    `${G}/epics?per_page=100&page=2500`,
    `${G}/epics?per_page=100&with_labels_details=true`,
    `${G}/epics?labels=bug&per_page=100`,
    `${G}/epics?created_after=2024-01-01T00:00:00Z`,
    `${G}/epics?created_after=2024-01-01T00:00:00Z&page=400`,
    `${G}/epics?created_after=2025-12-31T00:00:00Z&per_page=100`,
    `${G}/epics?created_after=2099-01-01T00:00:00Z`,
    `${G}/epics?created_before=2023-02-01T00:00:00Z`,
    `${G}/epics?created_after=2024-01-01T00:00:00Z&created_before=2024-01-20T00:00:00Z`,
    `${G}/epics?created_after=2024-01-01T00:00:00Z&state=closed`,
    `${G}/issues?per_page=100`,
    `${G}/merge_requests?per_page=100`,
    `${P}/issues/1/notes?per_page=100`,
    '/projects?per_page=100',
    '/projects?per_page=100&simple=true',
    // Lists off one issue or one milestone, and the Search API (round 10, links10).
    `${P}/issues/500/related_merge_requests`,
    `${P}/issues/500/closed_by`,
    `${P}/milestones/1/issues`,
    `${P}/milestones/1/issues?per_page=100&page=3`,
    `${P}/milestones/1/merge_requests?page=400`,
    `${P}/search?scope=issues&search=crash`,
    `${P}/search?scope=issues&search=crash&per_page=100&page=5`,
    `${P}/search?scope=merge_requests&search=crash&state=merged`,
    `${P}/search?scope=issues&search=Issue%20123456%3A`,
    `${G}/search?scope=issues&search=crash`,
    `${G}/search?scope=merge_requests&search=crash&page=3`,
    '/search?scope=issues&search=crash&per_page=100',
    '/search?scope=merge_requests&search=crash',
  ];
  return lists.map((url) => ['root', SCALE_TOKEN, url]);
}
