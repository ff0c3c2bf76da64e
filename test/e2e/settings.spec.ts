import { expect, test } from '@playwright/test';
import { api, connect, readClipboard, screenshot, watchProblems } from './helpers';

test('Settings: create a token with scopes and an expiry, copy its value once, use it, then revoke it', async ({ page, baseURL, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const problems = watchProblems(page);
  await connect(page, 'settings');
  const tokens = page.getByRole('table', { name: 'Personal access tokens' });
  // The token this tab uses is marked, and cannot be revoked from here.
  await expect(tokens.getByRole('row', { name: /e2e-root|sandlab-root/ })).toContainText('in use by this app');

  const form = page.getByRole('form', { name: 'New personal access token' });
  await form.getByLabel('Token name').fill('ci-script');
  await form.getByLabel('Expires on').fill('2099-12-31');
  await form.getByRole('checkbox', { name: 'read_api', exact: true }).check();
  await form.getByRole('checkbox', { name: 'api', exact: true }).uncheck();
  await form.getByRole('checkbox', { name: 'read_repository', exact: true }).check();
  await form.getByLabel('Token name').press('Control+Enter');

  const value = page.getByTestId('revealed-token');
  await expect(value).toHaveText(/^glpat-/);
  const plain = (await value.textContent())!;
  await page.getByRole('button', { name: 'Copy token' }).click();
  expect(await readClipboard(page)).toBe(plain);
  const row = tokens.getByRole('row', { name: /ci-script/ });
  await expect(row).toContainText('read_api, read_repository');
  await expect(row).toContainText('2099-12-31');
  await screenshot(page, 'settings');

  // The value works for a script, with the scopes chosen.
  expect((await api(baseURL!, 'GET', '/personal_access_tokens/self', undefined, plain)).body).toMatchObject({ name: 'ci-script', scopes: ['read_api', 'read_repository'], expires_at: '2099-12-31' });
  await page.getByRole('button', { name: 'Done' }).click();
  await expect(value).toHaveCount(0);

  // The API's error verbatim: an expiry in the past.
  await form.getByLabel('Token name').fill('already-expired');
  await form.getByLabel('Expires on').fill('2001-01-01');
  await form.getByRole('button', { name: 'Create token' }).click();
  await expect(page.getByRole('alert').filter({ hasText: '{"expires_at":["must be in the future"]}' })).toBeVisible();

  await row.getByRole('button', { name: 'Revoke' }).click();
  await row.getByRole('button', { name: 'Revoke ci-script' }).click();
  await expect(tokens.getByRole('row', { name: /ci-script/ })).toHaveCount(0);
  await expect(page.getByTestId('notice').filter({ hasText: 'Revoked ci-script' })).toBeVisible();
  expect((await api(baseURL!, 'GET', '/personal_access_tokens/self', undefined, plain)).status).toBe(401);
  await page.getByRole('checkbox', { name: 'Show revoked and expired' }).check();
  await expect(tokens.getByRole('row', { name: /ci-script/ })).toContainText('revoked');
  expect(problems).toEqual([]);
});

test('Settings: rotating a token shows the new value once and retires the old one', async ({ page, baseURL }) => {
  const me = (await api(baseURL!, 'GET', '/user')).body;
  const made = (await api(baseURL!, 'POST', `/users/${me.id}/personal_access_tokens`, { name: 'to-rotate', scopes: ['read_api'] })).body;
  await connect(page, 'settings');
  const row = page.getByRole('table', { name: 'Personal access tokens' }).getByRole('row', { name: /to-rotate/ });
  await row.getByRole('button', { name: 'Rotate to-rotate' }).click();
  const value = page.getByTestId('revealed-token');
  await expect(value).toHaveText(/^glpat-/);
  const plain = (await value.textContent())!;
  expect(plain).not.toBe(made.token);
  expect((await api(baseURL!, 'GET', '/personal_access_tokens/self', undefined, plain)).status).toBe(200);
  expect((await api(baseURL!, 'GET', '/personal_access_tokens/self', undefined, made.token)).status).toBe(401);
});
