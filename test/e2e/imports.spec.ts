import { expect, test } from '@playwright/test';
import { E2E_PROVIDER_PORTS } from '../../playwright.config';
import { HOSTILE_PROVIDER_MESSAGE, startStandIns, type StandIns } from '../helpers/stand-ins/scenarios';
import { api, connect, screenshot, watchProblems } from './helpers';

// The Imports workspace in Chromium behind `serve --ui`, importing from stand-ins of the providers
// (provider A and B cloud on the public hosts the service was pointed at, B server by its URL).
let standIns: StandIns;
test.beforeAll(async () => {
  standIns = await startStandIns('e2e', E2E_PROVIDER_PORTS);
});
test.afterAll(async () => {
  await Promise.all(Object.values(standIns).map((s) => s.stop()));
});

test('imports a GitHub repository picked from the list, follows it live, and opens what it made', async ({ page, baseURL }) => {
  const problems = watchProblems(page);
  await connect(page, 'imports');
  await expect(page.getByRole('heading', { name: 'Imports', level: 1 })).toBeVisible();
  await expect(page.getByRole('radio', { name: 'GitHub' })).toBeChecked();

  await page.getByLabel('Personal access token').first().fill('gh-e2e-token');
  await page.getByRole('button', { name: 'Show repositories' }).click();
  const repos = page.getByRole('table', { name: 'GitHub repositories' });
  await expect(repos.getByRole('row')).toHaveCount(5);
  await expect(repos.getByRole('row', { name: /octo\/launchpad/ })).toContainText('private');
  await screenshot(page, 'imports-repositories');

  await page.getByRole('button', { name: 'Import octo/rocket' }).click();
  const form = page.getByRole('form', { name: 'Import octo/rocket' });
  await expect(form.getByLabel('Repository ID')).toHaveValue('501');
  await expect(form.getByLabel('Into namespace')).toHaveValue('root');
  await form.getByRole('button', { name: 'Start import' }).click();
  await expect(page.getByTestId('notice').filter({ hasText: 'Import of octo/rocket scheduled into root/rocket' })).toBeVisible();

  const imports = page.getByRole('table', { name: 'Your imports' });
  await expect(imports.getByRole('row', { name: /root\/rocket/ })).toContainText('finished', { timeout: 20_000 });
  const detail = page.getByTestId('import-detail');
  await expect(detail).toContainText('octo/rocket');
  const counts = detail.getByRole('table', { name: 'Imported records' });
  await expect(counts.getByRole('row', { name: /^Issues/ })).toHaveText(/Issues\s*2\s*2/);
  await expect(counts.getByRole('row', { name: /^Pull requests/ })).toHaveText(/Pull requests\s*1\s*1/);
  // The form closed once the import was scheduled.
  await expect(page.getByRole('form', { name: 'Import octo/rocket' })).toHaveCount(0);
  await detail.scrollIntoViewIfNeeded();
  await screenshot(page, 'imports-finished');

  // The project link makes it the current project.
  await imports.getByRole('button', { name: 'root/rocket' }).click();
  await expect(page.getByRole('button', { name: /^Project: root\/rocket/ })).toBeVisible();
  const issues = await api<{ title: string; imported_from: string }[]>(baseURL!, 'GET', '/projects/root%2Frocket/issues?sort=asc');
  expect(issues.body.map((i) => [i.title, i.imported_from])).toEqual([
    ['Engine stalls', 'github'],
    ['Add a second stage', 'github'],
  ]);
  // The git repository came with it, from the stand-in's clone URL.
  const branches = await api<{ name: string; default: boolean }[]>(baseURL!, 'GET', '/projects/root%2Frocket/repository/branches');
  expect(branches.body.map((b) => [b.name, b.default])).toEqual([
    ['feature', false],
    ['main', true],
  ]);
  expect(problems).toEqual([]);
});

test('cancels a running import from the list', async ({ page }) => {
  await connect(page, 'imports');
  await page.getByLabel('Personal access token').first().fill('gh-e2e-token');
  await page.getByRole('button', { name: 'Show repositories' }).click();
  await page.getByRole('button', { name: 'Import octo/slow-satellite' }).click();
  const form = page.getByRole('form', { name: 'Import octo/slow-satellite' });
  await form.getByLabel('Items per request').fill('1');
  await form.getByRole('button', { name: 'Start import' }).click();
  const row = page.getByRole('table', { name: 'Your imports' }).getByRole('row', { name: /root\/slow-satellite/ });
  await expect(row).toContainText('started', { timeout: 20_000 });
  await row.getByRole('button', { name: 'Cancel' }).click();
  await row.getByRole('button', { name: 'Cancel import' }).click();
  await expect(row).toContainText('canceled');
  await expect(page.getByTestId('notice').filter({ hasText: 'Canceled the import into root/slow-satellite' })).toBeVisible();
  await screenshot(page, 'imports-canceled');
});

