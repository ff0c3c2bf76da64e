import { expect, test } from '@playwright/test';
import { ROOT_TOKEN, TestService } from '../helpers/service';
import { type SeededSource, seedSource } from '../helpers/migration-source';
import { api, connect, screenshot, watchProblems } from './helpers';

// The Migrations workspace in Chromium, between two live instances: the e2e service (destination,
// behind `serve --ui`) and a second Sandlab seeded through its API as the source.

let source: TestService;
let seeded: SeededSource;

test.beforeAll(async () => {
  source = await TestService.start();
  seeded = await seedSource(source, '-e2e');
});

test.afterAll(async () => {
  await source?.stop();
});

test('browses the source, plans with a dry run, migrates live, shows failures with links, and retries', async ({ page, baseURL }) => {
  test.setTimeout(120_000);
  const problems = watchProblems(page);
  // Alice exists here (same e-mail); Carol does not yet.
  expect((await api(baseURL!, 'POST', '/users', { username: 'alice-here', email: 'alice-e2e@example.com', name: 'Alice Here', password: 'password123' })).status).toBe(201);

  await connect(page, 'migrations');
  await expect(page.getByRole('heading', { name: 'Migrations', level: 1 })).toBeVisible();
  await page.getByLabel('Source URL').fill(source.url);
  await page.getByLabel('Access token').fill(ROOT_TOKEN);
  await page.getByRole('button', { name: 'Browse source' }).click();

  const groups = page.getByRole('table', { name: 'Source groups' });
  await expect(groups.getByRole('cell', { name: 'acme-e2e', exact: true })).toBeVisible();
  await page.getByLabel('Search the source').fill('infra');
  await expect(groups.getByRole('cell', { name: 'acme-e2e/platform/infra', exact: true })).toBeVisible();
  await expect(groups.getByRole('cell', { name: 'acme-e2e', exact: true })).toHaveCount(0);
  await page.getByLabel('Search the source').fill('');
  await page.getByRole('button', { name: 'Add acme-e2e', exact: true }).click();
  await expect(page.getByRole('button', { name: 'Added acme-e2e', exact: true })).toBeDisabled();

  const picked = page.getByRole('table', { name: 'Picked groups and projects' });
  await expect(picked.getByText('acme-e2e')).toBeVisible();
  await page.getByLabel('Destination path of acme-e2e').fill('acme-moved');

  await page.getByRole('button', { name: 'Dry run' }).click();
  const plan = page.getByTestId('plan');
  await expect(plan).toContainText('3 groups and 2 projects would be created. Nothing was written.');
  await expect(plan.getByRole('table', { name: 'Planned entities' }).getByRole('row')).toHaveCount(6);
  await expect(plan.getByRole('row', { name: /acme-e2e\/web/ })).toContainText('3 issues');
  await expect(plan.getByRole('list', { name: 'Conflicts' })).toContainText(`No user here matches source member 'carol-e2e'`);
  expect((await api(baseURL!, 'GET', '/groups/acme-moved')).status).toBe(404);
  await expect(plan.getByRole('heading', { name: 'Dry run' })).toBeInViewport();
  await page.waitForTimeout(400); // the smooth scroll settles
  await screenshot(page, 'migrations-plan');

  await page.getByRole('button', { name: 'Start migration' }).click();
  const detail = page.getByTestId('migration-detail');
  await expect(detail.getByRole('heading', { name: /^Migration #\d+$/ })).toBeVisible();
  await expect(detail.locator('header').getByText('finished', { exact: true })).toBeVisible({ timeout: 60_000 });
  const entities = detail.getByRole('list', { name: 'Entities' });
  await expect(entities.getByTestId('entity')).toHaveCount(5);
  const web = entities.getByRole('listitem', { name: 'project acme-e2e/web', exact: true });
  await expect(web).toContainText('acme-moved/web');
  await expect(web.getByRole('row', { name: /^issues/ })).toContainText('3 of 3 imported · 3 fetched');
  await expect(web.getByRole('progressbar', { name: 'issues of acme-e2e/web' })).toHaveAttribute('value', '3');
  // Its row in the history (other specs may have migrated on this instance before).
  const id = (await detail.getByRole('heading', { name: /^Migration #\d+$/ }).textContent())!.replace(/\D/g, '');
  await expect(page.getByRole('table', { name: 'Migrations' }).getByRole('row', { name: new RegExp(`^#${id} `) }).getByText('finished')).toBeVisible();

  // The member matching nobody here is a failure, linked to the record on the source.
  const top = entities.getByRole('listitem', { name: 'group acme-e2e', exact: true });
  await top.getByRole('button', { name: /1 failure/ }).click();
  const failures = top.getByRole('table', { name: 'Failures of acme-e2e' });
  await expect(failures.getByRole('link', { name: 'carol-e2e' })).toHaveAttribute('href', `${source.url}/carol-e2e`);
  await expect(failures).toContainText('BulkImports::UserMappingError');
  await screenshot(page, 'migrations-detail-light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await screenshot(page, 'migrations-detail-dark');
  await page.emulateMedia({ colorScheme: 'light' });

  // Carol gets an account here; a retry (the source token typed for this tab) maps her, copying nothing twice.
  expect((await api(baseURL!, 'POST', '/users', { username: 'carol-here', email: 'carol-e2e@source.example', name: 'Carol Here', password: 'password123' })).status).toBe(201);
  await detail.getByLabel('Source token for retries').fill(ROOT_TOKEN);
  await top.getByRole('button', { name: 'Retry acme-e2e' }).click();
  await expect(top.getByRole('button', { name: /failure/ })).toHaveCount(0, { timeout: 30_000 });
  await expect(top.locator('.entity-head').getByText('finished', { exact: true })).toBeVisible();
  const members = await api<{ username: string }[]>(baseURL!, 'GET', '/groups/acme-moved/members');
  expect(members.body.map((m) => m.username).sort()).toEqual(['alice-here', 'carol-here', 'root']);
  const issues = await api<unknown[]>(baseURL!, 'GET', '/projects/acme-moved%2Fweb/issues?scope=all');
  expect(issues.body).toHaveLength(3);
  expect(seeded.projects.web.path).toBe('web');
  expect(problems).toEqual([]);
});
