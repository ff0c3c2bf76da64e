import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, type Locator, type Page } from '@playwright/test';
import { E2E_ROOT_TOKEN } from '../../playwright.config';

/** The API of the e2e service, as a script would call it (root's token). */
export async function api<T = any>(baseURL: string, method: string, path: string, body?: unknown, token = E2E_ROOT_TOKEN): Promise<{ status: number; body: T }> {
  const res = await fetch(`${baseURL}/api/v4${path}`, {
    method,
    headers: { 'private-token': token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // raw answers stay text
  }
  return { status: res.status, body: parsed as T };
}

/**
 * Collects console errors and page errors (a CSP violation shows up here). Chromium's own line for
 * an HTTP error status is left out: a 4xx the API answers is an outcome the tests check themselves.
 */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => m.type() === 'error' && !/^Failed to load resource: the server responded with a status of 4\d\d/.test(m.text()) && problems.push(m.text()));
  page.on('pageerror', (e) => problems.push(String(e)));
  return problems;
}

/** Opens the app at `#/<workspace>` and gives it root's token, as a user would. */
export async function connect(page: Page, workspace = ''): Promise<void> {
  await page.goto(`/#/${workspace}`);
  await page.getByLabel('Token').fill(E2E_ROOT_TOKEN);
  await page.getByRole('button', { name: 'Connect' }).click();
  await expect(page.getByTestId('connection')).toHaveText('Connected');
}

/** Opens the project picker with Ctrl+K; its search box. */
export async function openPicker(page: Page): Promise<Locator> {
  const search = page.getByRole('dialog', { name: 'Choose a project' }).getByRole('combobox', { name: 'Search projects' });
  // The shortcut's listener is attached once the shell has rendered after connecting: a press in
  // the moment before that opens nothing, so press again until the picker is there.
  await expect(async () => {
    if (!(await search.isVisible())) await page.keyboard.press('Control+k');
    await expect(search).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 15000 });
  return search;
}

/** Picks the header's current project through the picker (Ctrl+K, type, Enter). */
export async function pickProject(page: Page, path: string): Promise<void> {
  const search = await openPicker(page);
  await search.fill(path.split('/').pop()!);
  await expect(page.getByRole('option', { name: path })).toBeVisible();
  await page.getByRole('option', { name: path }).click();
  await expect(page.getByRole('button', { name: new RegExp(`^Project: ${path}`) })).toBeVisible();
}

/** Saves a screenshot under test/e2e/screenshots/ (not committed). */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = join(__dirname, 'screenshots');
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`) });
}

/** What the page last put on the clipboard (the context needs the clipboard permissions). */
export function readClipboard(page: Page): Promise<string> {
  return page.evaluate(() => (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText());
}
