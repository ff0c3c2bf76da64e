import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ROOT_TOKEN, TestService } from '../helpers/service';

let s: TestService;
let project: any;
beforeAll(async () => {
  s = await TestService.start({ limits: { maxUploadBytes: 8 * 1024 * 1024 } });
  project = await s.createProject({ name: 'files', visibility: 'private' });
});
afterAll(async () => s.stop());

function form(name: string, data: Uint8Array | string, extra: Record<string, string> = {}): FormData {
  const fd = new FormData();
  for (const [k, v] of Object.entries(extra)) fd.append(k, v);
  fd.append('file', new Blob([data]), name);
  return fd;
}

const upload = (name: string, data: Uint8Array | string, token?: string, projectId = project.id) =>
  s.post(`/projects/${projectId}/uploads`, undefined, { multipart: form(name, data), token });

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath, d.name));
}

describe('POST /projects/:id/uploads', () => {
  it('answers what python-gitlab expects for a text file', async () => {
    const res = await upload('test.txt', 'testing contents');
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['id', 'alt', 'url', 'full_path', 'markdown']);
    expect(res.body.alt).toBe('test.txt');
    expect(res.body.url).toMatch(/^\/uploads\/[0-9a-f]{32}\/test\.txt$/);
    expect(res.body.markdown).toBe(`[test.txt](${res.body.url})`);
    expect(res.body.full_path).toBe(`/-/project/${project.id}${res.body.url}`);
  });

  it('renders images inline without their extension in alt', async () => {
    const res = await upload('dk.png', new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
    expect(res.body.alt).toBe('dk');
    expect(res.body.markdown).toBe(`![dk](${res.body.url})`);
    const svg = await upload('logo.svg', '<svg/>');
    expect(svg.body.markdown).toBe(`![logo.svg](${svg.body.url})`);
  });

  it('ignores other parts, such as python-gitlab’s empty avatar', async () => {
    const fd = new FormData();
    fd.append('avatar', new Blob([]), '');
    fd.append('file', new Blob(['x']), 'a.txt');
    fd.append('other', 'field');
    const res = await s.post(`/projects/${project.id}/uploads`, undefined, { multipart: fd });
    expect(res.status).toBe(201);
  });

  it('answers Grape errors without a file part', async () => {
    const missing = await s.post(`/projects/${project.id}/uploads`, undefined, { multipart: new FormData() });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: 'file is missing' });
    const fd = new FormData();
    fd.append('file', 'just text');
    expect((await s.post(`/projects/${project.id}/uploads`, undefined, { multipart: fd })).body).toEqual({ error: 'file is invalid' });
  });

  it('sanitizes names so nothing lands outside the uploads folder', async () => {
    for (const [name, expected] of [
      ['../../evil.txt', 'evil.txt'],
      ['..\\..\\win.txt', 'win.txt'],
      ['my file (1).txt', 'my_file__1_.txt'],
      ['..', 'unnamed'],
      ['', 'unnamed'],
    ]) {
      const res = await upload(name, 'x');
      expect(res.status).toBe(201);
      expect(res.body.url.split('/').pop()).toBe(expected);
    }
    const root = join(s.dataDir, 'uploads');
    // Besides the database, only project repositories (<dataDir>/repositories) live beside uploads.
    for (const f of filesUnder(s.dataDir)) {
      if (f.endsWith('.db') || f.includes('sandlab.db') || f.startsWith(join(s.dataDir, 'repositories'))) continue;
      expect(f.startsWith(root)).toBe(true);
    }
  });

  it('stores a multi-megabyte file byte for byte and streams it back', async () => {
    const data = randomBytes(6 * 1024 * 1024 + 123);
    const res = await upload('blob.bin', data);
    expect(res.status).toBe(201);
    const [, , secret, filename] = res.body.url.split('/');
    const got = await fetch(`${s.url}/api/v4/projects/${project.id}/uploads/${secret}/${filename}`, { headers: { 'private-token': 'glpat-test-root-token-000000' } });
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('application/octet-stream');
    expect(got.headers.get('content-disposition')).toBe(`attachment; filename="blob.bin"; filename*=UTF-8''blob.bin`);
    expect(Buffer.from(await got.arrayBuffer()).equals(data)).toBe(true);
    const byId = await fetch(`${s.url}/api/v4/projects/${project.id}/uploads/${res.body.id}`, { headers: { 'private-token': 'glpat-test-root-token-000000' } });
    expect(Buffer.from(await byId.arrayBuffer()).equals(data)).toBe(true);
  });

  it('answers 413 past the maximum size and leaves no file or row behind', async () => {
    const before = (await s.get(`/projects/${project.id}/uploads`, { query: { per_page: 100 } })).body.length;
    const filesBefore = filesUnder(join(s.dataDir, 'uploads')).length;
    const res = await upload('huge.bin', new Uint8Array(8 * 1024 * 1024 + 1));
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ message: '413 Request Entity Too Large' });
    expect((await s.get(`/projects/${project.id}/uploads`, { query: { per_page: 100 } })).body.length).toBe(before);
    expect(filesUnder(join(s.dataDir, 'uploads')).length).toBe(filesBefore);
    expect(filesUnder(join(s.dataDir, 'tmp'))).toEqual([]);
  });

  it('keeps no row when the file cannot be stored', async () => {
    const p = await s.createProject({ name: 'blocked' });
    mkdirSync(join(s.dataDir, 'uploads'), { recursive: true });
    // A plain file where the project's folder should be: storing fails after the row was inserted.
    writeFileSync(join(s.dataDir, 'uploads', String(p.id)), 'not a folder');
    const res = await upload('a.txt', 'x', undefined, p.id);
    expect(res.status).toBe(500);
    expect((await s.get(`/projects/${p.id}/uploads`)).body).toEqual([]);
    expect(filesUnder(join(s.dataDir, 'tmp'))).toEqual([]);
    rmSync(join(s.dataDir, 'uploads', String(p.id)));
    expect((await upload('a.txt', 'x', undefined, p.id)).status).toBe(201);
  });

  it('needs authentication', async () => {
    expect((await upload('a.txt', 'x', null as any)).status).toBe(401);
  });
});

