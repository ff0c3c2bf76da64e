import { expect, test } from '@playwright/test';
import { api, connect, openPicker, readClipboard, screenshot, watchProblems } from './helpers';

// The shell in Chromium behind `serve --ui`: token screen, status bar, project picker, themes.

test('asks for a token first, refuses a wrong one, then shows the service and keeps the token for the tab', async ({ page, baseURL, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const problems = watchProblems(page);
  const res = await page.goto('/');
  expect(res?.headers()['content-security-policy']).toMatch(/default-src 'none'/);
  await expect(page.getByRole('heading', { name: 'Connect to Sandlab' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Settings' })).toHaveCount(0);

  await page.getByLabel('Token').fill('glpat-not-a-real-token');
  await page.getByLabel('Token').press('Control+Enter');
  await expect(page.getByRole('region', { name: 'Connect to Sandlab' }).getByRole('alert')).toHaveText('The token was not accepted (401).');

  await connect(page);
  await expect(page.getByTestId('service-url')).toHaveText(`${baseURL}/api/v4`);
  await expect(page.getByTestId('keychain')).toHaveText('Token: this tab only');
  for (const name of ['Snippets', 'Uploads', 'Reviews', 'Settings']) await expect(page.getByRole('navigation', { name: 'Workspaces' }).getByRole('link', { name })).toBeVisible();

  // The status bar's copy buttons put the URL and a curl line (never the token) on the clipboard.
  await page.getByRole('button', { name: 'Copy curl example' }).click();
  const curl = await readClipboard(page);
  expect(curl).toBe(`curl --header "PRIVATE-TOKEN: <your_access_token>" "${baseURL}/api/v4/projects"`);
  await page.getByRole('button', { name: 'Copy service URL' }).click();
  expect(await readClipboard(page)).toBe(`${baseURL}/api/v4`);

  await page.reload();
  await expect(page.getByTestId('connection')).toHaveText('Connected');
  await expect(page.getByRole('link', { name: 'Settings' })).toBeVisible();
  await page.getByRole('button', { name: 'Forget token' }).click();
  await expect(page.getByLabel('Token')).toBeVisible();
  expect(problems).toEqual([]);
});

test('the project picker searches the API, creates a project, and opens with Ctrl+K', async ({ page, baseURL }) => {
  expect((await api(baseURL!, 'POST', '/projects', { name: 'Picker Seed' })).status).toBe(201);
  await connect(page, 'settings');
  const dialog = page.getByRole('dialog', { name: 'Choose a project' });
  await expect(await openPicker(page)).toBeFocused();
  await dialog.getByRole('combobox', { name: 'Search projects' }).fill('picker');
  await expect(dialog.getByRole('option', { name: 'root/picker-seed' })).toBeVisible();
  await dialog.getByRole('combobox', { name: 'Search projects' }).fill('nothing-like-this');
  await expect(dialog.getByText('No project matches.')).toBeVisible();

  await dialog.getByLabel('New project name').fill('Made In The Picker');
  await dialog.getByLabel('New project visibility').selectOption('internal');
  await dialog.getByLabel('New project name').press('Control+Enter');
  await expect(page.getByRole('button', { name: /^Project: root\/made-in-the-picker/ })).toBeVisible();
  await expect(page.getByTestId('notice').filter({ hasText: 'Created project root/made-in-the-picker' })).toBeVisible();
  const made = await api<{ visibility: string }[]>(baseURL!, 'GET', '/projects?search=Made%20In%20The%20Picker');
  expect(made.body.map((p) => p.visibility)).toEqual(['internal']);

  // The API's own error, verbatim: the path is taken now.
  await page.keyboard.press('Control+k');
  await dialog.getByLabel('New project name').fill('Made In The Picker');
  await dialog.getByRole('button', { name: 'Create project' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'has already been taken' })).toBeVisible();
});

test('themes follow the system until Settings picks one', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await connect(page, 'settings');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await page.emulateMedia({ colorScheme: 'light' });
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  await page.getByLabel('Theme').selectOption('dark');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await page.reload();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await screenshot(page, 'shell-dark');
});
