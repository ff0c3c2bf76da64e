import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

/**
 * Data folders outlive releases: a data dir written by an earlier main (test/fixtures/data-dirs/<sha>,
 * made by test/fixtures/make-data-dir.ts) opens on today's code with every record, file and token intact.
 */
const fixturesDir = join(__dirname, '../fixtures/data-dirs');

for (const sha of readdirSync(fixturesDir)) {
  describe(`a data dir written by main at ${sha}`, () => {
    const expected = JSON.parse(readFileSync(join(fixturesDir, sha, 'expected.json'), 'utf8'));
    let svc: TestService;

    beforeAll(async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'sandlab-compat-dir-'));
      cpSync(join(fixturesDir, sha, 'sandlab.db'), join(dataDir, 'sandlab.db'));
      if (existsSync(join(fixturesDir, sha, 'uploads'))) cpSync(join(fixturesDir, sha, 'uploads'), join(dataDir, 'uploads'), { recursive: true });
      // The clock of the day it was written: its tokens' expiry dates stay ahead.
      svc = await TestService.start({ dataDir, rootToken: undefined, clock: () => new Date(expected.writtenAt) });
    });
    afterAll(async () => svc?.stop());

    const asRoot = () => ({ token: expected.rootToken as string });

    it('keeps the root token and a user token working', async () => {
      expect((await svc.get('/user', asRoot())).body.username).toBe('root');
      const me = await svc.get('/user', { token: expected.alice.token });
      expect(me.status).toBe(200);
      expect(me.body.id).toBe(expected.alice.id);
    });

    it('keeps groups, projects, members and labels', async () => {
      const group = await svc.get(`/groups/${expected.group.id}`, asRoot());
      expect(group.body).toMatchObject({ full_path: expected.group.full_path, description: expected.group.description });
      const project = await svc.get(`/projects/${encodeURIComponent(expected.project.path_with_namespace)}`, asRoot());
      expect(project.body.id).toBe(expected.project.id);
      const members = await svc.get(`/groups/${expected.group.id}/members`, asRoot());
      expect(members.body.map((m: any) => m.username)).toContain(expected.alice.username);
      const label = await svc.get(`/groups/${expected.group.id}/labels/${expected.label.id}`, asRoot());
      expect(label.body).toMatchObject({ name: expected.label.name, color: expected.label.color });
    });

    it('keeps issues with their labels and notes, merge requests and draft notes', async () => {
      const p = expected.project.id;
      const issue = await svc.get(`/projects/${p}/issues/${expected.issue.iid}`, asRoot());
      expect(issue.body).toMatchObject({ title: expected.issue.title, labels: expected.issue.labels });
      const notes = await svc.get(`/projects/${p}/issues/${expected.issue.iid}/notes`, asRoot());
      expect(notes.body.find((n: any) => n.id === expected.note.id)).toMatchObject({ body: expected.note.body, author: { username: expected.note.author } });
      const mr = await svc.get(`/projects/${p}/merge_requests/${expected.mr.iid}`, asRoot());
      expect(mr.body).toMatchObject({ title: expected.mr.title, source_branch: expected.mr.source_branch });
      const draft = await svc.get(`/projects/${p}/merge_requests/${expected.mr.iid}/draft_notes/${expected.draft.id}`, asRoot());
      expect(draft.body.note).toBe(expected.draft.note);
    });

    it('finds its issues by label and by search (rows and indexes built from the old records)', async () => {
      const p = expected.project.id;
      const byLabel = await svc.get(`/projects/${p}/issues`, { ...asRoot(), query: { labels: expected.issue.labels[0] } });
      expect(byLabel.body.map((i: any) => i.iid)).toContain(expected.issue.iid);
      const bySearch = await svc.get(`/projects/${p}/issues`, { ...asRoot(), query: { search: expected.issue.title } });
      expect(bySearch.body.map((i: any) => i.iid)).toEqual([expected.issue.iid]);
      const mrs = await svc.get(`/projects/${p}/merge_requests`, { ...asRoot(), query: { search: expected.mr.title } });
      expect(mrs.body.map((m: any) => m.iid)).toEqual([expected.mr.iid]);
    });

    it('keeps snippet files and uploaded files byte for byte', async () => {
      const p = expected.project.id;
      for (const [path, content] of Object.entries(expected.snippet.files)) {
        const raw = await svc.get(`/projects/${p}/snippets/${expected.snippet.id}/files/main/${encodeURIComponent(path)}/raw`, asRoot());
        expect(raw.text).toBe(content);
      }
      const file = await svc.get(`/projects/${p}/uploads/${expected.upload.id}`, asRoot());
      expect(file.status).toBe(200);
      expect(file.text).toBe(expected.upload.content);
    });

    it('keeps badges, epics and feature flags', async () => {
      const p = expected.project.id;
      expect((await svc.get(`/projects/${p}/badges/${expected.badge.id}`, asRoot())).body.link_url).toBe(expected.badge.link_url);
      expect((await svc.get(`/groups/${expected.group.id}/epics/${expected.epic.iid}`, asRoot())).body.title).toBe(expected.epic.title);
      expect((await svc.get(`/projects/${p}/feature_flags/${expected.flag.name}`, asRoot())).body.name).toBe(expected.flag.name);
    });
  });
}