describe('listing, downloading and deleting uploads', () => {
  it('lists newest first with uploader, paginated, for Maintainers only', async () => {
    const res = await s.get(`/projects/${project.id}/uploads`, { query: { per_page: 2 } });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(2);
    expect(Object.keys(res.body[0])).toEqual(['id', 'size', 'filename', 'created_at', 'uploaded_by']);
    expect(res.body[0].id).toBeGreaterThan(res.body[1].id);
    expect(res.body[0].uploaded_by).toEqual({ id: 1, name: expect.any(String), username: 'root' });
    expect(res.headers.get('link')).toContain('rel="next"');

    const { user, token } = await s.createUser();
    await s.addMember('projects', project.id, user.id, 30);
    expect((await s.get(`/projects/${project.id}/uploads`, { token })).status).toBe(403);
    expect((await s.get(`/projects/${project.id}/uploads/${res.body[0].id}`, { token })).status).toBe(403);
    expect((await s.del(`/projects/${project.id}/uploads/${res.body[0].id}`, { token })).status).toBe(403);
  });

  it('lets a Guest download by secret and hides private projects from non-members', async () => {
    const up = await upload('guest.txt', 'for guests');
    const { user, token } = await s.createUser();
    const path = `/projects/${project.id}${up.body.url}`;
    expect((await s.get(path, { token })).body).toEqual({ message: '404 Project Not Found' });
    await s.addMember('projects', project.id, user.id, 10);
    const got = await s.get(path, { token });
    expect(got.status).toBe(200);
    expect(got.text).toBe('for guests');
    expect(got.headers.get('content-type')).toBe('text/plain');
    expect((await s.get(`/projects/${project.id}/uploads/${'0'.repeat(32)}/guest.txt`)).status).toBe(404);
    expect((await s.get(`${s.url}${up.body.full_path}`, { token })).text).toBe('for guests');
  });

  it('serves public projects’ uploads anonymously', async () => {
    const pub = await s.createProject({ name: 'pubfiles', visibility: 'public' });
    const up = await upload('open.txt', 'open', undefined, pub.id);
    expect((await s.get(`/projects/${pub.id}${up.body.url}`, { token: null })).text).toBe('open');
  });

  it('deletes by id and by secret and filename with 204', async () => {
    const a = await upload('del-a.txt', 'a');
    const b = await upload('del-b.txt', 'b');
    const delA = await s.del(`/projects/${project.id}/uploads/${a.body.id}`);
    expect(delA.status).toBe(204);
    expect(delA.text).toBe('');
    expect((await s.get(`/projects/${project.id}${a.body.url}`)).status).toBe(404);
    expect((await s.del(`/projects/${project.id}${b.body.url}`)).status).toBe(204);
    expect((await s.get(`/projects/${project.id}/uploads/${b.body.id}`)).body).toEqual({ message: '404 Not found' });
    const secretDir = join(s.dataDir, 'uploads', String(project.id), b.body.url.split('/')[2]);
    expect(existsSync(secretDir)).toBe(false);
    expect((await s.del(`/projects/${project.id}/uploads/999999`)).status).toBe(404);
    // By secret and filename the finder gives nothing and Uploads::DestroyService's refusal is a 400.
    const again = await s.del(`/projects/${project.id}${b.body.url}`);
    expect(again.status).toBe(400);
    expect(again.body).toEqual({
      message: "400 Bad request - The resource that you are attempting to access does not exist or you don't have permission to perform this action.",
    });
    expect((await s.get(`/projects/${project.id}/uploads/abc`)).body).toEqual({ error: 'upload_id is invalid' });
  });
});

