import { Gitlab } from '@gitbeaker/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Served, runPython, runRuby, startServe } from './harness';

/**
 * Migrations by direct transfer between two live `serve` processes, driven by real clients:
 * python-gitlab's BulkImport managers (python-gitlab 4.x's, declared on Debian's 3.12, which lacks
 * them), gitbeaker's Migrations, and the Ruby gem's plain requests (form-encoded nested params).
 */

let source: Served;
let dest: Served;

async function call(s: Served, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${s.url}/api/v4${path}`, {
    method,
    headers: { 'private-token': s.token, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function waitFor(id: number): Promise<any> {
  for (let i = 0; i < 600; i++) {
    const imp = await call(dest, 'GET', `/bulk_imports/${id}`);
    if (!['created', 'started'].includes(imp.status)) return imp;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`migration ${id} did not end`);
}

beforeAll(async () => {
  [source, dest] = await Promise.all([startServe(), startServe()]);
  const group = await call(source, 'POST', '/groups', { name: 'Moving', path: 'moving', description: 'A group on the move' });
  await call(source, 'POST', '/groups', { name: 'Sub', path: 'sub', parent_id: group.id });
  const project = await call(source, 'POST', '/projects', { name: 'App', path: 'app', namespace_id: group.id, initialize_with_readme: true });
  const milestone = await call(source, 'POST', `/projects/${project.id}/milestones`, { title: 'v1', due_date: '2026-03-01' });
  await call(source, 'POST', `/projects/${project.id}/issues`, { title: 'First', labels: 'bug', milestone_id: milestone.id });
}, 120_000);

afterAll(async () => {
  await Promise.all([source?.stop(), dest?.stop()]);
});

describe("python-gitlab's bulk imports", () => {
  it('creates, reads, lists, filters and cancels migrations, and reads entities and failures', async () => {
    const out = runPython(
      dest,
      `
from gitlab.base import RESTManager, RESTObject
from gitlab.mixins import CreateMixin, ListMixin, RefreshMixin, RetrieveMixin
from gitlab.types import RequiredOptional
import time

class BulkImportEntity(RefreshMixin, RESTObject):
    pass

class BulkImportEntityManager(RetrieveMixin, RESTManager):
    _path = "/bulk_imports/{bulk_import_id}/entities"
    _obj_cls = BulkImportEntity
    _from_parent_attrs = {"bulk_import_id": "id"}
    _list_filters = ("sort", "status")

class BulkImport(RefreshMixin, RESTObject):
    entities: BulkImportEntityManager

    def cancel(self):
        return self.manager.gitlab.http_post(f"{self.manager.path}/{self.encoded_id}/cancel")

class BulkImportManager(CreateMixin, RetrieveMixin, RESTManager):
    _path = "/bulk_imports"
    _obj_cls = BulkImport
    _create_attrs = RequiredOptional(required=("configuration", "entities"))
    _list_filters = ("sort", "status")

class BulkImportAllEntity(RESTObject):
    pass

class BulkImportAllEntityManager(ListMixin, RESTManager):
    _path = "/bulk_imports/entities"
    _obj_cls = BulkImportAllEntity
    _list_filters = ("sort", "status")

gl.bulk_imports = BulkImportManager(gl)
gl.bulk_import_entities = BulkImportAllEntityManager(gl)
configuration = {"url": os.environ["SRC_URL"], "access_token": os.environ["SRC_TOKEN"]}
created = gl.bulk_imports.create({"configuration": configuration, "entities": [
    {"source_full_path": "moving", "source_type": "group_entity", "destination_slug": "moved", "destination_namespace": ""}]})
first = {"status": created.status, "source_type": created.source_type, "source_url": created.source_url}
migration = gl.bulk_imports.get(created.id)
for _ in range(600):
    migration.refresh()
    if migration.status not in ("created", "started"):
        break
    time.sleep(0.1)
entities = migration.entities.list(sort="asc")
entity = migration.entities.get(entities[0].id)
entity.refresh()
failures = gl.http_list(f"/bulk_imports/{migration.id}/entities/{entity.id}/failures")
errors = {}
try:
    gl.bulk_imports.create({"configuration": {"url": configuration["url"], "access_token": "glpat-wrong"}, "entities": [
        {"source_full_path": "moving", "source_type": "group_entity", "destination_slug": "x", "destination_namespace": ""}]})
except gitlab.exceptions.GitlabCreateError as e:
    errors["bad_token"] = [e.response_code, e.error_message]
try:
    gl.bulk_imports.create({"configuration": configuration, "entities": [
        {"source_full_path": "nowhere", "source_type": "group_entity", "destination_slug": "y", "destination_namespace": ""}]})
except gitlab.exceptions.GitlabCreateError as e:
    errors["unknown_path"] = [e.response_code, e.error_message]
try:
    gl.bulk_imports.create({"configuration": configuration, "entities": [
        {"source_full_path": "moving", "source_type": "project", "destination_slug": "z", "destination_namespace": ""}]})
except gitlab.exceptions.GitlabCreateError as e:
    errors["bad_type"] = [e.response_code, e.error_message]
try:
    gl.bulk_imports.get(9999)
except gitlab.exceptions.GitlabGetError as e:
    errors["unknown_id"] = e.response_code
finished = [m.id for m in gl.bulk_imports.list(status="finished")]
migration.cancel()
migration.refresh()
print(json.dumps({
    "first": first,
    "status": migration.status,
    "has_failures": created.has_failures,
    "entities": [[e.entity_type, e.source_full_path, e.destination_full_path, e.status] for e in entities],
    "entity": [entity.id == entities[0].id, entity.created_at == entities[0].created_at, sorted(entity.stats.keys())],
    "all_entities": len(gl.bulk_import_entities.list(all=True)),
    "failures": failures,
    "errors": errors,
    "finished": migration.id in finished,
    "canceled": [m.id for m in gl.bulk_imports.list(status="canceled")] == [migration.id],
}))
`.replace(/^/, `import os\nos.environ["SRC_URL"] = ${JSON.stringify(source.url)}\nos.environ["SRC_TOKEN"] = ${JSON.stringify(source.token)}\n`),
    );
    expect(out.first).toEqual({ status: 'created', source_type: 'gitlab', source_url: source.url });
    expect(out.entities).toEqual([
      ['group', 'moving', 'moved', 'finished'],
      ['project', 'moving/app', 'moved/app', 'finished'],
      ['group', 'moving/sub', 'moved/sub', 'finished'],
    ]);
    expect(out.entity).toEqual([true, true, ['badges', 'epics', 'labels', 'members', 'milestones']]);
    expect(out.all_entities).toBe(3);
    expect(out.failures).toEqual([]);
    expect(out.errors).toEqual({
      bad_token: [422, 'Check that the source instance base URL and the personal access token meet the necessary requirements.'],
      unknown_path: [422, "Import failed. 'nowhere' not found."],
      bad_type: [400, 'entities[0][source_type] does not have a valid value'],
      unknown_id: 404,
    });
    expect(out.finished).toBe(true);
    expect(out.status).toBe('canceled');
    expect(out.canceled).toBe(true);

    // What python-gitlab's migration brought: the project with its milestone, issue and repository.
    const issues = await call(dest, 'GET', `/projects/${encodeURIComponent('moved/app')}/issues`);
    expect(issues.map((i: any) => [i.title, i.labels, i.milestone?.title, i.imported_from])).toEqual([['First', ['bug'], 'v1', 'gitlab']]);
    const readme = await fetch(`${dest.url}/api/v4/projects/${encodeURIComponent('moved/app')}/repository/files/README.md/raw?ref=main`, { headers: { 'private-token': dest.token } });
    expect(readme.status).toBe(200);
  }, 120_000);
});

describe("gitbeaker's Migrations", () => {
  it('creates a project migration and reads it back with all, show, allEntities and showEntity', async () => {
    const api = new Gitlab({ host: dest.url, token: dest.token });
    await call(dest, 'POST', '/groups', { name: 'Landing', path: 'landing' });
    const created: any = await api.Migrations.create({ url: source.url, access_token: source.token }, [
      { sourceType: 'project_entity', sourceFullPath: 'moving/app', destinationNamespace: 'landing', destinationSlug: 'app-copy' },
    ] as any);
    expect(created).toMatchObject({ status: 'created', source_type: 'gitlab', has_failures: false });
    const done = await waitFor(created.id);
    expect(done.status).toBe('finished');
    const shown: any = await api.Migrations.show(created.id);
    expect(shown).toMatchObject({ id: created.id, status: 'finished' });
    const all: any[] = await api.Migrations.all({ status: 'finished' } as any);
    expect(all.map((m) => m.id)).toContain(created.id);
    const entities: any[] = await api.Migrations.allEntities({ bulkImportId: created.id });
    expect(entities.map((e) => [e.entity_type, e.destination_full_path, e.status])).toEqual([['project', 'landing/app-copy', 'finished']]);
    const entity: any = await api.Migrations.showEntity(created.id, entities[0].id);
    expect(entity.stats).toMatchObject({ issues: { source: 1, fetched: 1, imported: 1 }, milestones: { source: 1, fetched: 1, imported: 1 } });
    const everyEntity: any[] = await api.Migrations.allEntities();
    expect(everyEntity.map((e) => e.id)).toContain(entities[0].id);
  }, 120_000);
});

describe("the Ruby gem's requests", () => {
  it('starts a migration with form-encoded nested parameters and reads its entities', async () => {
    const out = runRuby(
      dest,
      `
src = JSON.parse(${JSON.stringify(JSON.stringify({ url: source.url, token: source.token }))})
created = gl.post("/bulk_imports", body: {
  configuration: { url: src["url"], access_token: src["token"] },
  entities: [{ source_type: "group_entity", source_full_path: "moving/sub", destination_namespace: "", destination_slug: "ruby-sub" }]
})
status = nil
300.times do
  status = gl.get("/bulk_imports/#{created.id}").status
  break unless %w[created started].include?(status)
  sleep 0.2
end
entities = gl.get("/bulk_imports/#{created.id}/entities")
begin
  gl.post("/bulk_imports", body: { configuration: { url: src["url"] }, entities: [] })
rescue Gitlab::Error::BadRequest => e
  bad = [e.response_status, e.message]
end
puts JSON.generate({ "status" => status, "entities" => entities.map { |e| [e.entity_type, e.destination_full_path] }, "bad" => bad })
`,
    );
    expect(out.status).toBe('finished');
    expect(out.entities).toEqual([['group', 'ruby-sub']]);
    expect(out.bad[0]).toBe(400);
    expect(String(out.bad[1])).toContain('configuration[access_token] is missing');
  }, 120_000);
});
