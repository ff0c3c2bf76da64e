import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_TOKEN, TestService } from '../helpers/service';

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s.stop());

// An 8-byte PNG signature and a little more: Sandlab checks the format by extension, as GitLab's uploader does.
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('sandlab-avatar')]);

function form(fields: Record<string, string>, file?: { name: string; bytes: Buffer }): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  if (file) f.append('avatar', new Blob([file.bytes]), file.name);
  return f;
}

/** Fetches an avatar URL the way a browser or python-gitlab's test does: no token. */
async function download(url: string): Promise<{ status: number; type: string | null; bytes: Buffer }> {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
}

describe('avatars', () => {
  it('POST /users with an avatar file: avatar_url points at the stored file, served as the image', async () => {
    const res = await s.api('POST', '/users', {
      multipart: form({ email: 'pic@example.com', username: 'pic', name: 'Pic', password: 'E4596f8be406Bc3a14a4ccdb1df80587$3' }, { name: 'avatar.png', bytes: PNG }),
    });
    expect(res.status).toBe(201);
    expect(res.body.avatar_url).toBe(`${s.url}/uploads/-/system/user/avatar/${res.body.id}/avatar.png`);
    const got = await download(res.body.avatar_url);
    expect(got).toEqual({ status: 200, type: 'image/png', bytes: PNG });
    // The author objects elsewhere carry it too.
    expect((await s.get(`/users/${res.body.id}`)).body.avatar_url).toBe(res.body.avatar_url);
  });

  it('PUT /user/avatar sets the caller\'s own avatar and answers {avatar_url}', async () => {
    const { user, token } = await s.createUser();
    const res = await s.api('PUT', '/user/avatar', { token, multipart: form({}, { name: 'me.jpg', bytes: PNG }) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ avatar_url: `${s.url}/uploads/-/system/user/avatar/${user.id}/me.jpg` });
    expect((await s.put('/user/avatar', {}, { token })).body).toEqual({ error: 'avatar is missing' });
  });

  it('groups: set by multipart PUT, downloadable from /groups/:id/avatar, removed by a blank avatar', async () => {
    const group = await s.createGroup();
    const set = await s.api('PUT', `/groups/${group.id}`, { multipart: form({}, { name: 'logo.png', bytes: PNG }) });
    expect(set.status).toBe(200);
    expect(set.body.avatar_url).toBe(`${s.url}/uploads/-/system/group/avatar/${group.id}/logo.png`);
    const file = await fetch(`${s.url}/api/v4/groups/${group.id}/avatar`, { headers: { 'PRIVATE-TOKEN': ROOT_TOKEN } });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-disposition')).toContain('attachment');
    expect(Buffer.from(await file.arrayBuffer())).toEqual(PNG);
    const removed = await s.put(`/groups/${group.id}`, { avatar: '' });
    expect(removed.body.avatar_url).toBeNull();
    expect((await s.get(`/groups/${group.id}/avatar`)).body).toEqual({ message: '404 Avatar Not Found' });
    expect(existsSync(join(s.dataDir, 'avatars', 'group', String(group.id)))).toBe(false);
  });

  it('projects: created with an avatar, replaced by a new one (the old file goes), hidden with a private project', async () => {
    const res = await s.api('POST', '/projects', { multipart: form({ name: 'Pictured', visibility: 'private' }, { name: 'one.png', bytes: PNG }) });
    expect(res.status).toBe(201);
    const id = res.body.id;
    expect(res.body.avatar_url).toBe(`${s.url}/uploads/-/system/project/avatar/${id}/one.png`);
    const replaced = await s.api('PUT', `/projects/${id}`, { multipart: form({}, { name: 'two.gif', bytes: PNG }) });
    expect(replaced.body.avatar_url).toBe(`${s.url}/uploads/-/system/project/avatar/${id}/two.gif`);
    expect(readdirSync(join(s.dataDir, 'avatars', 'project', String(id)))).toEqual(['two.gif']);
    // Anonymous callers cannot see a private project, nor its avatar; its old file is gone.
    expect((await download(replaced.body.avatar_url)).status).toBe(404);
    expect((await download(res.body.avatar_url)).status).toBe(404);
  });

  it('topics take avatars too; a personal namespace shows its user\'s avatar', async () => {
    const topic = await s.api('POST', '/topics', { multipart: form({ name: 'pictures', title: 'Pictures' }, { name: 't.webp', bytes: PNG }) });
    expect(topic.body.avatar_url).toBe(`${s.url}/uploads/-/system/projects/topic/avatar/${topic.body.id}/t.webp`);
    expect((await download(topic.body.avatar_url)).status).toBe(200);
    const cleared = await s.put(`/topics/${topic.body.id}`, { avatar: '' });
    expect(cleared.body.avatar_url).toBeNull();
    await s.api('PUT', '/user/avatar', { multipart: form({}, { name: 'root.png', bytes: PNG }) });
    const project = await s.createProject({ name: 'Mine' });
    expect(project.namespace.avatar_url).toBe(`${s.url}/uploads/-/system/user/avatar/1/root.png`);
  });

  it('refuses what Avatarable refuses: other formats and files over 200 KiB, with nothing written', async () => {
    const group = await s.createGroup();
    const format = await s.api('PUT', `/groups/${group.id}`, { multipart: form({ name: 'Renamed' }, { name: 'notes.txt', bytes: PNG }) });
    expect(format.status).toBe(400);
    expect(format.body).toEqual({
      message: { avatar: ['file format is not supported. Please try one of the following supported formats: png, jpg, jpeg, gif, bmp, tiff, ico, webp'] },
    });
    const big = await s.api('PUT', `/groups/${group.id}`, { multipart: form({ name: 'Renamed' }, { name: 'big.png', bytes: Buffer.alloc(200 * 1024 + 1) }) });
    expect(big.body).toEqual({ message: { avatar: ['is too big (should be at most 200 KiB)'] } });
    const after = (await s.get(`/groups/${group.id}`)).body;
    expect(after).toMatchObject({ name: group.name, avatar_url: null });
    expect((await s.put(`/groups/${group.id}`, { avatar: 'not-a-file' })).body).toEqual({ error: 'avatar is invalid' });
  });
});
