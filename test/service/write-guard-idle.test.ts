import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { writingRequest } from '../../src/main/service/http/route';

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s.stop());

/** Node 20's AsyncLocalStorage keeps its promise hooks on (every await of the process slower) while enabled. */
const guardEnabled = (): boolean => (writingRequest as unknown as { enabled: boolean }).enabled;

describe("the write guard's request storage", () => {
  it('is disabled once no write handler runs, so reads after a write await without promise hooks', async () => {
    const project = await s.createProject();
    expect(guardEnabled()).toBe(false);
    // A create, concurrent writes, a refused write on an archived project.
    expect((await s.post(`/projects/${project.id}/issues`, { title: 'one' })).status).toBe(201);
    expect(guardEnabled()).toBe(false);
    await Promise.all([1, 2, 3].map((n) => s.post(`/projects/${project.id}/issues`, { title: `many ${n}` })));
    expect(guardEnabled()).toBe(false);
    expect((await s.post(`/projects/${project.id}/archive`, {})).status).toBe(201);
    const refused = await s.post(`/projects/${project.id}/issues`, { title: 'refused' });
    expect(refused.status).toBe(403);
    expect(guardEnabled()).toBe(false);
    const issues = await s.get(`/projects/${project.id}/issues`);
    expect(issues.body.map((i: { title: string }) => i.title)).not.toContain('refused');
  });
});