test('imports from Bitbucket Server by its URL, and the GitHub gists as snippets', async ({ page, baseURL }) => {
  await connect(page, 'imports');
  await page.getByRole('radio', { name: 'Bitbucket Server' }).check();
  await page.getByLabel('Server URL').fill(standIns.providerb_server.url);
  await page.getByLabel('Username').fill('admin');
  await page.getByLabel('Personal access token').first().fill('bbs-e2e-token');
  await page.getByRole('button', { name: 'Show repositories' }).click();
  await page.getByRole('button', { name: 'Import SPACE/station' }).click();
  const form = page.getByRole('form', { name: 'Import SPACE/station' });
  await expect(form.getByLabel('Project key')).toHaveValue('SPACE');
  await expect(form.getByLabel('Repository slug')).toHaveValue('station');
  await form.getByRole('button', { name: 'Start import' }).click();
  await expect(page.getByRole('table', { name: 'Your imports' }).getByRole('row', { name: /root\/station/ })).toContainText('finished', { timeout: 20_000 });

  // A wrong token: the API's own refusal, in the form.
  await page.getByRole('radio', { name: 'GitHub' }).check();
  await page.getByRole('button', { name: 'Name a repository instead' }).click();
  await page.getByLabel('Personal access token').first().fill('wrong-token');
  const byHand = page.getByRole('form', { name: 'Import a repository' });
  await byHand.getByLabel('Repository ID').fill('502');
  await byHand.getByRole('button', { name: 'Start import' }).click();
  await expect(byHand.getByRole('alert')).toHaveText('Access denied to your GitHub account. (HTTP 401)');

  const gists = page.getByRole('form', { name: 'Gists import' });
  await gists.getByLabel('Personal access token').fill('gh-e2e-token');
  await gists.getByRole('button', { name: 'Import my gists' }).click();
  const report = page.getByTestId('gist-report');
  await expect(report).toContainText('finished', { timeout: 20_000 });
  await expect(report).toContainText('1 imported, 1 skipped');
  await expect(report).toContainText('Too big');
  await expect(report).toContainText('Snippet maximum file count exceeded');
  const snippets = await api<{ title: string }[]>(baseURL!, 'GET', '/snippets');
  expect(snippets.body.map((s) => s.title)).toContain('Launch checklist');
  await screenshot(page, 'imports-gists');
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.getByRole('table', { name: 'Your imports' }).getByRole('row', { name: /root\/station/ }).click();
  await screenshot(page, 'imports-dark');
});

test('a provider\'s hostile error message ends the import and shows as text, running nothing', async ({ page, baseURL }) => {
  let pwnedDialogs = 0;
  page.on('dialog', (d) => {
    pwnedDialogs++;
    void d.dismiss();
  });
  await connect(page, 'imports');
  await page.getByLabel('Personal access token').first().fill('gh-e2e-token');
  await page.getByRole('button', { name: 'Show repositories' }).click();
  await page.getByRole('button', { name: 'Import octo/hostile-probe' }).click();
  await page.getByRole('form', { name: 'Import octo/hostile-probe' }).getByRole('button', { name: 'Start import' }).click();
  const row = page.getByRole('table', { name: 'Your imports' }).getByRole('row', { name: /root\/hostile-probe/ });
  await expect(row).toContainText('failed', { timeout: 20_000 });
  // The API holds the provider's words as they came.
  const status = await api<{ import_error: string }>(baseURL!, 'GET', '/projects/root%2Fhostile-probe/import');
  expect(status.body.import_error).toContain(HOSTILE_PROVIDER_MESSAGE);
  await row.click();
  const detail = page.getByTestId('import-detail');
  await expect(detail).toContainText(HOSTILE_PROVIDER_MESSAGE);
  expect(await detail.locator('img, script, [onerror]').count()).toBe(0);
  await screenshot(page, 'imports-hostile-error');
  await page.waitForTimeout(300); // an onerror of a broken image would fire after a moment
  expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: unknown }).__pwned ?? null)).toBeNull();
  expect(pwnedDialogs).toBe(0);
});
