import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s.stop());

describe('topics', () => {
  it('lists the topics projects use, with their project counts, most used first', async () => {
    await s.createProject({ name: 'a', topics: ['go', 'cli'] });
    await s.createProject({ name: 'b', topics: 'go' });
    const res = await s.get('/topics', { token: null });
    expect(res.status).toBe(200);
    expect(res.body.map((x: any) => [x.name, x.total_projects_count])).toEqual([
      ['go', 2],
      ['cli', 1],
    ]);
    expect(Object.keys(res.body[0])).toEqual(['id', 'name', 'title', 'description', 'total_projects_count', 'organization_id', 'avatar_url']);
    expect((await s.get('/topics', { query: { search: 'cl' } })).body.map((x: any) => x.name)).toEqual(['cli']);
  });

  it('lets administrators create, rename, merge and delete topics, carrying projects along', async () => {
    const made = await s.post('/topics', { name: 'rust', title: 'Rust' });
    expect(made.status).toBe(201);
    expect((await s.post('/topics', { name: 'RUST', title: 'x' })).body).toEqual({ message: { name: ['has already been taken'] } });
    const user = await s.createUser();
    expect((await s.post('/topics', { name: 'x', title: 'x' }, { token: user.token })).status).toBe(403);
    const go = (await s.get('/topics', { query: { search: 'go' } })).body[0];
    const renamed = await s.put(`/topics/${go.id}`, { name: 'golang' });
    expect(renamed.body).toMatchObject({ name: 'golang', total_projects_count: 2 });
    expect((await s.get('/projects', { query: { topic: 'golang' } })).body.length).toBe(2);
    const merged = await s.post('/topics/merge', { source_topic_id: made.body.id, target_topic_id: go.id });
    expect(merged.status).toBe(201);
    expect((await s.get(`/topics/${made.body.id}`)).body).toEqual({ message: '404 Topic Not Found' });
    expect((await s.del(`/topics/${go.id}`)).status).toBe(204);
    expect((await s.get('/projects', { query: { topic: 'golang' } })).body).toEqual([]);
  });
});
