import { createHash } from 'node:crypto';
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

test('Reviews on a real diff: files and hunks of the merge request, a draft on a clicked line with its GitLab position, an existing diff thread in place, submit', async ({ page, baseURL }) => {
  const problems = watchProblems(page);
  const project = (await api(baseURL!, 'POST', '/projects', { name: 'Diff Review', initialize_with_readme: true })).body;
  const main = project.default_branch;
  const commit = async (branch: string, start: string | undefined, actions: object[]) => {
    const res = await api(baseURL!, 'POST', `/projects/${project.id}/repository/commits`, { branch, start_branch: start, commit_message: `Change ${branch}`, actions });
    expect(res.status).toBe(201);
  };
  await commit(main, undefined, [{ action: 'create', file_path: 'deploy.sh', content: '#!/bin/sh\nupload\nexit 0\n' }]);
  await commit('retry', main, [
    { action: 'update', file_path: 'deploy.sh', content: '#!/bin/sh\nretry upload\necho done\nexit 0\n' },
    { action: 'create', file_path: 'retry.sh', content: 'retry() {\n  for i in 1 2 3; do\n    "$@" && return 0\n    sleep "$i"\n  done\n  return 1\n}\n' },
  ]);
  const mr = (await api(baseURL!, 'POST', `/projects/${project.id}/merge_requests`, { title: 'Retry the upload', source_branch: 'retry', target_branch: main })).body;
  const mrPath = `/projects/${project.id}/merge_requests/${mr.iid}`;
  const refs = (await api(baseURL!, 'GET', mrPath)).body.diff_refs;
  expect(refs.head_sha).toMatch(/^[0-9a-f]{40}$/);
  const onSleep = { ...refs, position_type: 'text', old_path: 'retry.sh', new_path: 'retry.sh', old_line: null, new_line: 4 };
  expect((await api(baseURL!, 'POST', `${mrPath}/discussions`, { body: 'Why not back off exponentially?', position: onSleep })).status).toBe(201);

  await connect(page, 'reviews');
  await pickProject(page, 'root/diff-review');
  await page.getByRole('table', { name: 'Merge requests' }).getByText('Retry the upload').click();
  await page.getByRole('tab', { name: /^Changes/ }).click();
  await expect(page.getByRole('tab', { name: /^Changes/ })).toHaveText('Changes2');
  const deploy = page.getByRole('table', { name: 'Diff of deploy.sh' });
  await expect(deploy.locator('tr.diff-line.old')).toHaveText(['2-upload']);
  await expect(deploy.locator('tr.diff-line.new')).toHaveText(['2+retry upload', '3+echo done']);
  await expect(page.getByRole('region', { name: 'Changes to retry.sh' })).toContainText('new file');

  // The existing thread sits under line 4 of retry.sh, not in the overview.
  const retry = page.getByRole('table', { name: 'Diff of retry.sh' });
  const existing = retry.getByRole('article', { name: /^Thread by/ });
  await expect(existing).toContainText('Why not back off exponentially?');
  await expect(retry.locator('tr.line-notes').filter({ has: page.getByRole('article', { name: /^Thread by/ }) }).locator('xpath=preceding-sibling::tr[1]')).toContainText('sleep "$i"');

  // A draft on a clicked added line, and one on a removed line.
  await deploy.getByRole('button', { name: 'Comment on deploy.sh line 3' }).click();
  await page.getByRole('form', { name: 'Comment on deploy.sh line 3' }).getByRole('textbox', { name: 'Line comment' }).fill('Say **what** is done');
  await page.getByRole('form', { name: 'Comment on deploy.sh line 3' }).getByRole('textbox', { name: 'Line comment' }).press('Control+Enter');
  // The service reads the diff from git to give the draft its line code: allow a loaded machine time.
  await expect(page.getByTestId('draft-count')).toHaveText('1', { timeout: 15_000 });
  await expect(deploy.getByTestId('draft')).toContainText('Say what is done');
  await deploy.getByRole('button', { name: 'Comment on deploy.sh old line 2' }).click();
  await page.getByRole('form', { name: 'Comment on deploy.sh old line 2' }).getByRole('textbox', { name: 'Line comment' }).fill('Was this ever flaky?');
  await page.getByRole('form', { name: 'Comment on deploy.sh old line 2' }).getByRole('button', { name: 'Add to review' }).click();
  await expect(page.getByTestId('draft-count')).toHaveText('2', { timeout: 15_000 });
  await screenshot(page, 'reviews-diff');

  // The service holds both drafts with GitLab's text positions on the merge request's diff refs.
  const drafts = (await api<any[]>(baseURL!, 'GET', `${mrPath}/draft_notes`)).body;
  const where = (d: any) => [d.note, d.position.new_path, d.position.old_line, d.position.new_line, d.position.base_sha, d.position.start_sha, d.position.head_sha];
  expect(drafts.map(where).sort()).toEqual([
    ['Say **what** is done', 'deploy.sh', null, 3, refs.base_sha, refs.start_sha, refs.head_sha],
    ['Was this ever flaky?', 'deploy.sh', 2, null, refs.base_sha, refs.start_sha, refs.head_sha],
  ]);
  const pathSha = createHash('sha1').update('deploy.sh').digest('hex');
  expect(drafts.find((d) => d.position.new_line === 3).position.line_range.start.line_code).toBe(`${pathSha}_3_3`);

  await page.getByRole('button', { name: 'Submit review' }).click();
  await expect(page.getByTestId('notice').filter({ hasText: 'Review submitted: 2 comments published' })).toBeVisible();
  await expect(page.getByTestId('draft-count')).toHaveText('0');
  await expect(deploy.getByRole('article', { name: /^Thread by/ })).toHaveCount(2);
  await expect(deploy.getByRole('article', { name: /^Thread by/ }).filter({ hasText: 'Say what is done' })).toBeVisible();
  const published = (await api<any[]>(baseURL!, 'GET', `${mrPath}/discussions`)).body;
  const onLine = published.find((d) => d.notes[0].body === 'Say **what** is done');
  expect(onLine.notes[0]).toMatchObject({ type: 'DiffNote', position: { new_path: 'deploy.sh', new_line: 3, old_line: null, head_sha: refs.head_sha } });
  expect(problems).toEqual([]);
});
