import { expect, test } from '@playwright/test';
import { api, connect, pickProject, screenshot, watchProblems } from './helpers';

test('Snippets: create a multi-file snippet, edit it, read a past revision and the change, then delete it', async ({ page, baseURL }) => {
  const problems = watchProblems(page);
  const project = (await api(baseURL!, 'POST', '/projects', { name: 'Snippet Home' })).body;
  await connect(page, 'snippets');
  await pickProject(page, 'root/snippet-home');
  await expect(page.getByRole('table', { name: 'Project snippets' })).toContainText('No snippets yet');

  // New snippet: two files in tabs, typed into the code editor.
  await page.getByRole('button', { name: 'New snippet' }).click();
  const form = page.getByRole('form', { name: 'Snippet editor' });
  await form.getByLabel('Title', { exact: true }).fill('Release helpers');
  await form.getByLabel('Visibility', { exact: true }).selectOption('internal');
  await form.getByLabel('File name', { exact: true }).fill('release.sh');
  await form.getByRole('textbox', { name: 'Content of release.sh' }).click();
  await page.keyboard.insertText('#!/bin/sh\necho "release $1"\n');
  await form.getByRole('button', { name: 'Add file' }).click();
  await form.getByLabel('File name', { exact: true }).fill('notes.md');
  await form.getByRole('textbox', { name: 'Content of notes.md' }).click();
  await page.keyboard.insertText('# Notes\n\nFirst draft.\n');
  await expect(form.getByRole('tab')).toHaveText(['release.sh', 'notes.md']);
  await page.keyboard.press('Control+Enter');
  await expect(page.getByTestId('notice').filter({ hasText: 'Saved snippet “Release helpers”' })).toBeVisible();

  const [created] = (await api<any[]>(baseURL!, 'GET', `/projects/${project.id}/snippets`)).body;
  expect(created).toMatchObject({ title: 'Release helpers', visibility: 'internal', files: [{ path: 'notes.md' }, { path: 'release.sh' }] });
  const readRaw = async (ref: string, path: string) => (await api(baseURL!, 'GET', `/projects/${project.id}/snippets/${created.id}/files/${ref}/${path}/raw`)).body;
  expect(await readRaw('main', 'release.sh')).toBe('#!/bin/sh\necho "release $1"\n');

  // Edit: the shell script changes, the notes are renamed; highlighting follows the extension.
  const editor = page.getByRole('form', { name: 'Snippet editor' });
  await editor.getByRole('tab', { name: 'release.sh' }).click();
  await expect(page.locator('.code-editor')).toHaveAttribute('data-language', 'Shell');
  await editor.getByRole('textbox', { name: 'Content of release.sh' }).click();
  await page.keyboard.press('Control+End');
  await page.keyboard.insertText('echo "tagged v$1"\n');
  await editor.getByRole('tab', { name: 'notes.md' }).click();
  await editor.getByLabel('File name', { exact: true }).fill('NOTES.md');
  await editor.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByRole('table', { name: 'Revisions' }).getByRole('row')).toHaveCount(3);
  expect(await readRaw('main', 'release.sh')).toBe('#!/bin/sh\necho "release $1"\necho "tagged v$1"\n');
  expect((await api<any>(baseURL!, 'GET', `/projects/${project.id}/snippets/${created.id}`)).body.files.map((f: any) => f.path)).toEqual(['NOTES.md', 'release.sh']);

  // Raw view of the file as saved.
  await editor.getByRole('tab', { name: 'release.sh' }).click();
  await page.getByRole('button', { name: 'View raw' }).click();
  await expect(page.getByTestId('raw-text')).toHaveText('#!/bin/sh\necho "release $1"\necho "tagged v$1"\n');

  // The first revision, read back as it was, and the change between the two.
  const revisions = page.getByRole('table', { name: 'Revisions' });
  await revisions.getByRole('row').nth(2).getByRole('button', { name: /^Read revision/ }).click();
  const past = page.getByRole('region', { name: /^Revision / });
  await expect(past.getByLabel(/^release\.sh at /)).toHaveText('#!/bin/sh\necho "release $1"\n');
  await expect(past.getByLabel(/^notes\.md at /)).toHaveText('# Notes\n\nFirst draft.\n');
  await page.getByRole('button', { name: 'Show changes' }).click();
  const changes = page.getByRole('region', { name: 'Changes between the revisions' });
  await expect(changes).toContainText('NOTES.md added');
  await expect(changes).toContainText('notes.md removed');
  await expect(changes).toContainText('release.sh changed');
  await expect(changes.getByRole('textbox', { name: 'Changes in release.sh, after' })).toContainText('tagged v$1');
  await screenshot(page, 'snippets');

  // Delete asks first.
  await page.getByRole('button', { name: 'Delete snippet' }).click();
  await page.getByRole('button', { name: 'Yes, delete it' }).click();
  await expect(page.getByRole('table', { name: 'Project snippets' })).toContainText('No snippets yet');
  expect((await api(baseURL!, 'GET', `/projects/${project.id}/snippets/${created.id}`)).status).toBe(404);
  expect(problems).toEqual([]);
});

test('Snippets: personal snippets, and the API error shown as it came', async ({ page, baseURL }) => {
  await api(baseURL!, 'POST', '/snippets', { title: 'Mine', visibility: 'private', files: [{ file_path: 'a.py', content: 'print("hi")\n' }] });
  await connect(page, 'snippets');
  await page.getByRole('radio', { name: 'My snippets' }).check();
  await page.getByRole('table', { name: 'My snippets' }).getByText('Mine').click();
  const editor = page.getByRole('form', { name: 'Snippet editor' });
  await expect(editor.getByRole('textbox', { name: 'Content of a.py' })).toHaveText('print("hi")');
  await expect(page.locator('.code-editor')).toHaveAttribute('data-language', 'Python');
  await editor.getByLabel('Title', { exact: true }).fill('');
  await editor.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'title is empty' })).toBeVisible();
});
