import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { registerUi } from '../../src/main/ui-static';
import { CONTENT_SECURITY_POLICY } from '../../src/shared/csp';

let s: TestService;
let ui: string;
beforeAll(async () => {
  ui = mkdtempSync(join(tmpdir(), 'sandlab-ui-'));
  mkdirSync(join(ui, 'assets'));
  writeFileSync(join(ui, 'index.html'), '<!doctype html><title>Sandlab</title>');
  writeFileSync(join(ui, 'assets', 'app.js'), 'console.log(1)');
  s = await TestService.start({ extendApp: (app) => registerUi(app, ui) });
});
afterAll(async () => {
  await s.stop();
  rmSync(ui, { recursive: true, force: true });
});

describe('serve --ui', () => {
  it('serves the built renderer at / with the strict CSP header', async () => {
    const res = await fetch(`${s.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(await res.text()).toContain('<title>Sandlab</title>');
    expect((await fetch(`${s.url}/assets/app.js`)).headers.get('content-type')).toMatch(/javascript/);
  });

  it('leaves the API and its JSON 404s untouched', async () => {
    expect((await s.get('/version')).status).toBe(200);
    const missing = await fetch(`${s.url}/not-a-file.html`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: '404 Not Found' });
    const traversal = await fetch(`${s.url}/assets/..%2f..%2fetc%2fpasswd`);
    expect(traversal.status).toBe(404);
  });

  it('refuses to start without a built renderer', async () => {
    await expect(TestService.start({ extendApp: (app) => registerUi(app, join(ui, 'missing')) })).rejects.toThrow(/no built renderer/);
  });
});
