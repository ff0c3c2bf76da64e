import { expect, test, type ConsoleMessage } from '@playwright/test';
import { E2E_ROOT_TOKEN } from '../../playwright.config';

// The renderer in Chromium behind `serve --ui`: the HTTP bridge, the shell, the projects workspace.

async function api(baseURL: string, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${baseURL}/api/v4${path}`, {
    method,
    headers: { 'private-token': E2E_ROOT_TOKEN, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

test('connects with a pasted token, shows the service URL and lists projects through the bridge', async ({ page, baseURL }) => {
  const problems: string[] = [];
  page.on('console', (m: ConsoleMessage) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(String(e)));
  expect((await api(baseURL!, 'POST', '/projects', { name: 'Seeded from the API', description: 'made before the page opened' })).status).toBe(201);

  const res = await page.goto('/');
  expect(res?.headers()['content-security-policy']).toMatch(/default-src 'none'/);
  await expect(page.getByRole('heading', { name: 'Connect to Sandlab' })).toBeVisible();

  await page.getByLabel('Personal access token').fill('glpat-not-a-real-token');
  await page.getByRole('button', { name: 'Connect' }).click();
  await expect(page.getByRole('region', { name: 'Connect to Sandlab' }).getByRole('alert')).toContainText('401');
  await expect(page.getByTestId('service-error')).toHaveCount(0);

  await page.getByLabel('Personal access token').fill(E2E_ROOT_TOKEN);
  await page.getByRole('button', { name: 'Connect' }).click();
  await expect(page.getByTestId('service-url')).toHaveText(`${baseURL}/api/v4`);
  const table = page.getByTestId('projects-table');
  await expect(table.getByRole('link', { name: 'root/seeded-from-the-api' })).toBeVisible();
  await expect(table).toContainText('made before the page opened');

  // Create through the UI; the API sees it.
  await page.getByLabel('New project name').fill('Made in the UI');
  await page.getByLabel('Visibility').selectOption('internal');
  await page.getByRole('button', { name: 'Create project' }).click();
  await expect(table.getByRole('link', { name: 'root/made-in-the-ui' })).toBeVisible();
  const listed = (await (await api(baseURL!, 'GET', '/projects?search=Made%20in%20the%20UI')).json()) as { visibility: string }[];
  expect(listed.map((p) => p.visibility)).toEqual(['internal']);

  // Desktop-only workspaces are not offered in a browser; the service workspace is.
  await expect(page.getByRole('button', { name: 'Preferences' })).toHaveCount(0);
  await page.getByRole('button', { name: 'Service' }).click();
  await expect(page.getByText('HTTP (browser)')).toBeVisible();

  // The token stays with this tab across a reload, and nothing broke the CSP.
  await page.reload();
  await expect(page.getByTestId('projects-table')).toBeVisible();
  expect(problems.filter((p) => !/401 \(Unauthorized\)/.test(p))).toEqual([]);
});
