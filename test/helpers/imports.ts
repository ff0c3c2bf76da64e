import type { TestService } from './service';

/** Polls GET /projects/:id/import until the import reaches one of `statuses` (default: any end state). */
export async function waitForImport(s: TestService, projectId: number, statuses = ['finished', 'failed', 'canceled'], timeoutMs = 15_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await s.get(`/projects/${projectId}/import`);
    if (statuses.includes(res.body.import_status)) return res.body;
    if (Date.now() > deadline) throw new Error(`import of project ${projectId} still ${res.body.import_status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Polls until `check` holds. */
export async function eventually<T>(check: () => Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