describe('GET /projects/:id/sandlab/uploads/:upload_id (Sandlab-only)', () => {
  it('answers the link and Markdown the upload answered, for Maintainers only', async () => {
    const made = (await upload('shot.png', 'not really a png')).body;
    const res = await s.get(`/projects/${project.id}/sandlab/uploads/${made.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(made);
    expect(res.body.markdown).toBe(`![shot](${made.url})`);
    expect((await s.get(`/projects/${project.id}/sandlab/uploads/999999`)).body).toEqual({ message: '404 Not found' });
    expect((await s.get(`/projects/${project.id}/sandlab/uploads/abc`)).status).toBe(400);
    const { user, token } = await s.createUser();
    await s.addMember('projects', project.id, user.id, 30);
    expect((await s.get(`/projects/${project.id}/sandlab/uploads/${made.id}`, { token })).status).toBe(403);
  });
});

describe('a download the client gives up on', () => {
  it('is dropped quietly and the service keeps answering', async () => {
    const up = await upload('big.bin', randomBytes(2 * 1024 * 1024));
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const { port } = new URL(s.url);
      for (let i = 0; i < 5; i++) {
        await new Promise<void>((resolve) => {
          const socket = connect(Number(port), '127.0.0.1', () => {
            socket.write(
              `GET /api/v4/projects/${project.id}/uploads/${up.body.id} HTTP/1.1\r\nHost: 127.0.0.1\r\nPRIVATE-TOKEN: ${ROOT_TOKEN}\r\n\r\n`,
            );
            // Gone at once, or as soon as the first bytes arrive.
            if (i % 2 === 0) socket.destroy();
            else socket.once('data', () => socket.destroy());
          });
          socket.on('close', () => resolve());
          socket.on('error', () => undefined);
        });
      }
      await new Promise((r) => setTimeout(r, 300));
      expect(errors).not.toHaveBeenCalled();
    } finally {
      errors.mockRestore();
    }
    const again = await s.get(`/projects/${project.id}/uploads/${up.body.id}`);
    expect(again.status).toBe(200);
  });
});

describe('orphans', () => {
  it('removes files without a row or project when the service starts', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sandlab-orphans-'));
    const first = await TestService.start({ dataDir });
    const p = await first.createProject({ name: 'o' });
    const kept = await first.post(`/projects/${p.id}/uploads`, undefined, { multipart: form('kept.txt', 'k') });
    await first.service.close();
    const stray = join(dataDir, 'uploads', String(p.id), 'f'.repeat(32));
    mkdirSync(stray, { recursive: true });
    writeFileSync(join(stray, 'x.txt'), 'stray');
    mkdirSync(join(dataDir, 'uploads', '99999', 'abc'), { recursive: true });
    const second = await TestService.start({ dataDir });
    try {
      expect(existsSync(stray)).toBe(false);
      expect(existsSync(join(dataDir, 'uploads', '99999'))).toBe(false);
      expect((await second.get(`/projects/${p.id}${kept.body.url}`)).text).toBe('k');
    } finally {
      await second.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
