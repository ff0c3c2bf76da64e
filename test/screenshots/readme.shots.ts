import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { api, connect, pickProject } from '../e2e/helpers';

const OUT = join(__dirname, '..', '..', 'docs', 'screenshots');

/** A small, believable project: snippets with history, uploads, a merge request under review. */
async function seed(baseURL: string): Promise<{ projectId: number; mrIid: number }> {
  const p = (await api(baseURL, 'POST', '/projects', { name: 'Deploy Tools', description: 'Scripts the team deploys with', initialize_with_readme: true })).body;
  const s = (
    await api(baseURL, 'POST', `/projects/${p.id}/snippets`, {
      title: 'Retry with backoff',
      visibility: 'internal',
      files: [
        { file_path: 'retry.ts', content: 'export async function retry<T>(fn: () => Promise<T>, tries = 3): Promise<T> {\n  for (let i = 1; ; i++) {\n    try {\n      return await fn();\n    } catch (err) {\n      if (i >= tries) throw err;\n      await new Promise((r) => setTimeout(r, 100 * i));\n    }\n  }\n}\n' },
        { file_path: 'README.md', content: '# retry\n\nWraps a flaky call.\n' },
      ],
    })
  ).body;
  await api(baseURL, 'PUT', `/projects/${p.id}/snippets/${s.id}`, {
    files: [{ action: 'update', file_path: 'retry.ts', content: 'export async function retry<T>(fn: () => Promise<T>, tries = 3): Promise<T> {\n  for (let i = 1; ; i++) {\n    try {\n      return await fn();\n    } catch (err) {\n      if (i >= tries) throw err;\n      // Back off: 200 ms, 400 ms, 800 ms...\n      await new Promise((r) => setTimeout(r, 100 * 2 ** i));\n    }\n  }\n}\n' }],
  });
  await api(baseURL, 'POST', `/projects/${p.id}/snippets`, { title: 'Deploy helper', visibility: 'private', files: [{ file_path: 'deploy.sh', content: '#!/bin/sh\nset -eu\necho "deploying $1"\n' }] });
  // A merge request on real branches: upload.ts loses its loop to a new retry.ts.
  const commit = (branch: string, start: string | undefined, actions: object[]) =>
    api(baseURL, 'POST', `/projects/${p.id}/repository/commits`, { branch, start_branch: start, commit_message: `Update ${branch}`, actions });
  await commit(p.default_branch, undefined, [
    {
      action: 'create',
      file_path: 'upload.ts',
      content:
        "import { put, sleep } from './io';\n\nexport async function upload(file: string): Promise<void> {\n  for (let i = 0; i < 3; i++) {\n    try {\n      return await put(file);\n    } catch {\n      await sleep(100);\n    }\n  }\n  throw new Error(`upload failed: ${file}`);\n}\n",
    },
  ]);
  await commit('retry', p.default_branch, [
    { action: 'create', file_path: 'retry.ts', content: 'export async function retry<T>(fn: () => Promise<T>, tries = 3): Promise<T> {\n  for (let i = 1; ; i++) {\n    try {\n      return await fn();\n    } catch (err) {\n      if (i >= tries) throw err;\n      await new Promise((r) => setTimeout(r, 100 * 2 ** i));\n    }\n  }\n}\n' },
    { action: 'update', file_path: 'upload.ts', content: "import { put } from './io';\nimport { retry } from './retry';\n\nexport async function upload(file: string): Promise<void> {\n  await retry(() => put(file));\n}\n" },
  ]);
  const mr = (
    await api(baseURL, 'POST', `/projects/${p.id}/merge_requests`, {
      title: 'Retry flaky deploy steps',
      source_branch: 'retry',
      target_branch: p.default_branch,
      description: 'Wraps the upload step in `retry()`.\n\n- [x] exponential backoff\n- [ ] docs',
    })
  ).body;
  const refs = (await api(baseURL, 'GET', `/projects/${p.id}/merge_requests/${mr.iid}`)).body.diff_refs;
  const onRetry = (line: number) => ({ ...refs, position_type: 'text', old_path: 'retry.ts', new_path: 'retry.ts', old_line: null, new_line: line });
  await api(baseURL, 'POST', `/projects/${p.id}/merge_requests/${mr.iid}/discussions`, { body: 'Should the delay be capped?', position: onRetry(7) });
  await api(baseURL, 'POST', `/projects/${p.id}/merge_requests/${mr.iid}/draft_notes`, { note: 'Nice: **much** easier to read than the loop it replaces.' });
  await api(baseURL, 'POST', `/projects/${p.id}/merge_requests/${mr.iid}/draft_notes`, { note: 'Pass the attempt number to `fn`?', position: onRetry(4) });
  return { projectId: p.id, mrIid: mr.iid };
}

async function shoot(page: Page, name: string): Promise<void> {
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme });
    await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
    await page.screenshot({ path: join(OUT, `${name}-${theme}.png`) });
  }
}

test('README screenshots', async ({ page, baseURL }) => {
  await seed(baseURL!);
  await connect(page, 'snippets');
  await pickProject(page, 'root/deploy-tools');
  await page.getByRole('table', { name: 'Project snippets' }).getByText('Retry with backoff').click();
  await expect(page.getByRole('textbox', { name: 'Content of README.md' }).or(page.getByRole('textbox', { name: 'Content of retry.ts' }))).toBeVisible();
  await page.getByRole('tab', { name: 'retry.ts' }).click();
  await page.mouse.move(0, 0);
  await shoot(page, 'snippets');

  await page.goto('/#/reviews');
  await page.getByRole('table', { name: 'Merge requests' }).getByText('Retry flaky deploy steps').click();
  await expect(page.getByTestId('draft-count')).toHaveText('2');
  await page.getByRole('tab', { name: /^Changes/ }).click();
  await expect(page.getByRole('table', { name: 'Diff of retry.ts' }).getByRole('article', { name: /^Thread by/ })).toBeVisible();
  await page.mouse.move(0, 0);
  await shoot(page, 'reviews');
});
