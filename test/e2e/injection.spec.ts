import { expect, test, type Page } from '@playwright/test';
import { ROOT_TOKEN, TestService } from '../helpers/service';
import { E2E_ROOT_TOKEN } from '../../playwright.config';
import { api, connect, pickProject, screenshot, watchProblems } from './helpers';

// The renderer against script injection: records the GUI shows (snippet titles, file names and
// contents, upload names, merge request descriptions and notes, a migration's failures) hold
// hostile HTML and Markdown, written through the API as any client could. No script may run
// (no `window.__pwned`, no dialog) and text fields must show the markup as text.

const PAYLOADS = [
  '<img src=x onerror="window.__pwned=1;alert(1)">',
  '<script>window.__pwned=1;alert(1)</script>',
  '<svg onload="window.__pwned=1">',
  '<iframe srcdoc="<script>parent.__pwned=1</script>"></iframe>',
];
const HOSTILE = PAYLOADS.join(' ');
const MARKDOWN = [
  'Intro **bold**',
  ...PAYLOADS,
  '[click me](javascript:window.__pwned=1)',
  '<a href="javascript:window.__pwned=1">link</a>',
  '<details open ontoggle="window.__pwned=1"><summary>x</summary></details>',
  '![x](x" onerror="window.__pwned=1)',
].join('\n\n');

/** Fails the test on any dialog and records it; `pwned()` reads the flag a payload would set. */
function watchInjection(page: Page): { dialogs: string[]; pwned: () => Promise<unknown> } {
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  return { dialogs, pwned: () => page.evaluate(() => (globalThis as unknown as { __pwned?: unknown }).__pwned ?? null) };
}

let source: TestService;

test.beforeAll(async () => {
  source = await TestService.start();
});

test.afterAll(async () => {
  await source?.stop();
});

test('hostile snippet titles, file names and contents, upload names and review texts stay text and run nothing', async ({ page, baseURL }) => {
  test.setTimeout(120_000);
  const problems = watchProblems(page);
  const injected = watchInjection(page);
  const project = (await api(baseURL!, 'POST', '/projects', { name: 'Hostile Home' })).body;
  const snippet = await api(baseURL!, 'POST', `/projects/${project.id}/snippets`, {
    title: `Snippet ${HOSTILE}`,
    description: MARKDOWN,
    visibility: 'private',
    files: [{ file_path: 'x<img src=x onerror=alert(1)>.html', content: `${HOSTILE}\n` }],
  });
  expect(snippet.status).toBe(201);
  const form = new FormData();
  form.append('file', new Blob(['hello']), 'up<img src=x onerror=alert(1)>.txt');
  const upload = await fetch(`${baseURL}/api/v4/projects/${project.id}/uploads`, { method: 'POST', headers: { 'private-token': E2E_ROOT_TOKEN }, body: form });
  expect(upload.status).toBe(201);
  const uploaded = (await upload.json()) as { alt: string };
  const mr = (await api(baseURL!, 'POST', `/projects/${project.id}/merge_requests`, { title: `MR ${HOSTILE}`, source_branch: 'x', target_branch: 'main', description: MARKDOWN })).body;
  expect((await api(baseURL!, 'POST', `/projects/${project.id}/merge_requests/${mr.iid}/notes`, { body: MARKDOWN })).status).toBe(201);

  await connect(page, 'snippets');
  await pickProject(page, 'root/hostile-home');
  const snippets = page.getByRole('table', { name: 'Project snippets' });
  await expect(snippets.getByText(`Snippet ${HOSTILE}`)).toBeVisible();
  await snippets.getByText(`Snippet ${HOSTILE}`).click();
  const editor = page.getByRole('form', { name: 'Snippet editor' });
  await expect(editor.getByLabel('Title', { exact: true })).toHaveValue(`Snippet ${HOSTILE}`);
  await expect(editor.getByRole('tab', { name: 'x<img src=x onerror=alert(1)>.html' })).toBeVisible();
  await expect(editor.getByRole('textbox', { name: 'Content of x<img src=x onerror=alert(1)>.html' })).toContainText(PAYLOADS[1]);
  await screenshot(page, 'injection-snippet');

  await page.goto('/#/uploads');
  await pickProject(page, 'root/hostile-home');
  await expect(page.getByRole('table', { name: 'Uploads' }).getByText(uploaded.alt, { exact: false }).first()).toBeVisible();

  await page.goto('/#/reviews');
  await pickProject(page, 'root/hostile-home');
  await page.getByRole('table', { name: 'Merge requests' }).getByText(`MR ${HOSTILE}`).click();
  const description = page.getByRole('region', { name: 'Description' });
  await expect(description.locator('strong')).toHaveText('bold');
  await expect(page.getByRole('article').filter({ hasText: 'Intro' }).first()).toBeVisible();
  // Markdown's HTML is sanitized: no handlers, no javascript: links, no scripts or frames.
  for (const where of [description, page.getByRole('article').first()]) {
    expect(await where.locator('script, iframe, svg[onload], [onerror], [onload], [ontoggle], a[href^="javascript:"]').count()).toBe(0);
  }
  await screenshot(page, 'injection-review');

  await page.waitForTimeout(300); // an onerror of a broken image fires after a moment
  expect(await injected.pwned()).toBeNull();
  expect(injected.dialogs).toEqual([]);
  expect(problems.filter((p) => !/Content Security Policy|Failed to load resource/.test(p))).toEqual([]);
});

test('a migration failure naming a hostile record is shown as text and runs nothing', async ({ page, baseURL }) => {
  test.setTimeout(120_000);
  const injected = watchInjection(page);
  // The source's issue links an upload the source does not have, under a hostile file name: the
  // migration records a failure whose title is that name.
  const hostileName = '<img src=x onerror="window.__pwned=1">.png';
  const name = encodeURIComponent(hostileName);
  const group = await source.createGroup({ path: 'hostile-src', name: 'hostile-src' });
  const p = await source.createProject({ name: 'app', namespace_id: group.id });
  await source.post(`/projects/${p.id}/issues`, { title: 'linking', description: `see /uploads/${'a'.repeat(32)}/${name}` });
  const started = await api(baseURL!, 'POST', '/bulk_imports', {
    configuration: { url: source.url, access_token: ROOT_TOKEN },
    entities: [{ source_type: 'group_entity', source_full_path: 'hostile-src', destination_namespace: '', destination_slug: 'hostile-copy' }],
  });
  expect(started.status).toBe(201);
  for (let i = 0; i < 120; i++) {
    const s = (await api(baseURL!, 'GET', `/bulk_imports/${started.body.id}`)).body.status;
    if (s !== 'created' && s !== 'started') break;
    await new Promise((r) => setTimeout(r, 500));
  }
  await connect(page, 'migrations');
  await page.getByRole('radio', { name: 'Migrations' }).check();
  await page.getByRole('table', { name: 'Migrations' }).getByRole('row').filter({ hasText: `#${started.body.id}` }).first().click();
  const detail = page.getByTestId('migration-detail');
  const entity = detail.getByRole('list', { name: 'Entities' }).getByRole('listitem', { name: 'project hostile-src/app', exact: true });
  await entity.getByRole('button', { name: /failure/ }).click();
  const failures = entity.getByRole('table', { name: /^Failures of/ });
  await expect(failures).toContainText(hostileName);
  expect(await failures.locator('img, script, [onerror]').count()).toBe(0);
  await screenshot(page, 'injection-migration');
  await page.waitForTimeout(300);
  expect(await injected.pwned()).toBeNull();
  expect(injected.dialogs).toEqual([]);
});
