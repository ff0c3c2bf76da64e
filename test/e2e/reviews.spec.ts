import { expect, test } from '@playwright/test';
import { api, connect, pickProject, screenshot, watchProblems } from './helpers';

test('Reviews: draft two notes (one on a typed file line), edit one, submit the review, see them published; reply and resolve', async ({ page, baseURL }) => {
  const problems = watchProblems(page);
  const project = (await api(baseURL!, 'POST', '/projects', { name: 'Review Home' })).body;
  const mr = (
    await api(baseURL!, 'POST', `/projects/${project.id}/merge_requests`, {
      title: 'Add retry to the deploy script',
      source_branch: 'retry',
      target_branch: 'main',
      description: 'Retries **three** times.\n\n- [x] script\n- [ ] docs',
    })
  ).body;
  const thread = (await api(baseURL!, 'POST', `/projects/${project.id}/merge_requests/${mr.iid}/discussions`, { body: 'Should the delay grow?' })).body;

  await connect(page, 'reviews');
  await pickProject(page, 'root/review-home');
  await page.getByRole('table', { name: 'Merge requests' }).getByText('Add retry to the deploy script').click();
  const description = page.getByRole('region', { name: 'Description' });
  await expect(description.locator('strong')).toHaveText('three');
  await expect(description.getByRole('checkbox')).toHaveCount(2);
  await expect(page.getByRole('article', { name: /^Thread by/ })).toContainText('Should the delay grow?');

  // First draft: general, previewed through POST /markdown.
  const form = page.getByRole('form', { name: 'New review comment' });
  await form.getByRole('textbox', { name: 'Comment' }).fill('Looks good overall :thumbsup:');
  await form.getByRole('button', { name: 'Preview' }).click();
  await expect(form.getByLabel('Preview').locator('gl-emoji')).toHaveAttribute('data-name', 'thumbsup');
  await form.getByRole('button', { name: 'Write' }).click();
  await form.getByRole('textbox', { name: 'Comment' }).press('Control+Enter');
  await expect(page.getByTestId('draft-count')).toHaveText('1');

  // Second draft: on a file line typed in.
  await form.getByRole('textbox', { name: 'Comment' }).fill('Use `set -eu` here');
  await form.getByLabel('File path').fill('deploy.sh');
  await form.getByLabel('New line').fill('3');
  await form.getByRole('button', { name: 'Add to review' }).click();
  await expect(page.getByTestId('draft-count')).toHaveText('2');
  await expect(page.getByTestId('draft').filter({ hasText: 'set -eu' })).toContainText('deploy.sh:3');

  // Edit the first; the service holds the drafts (a script sees them too).
  const first = page.getByTestId('draft').filter({ hasText: 'Looks good overall' });
  await first.getByRole('button', { name: 'Edit' }).click();
  await first.getByRole('textbox', { name: 'Draft text' }).fill('Looks good overall, one nit below');
  await first.getByRole('button', { name: 'Save draft' }).click();
  await expect(page.getByTestId('draft').filter({ hasText: 'one nit below' })).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Draft text' })).toHaveCount(0);
  const drafts = (await api<any[]>(baseURL!, 'GET', `/projects/${project.id}/merge_requests/${mr.iid}/draft_notes`)).body;
  expect(drafts.map((d) => d.note).sort()).toEqual(['Looks good overall, one nit below', 'Use `set -eu` here']);
  await screenshot(page, 'reviews');

  await page.getByRole('button', { name: 'Submit review' }).click();
  await expect(page.getByTestId('notice').filter({ hasText: 'Review submitted: 2 comments published' })).toBeVisible();
  await expect(page.getByTestId('draft-count')).toHaveText('0');
  const threads = page.getByRole('article', { name: /^Thread by/ });
  await expect(threads.filter({ hasText: 'one nit below' })).toBeVisible();
  await expect(threads.filter({ hasText: 'set -eu' })).toContainText('deploy.sh:3');
  const published = (await api<any[]>(baseURL!, 'GET', `/projects/${project.id}/merge_requests/${mr.iid}/discussions`)).body;
  const onLine = published.find((d) => d.notes[0].body === 'Use `set -eu` here');
  expect(onLine.notes[0]).toMatchObject({ type: 'DiffNote', position: { new_path: 'deploy.sh', new_line: 3, position_type: 'text' } });
  expect((await api<any[]>(baseURL!, 'GET', `/projects/${project.id}/merge_requests/${mr.iid}/draft_notes`)).body).toEqual([]);

  // Reply to the old thread, then resolve it.
  const old = threads.filter({ hasText: 'Should the delay grow?' });
  await old.getByRole('textbox', { name: 'Reply' }).fill('Yes, doubling each time.');
  await old.getByRole('button', { name: 'Reply now' }).click();
  await expect(old).toContainText('Yes, doubling each time.');
  await expect(old.getByRole('textbox', { name: 'Reply' })).toHaveValue('');
  await old.getByRole('button', { name: 'Resolve thread' }).click();
  await expect(old.getByRole('button', { name: 'Unresolve thread' })).toBeVisible();
  const after = (await api(baseURL!, 'GET', `/projects/${project.id}/merge_requests/${mr.iid}/discussions/${thread.id}`)).body;
  expect(after.notes.map((n: any) => [n.body, n.resolved])).toEqual([
    ['Should the delay grow?', true],
    ['Yes, doubling each time.', true],
  ]);
  expect(problems).toEqual([]);
});
