import { expect, test } from '@playwright/test';
import { api, connect, pickProject, readClipboard, screenshot, watchProblems } from './helpers';

// A 1x1 PNG, so the preview has a real image to show.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

test('Uploads: pick files, watch them go up, copy the Markdown, preview, download and delete', async ({ page, baseURL, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const problems = watchProblems(page);
  const project = (await api(baseURL!, 'POST', '/projects', { name: 'Upload Home' })).body;
  await connect(page, 'uploads');
  await pickProject(page, 'root/upload-home');
  await expect(page.getByRole('table', { name: 'Uploads' })).toContainText('No uploads in this project yet.');

  const big = Buffer.alloc(3 * 1024 * 1024, 'x');
  await page.getByLabel('Files to upload').setInputFiles([
    { name: 'diagram.png', mimeType: 'image/png', buffer: PNG },
    { name: 'big-log.txt', mimeType: 'text/plain', buffer: big },
  ]);
  const queue = page.getByRole('region', { name: 'Upload progress' });
  await expect(queue.getByTestId('queued-upload')).toHaveCount(2);
  await expect(queue.getByLabel('Upload of big-log.txt')).toHaveJSProperty('value', big.length, { timeout: 30_000 });
  await expect(queue).toContainText('3.0 MB / 3.0 MB');

  const table = page.getByRole('table', { name: 'Uploads' });
  const row = table.getByRole('row', { name: /diagram\.png/ });
  await expect(row).toContainText('Administrator');
  await expect(row).toContainText(`${PNG.length} B`);
  await expect(row.getByRole('img', { name: 'Preview of diagram.png' })).toHaveAttribute('src', /^data:image\/png;base64,/);
  await expect(table.getByRole('row', { name: /big-log\.txt/ })).toContainText('3.0 MB');

  // The Markdown copied is the API's own, from the queue and from the list alike.
  const [listed] = (await api<any[]>(baseURL!, 'GET', `/projects/${project.id}/uploads?per_page=1`)).body;
  const link = (await api(baseURL!, 'GET', `/projects/${project.id}/sandlab/uploads/${listed.id}`)).body;
  await queue.getByRole('button', { name: 'Copy Markdown for diagram.png' }).click();
  expect(await readClipboard(page)).toMatch(/^!\[diagram\]\(\/uploads\/[0-9a-f]+\/diagram\.png\)$/);
  await table.getByRole('button', { name: 'Copy Markdown for big-log.txt' }).click();
  expect(await readClipboard(page)).toBe(link.markdown);
  expect(link.markdown).toMatch(/^\[big-log\.txt\]\(\/uploads\/[0-9a-f]+\/big-log\.txt\)$/);
  await screenshot(page, 'uploads');

  const downloading = page.waitForEvent('download');
  await row.getByRole('button', { name: 'Download diagram.png' }).click();
  const file = await downloading;
  expect(file.suggestedFilename()).toBe('diagram.png');

  await row.getByRole('button', { name: 'Delete' }).click();
  await row.getByRole('button', { name: 'Delete diagram.png' }).click();
  await expect(table.getByRole('row', { name: /diagram\.png/ })).toHaveCount(0);
  expect((await api<any[]>(baseURL!, 'GET', `/projects/${project.id}/uploads`)).body.map((u) => u.filename)).toEqual(['big-log.txt']);
  expect(problems).toEqual([]);
});

test('Uploads: a dropped file goes up too', async ({ page, baseURL }) => {
  const project = (await api(baseURL!, 'POST', '/projects', { name: 'Drop Home' })).body;
  await connect(page, 'uploads');
  await pickProject(page, 'root/drop-home');
  // Runs in the page: a DataTransfer holding one file, as a drag from the desktop brings it.
  const drop = await page.evaluateHandle(() => {
    const w = globalThis as unknown as { DataTransfer: new () => { items: { add(f: unknown): void } }; File: new (parts: string[], name: string, o: object) => unknown };
    const dt = new w.DataTransfer();
    dt.items.add(new w.File(['dropped text'], 'dropped.md', { type: 'text/markdown' }));
    return dt;
  });
  await page.getByTestId('drop-zone').dispatchEvent('drop', { dataTransfer: drop });
  await expect(page.getByRole('table', { name: 'Uploads' }).getByRole('row', { name: /dropped\.md/ })).toContainText('12 B');
  expect((await api<any[]>(baseURL!, 'GET', `/projects/${project.id}/uploads`)).body.map((u) => u.filename)).toEqual(['dropped.md']);
});
