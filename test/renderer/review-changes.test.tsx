import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import type { ApiRequest } from '../../src/shared/ipc';
import { fakeBridge, type FakeAnswer } from './fake-bridge';

// The workspace talks to the one app bridge: here, a fake that answers as GitLab does.
const server = vi.hoisted(() => ({ answer: (_req: unknown): unknown => ({ status: 404, body: { message: '404 Not Found' } }) }));
vi.mock('../../src/renderer/src/bridge', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/renderer/src/bridge')>();
  const { fakeBridge: make } = await import('./fake-bridge');
  return { ...real, bridge: make((req) => server.answer(req) as FakeAnswer) };
});

const { bridge } = await import('../../src/renderer/src/bridge');
const { ReviewsWorkspace } = await import('../../src/renderer/src/workspaces/reviews/ReviewsWorkspace');
const { useProject } = await import('../../src/renderer/src/stores/project');
const { useReviews, loadChanges } = await import('../../src/renderer/src/stores/reviews');
const requests = (bridge as ReturnType<typeof fakeBridge>).requests;

const refs = { base_sha: 'b'.repeat(40), start_sha: 's'.repeat(40), head_sha: 'h'.repeat(40) };
const user = { id: 1, username: 'root', name: 'Administrator' };
const mr = {
  id: 7,
  iid: 3,
  project_id: 5,
  title: 'Retry the upload',
  description: null,
  state: 'opened',
  author: user,
  source_branch: 'retry',
  target_branch: 'main',
  updated_at: '2026-11-26T04:00:00Z',
  web_url: 'http://x/root/p/-/merge_requests/3',
  diff_refs: refs,
};
const fileDiff = (old_path: string, new_path: string, diff: string, extra: object = {}) => ({
  old_path,
  new_path,
  a_mode: '100644',
  b_mode: '100644',
  diff,
  new_file: false,
  renamed_file: old_path !== new_path,
  deleted_file: false,
  generated_file: false,
  ...extra,
});
const deploy = fileDiff('deploy.sh', 'deploy.sh', '@@ -1,3 +1,4 @@\n #!/bin/sh\n-upload\n+retry upload\n+echo done\n exit 0\n');
const notes = fileDiff('NOTES.md', 'NOTES.md', '@@ -0,0 +1 @@\n+Retries three times.\n', { new_file: true, a_mode: '0' });
const threadOnLine = {
  id: 'abc',
  individual_note: false,
  notes: [
    {
      id: 11,
      type: 'DiffNote',
      body: 'Why not a loop?',
      author: user,
      created_at: '2026-11-26T04:00:00Z',
      resolvable: true,
      resolved: false,
      system: false,
      position: { ...refs, position_type: 'text', old_path: 'deploy.sh', new_path: 'deploy.sh', old_line: null, new_line: 2 },
    },
  ],
};
// Made on an earlier version of the changes: it stays in the overview, marked outdated.
const outdatedThread = {
  id: 'old',
  individual_note: false,
  notes: [{ ...threadOnLine.notes[0], id: 12, body: 'Was line 2 meant?', position: { ...threadOnLine.notes[0].position, head_sha: 'f'.repeat(40) } }],
};
const sha1 = (s: string) => createHash('sha1').update(s).digest('hex');

function gitlab(diffPages: unknown[][]) {
  return (req: ApiRequest): FakeAnswer => {
    const base = `/projects/5/merge_requests/3`;
    if (req.path === '/projects/5/merge_requests') return { headers: { 'x-total': '1', 'x-next-page': '' }, body: [mr] };
    if (req.path === base) return { body: mr };
    if (req.path === `${base}/discussions` && req.method === 'GET') return { body: [threadOnLine, outdatedThread] };
    if (req.path === `${base}/draft_notes` && req.method === 'GET') return { body: [] };
    if (req.path === `${base}/diffs`) {
      const page = Number(req.query?.page ?? 1);
      return { headers: { 'x-page': String(page), 'x-next-page': page < diffPages.length ? String(page + 1) : '' }, body: diffPages[page - 1] ?? [] };
    }
    if (req.path === '/markdown') return { status: 201, body: { html: `<p>${String((req.body as { text: string }).text)}</p>` } };
    if (req.method === 'POST') return { status: 201, body: { id: 99, note: 'x' } };
    return { status: 404, body: { message: '404 Not Found' } };
  };
}

async function openChanges(diffPages: unknown[][]) {
  server.answer = gitlab(diffPages) as (req: unknown) => unknown;
  useProject.setState({ project: { id: 5, name: 'p', path_with_namespace: 'root/p' } });
  render(<ReviewsWorkspace />);
  await act(() => useReviews.getState().open(mr));
  fireEvent.click(screen.getByRole('tab', { name: /^Changes/ }));
}

beforeEach(() => {
  requests.length = 0;
  useReviews.getState().close();
});
afterEach(cleanup);

describe('Reviews: the Changes tab', () => {
  it('reads every page of the diff and shows each file with old and new line numbers', async () => {
    await openChanges([[deploy], [notes]]);
    expect(requests.filter((r) => r.path.endsWith('/diffs')).map((r) => r.query?.page)).toEqual([1, 2]);
    expect(screen.getByRole('tab', { name: /^Changes/ }).textContent).toBe('Changes2');
    const table = screen.getByRole('table', { name: 'Diff of deploy.sh' });
    const rows = within(table)
      .getAllByRole('row')
      .map((r) => Array.from(r.querySelectorAll('td.ln'), (td) => td.textContent).join('|') + ' ' + (r.querySelector('td.code')?.textContent ?? ''));
    expect(rows).toContain('| @@ -1,3 +1,4 @@');
    expect(rows).toContain('2| -upload');
    expect(rows).toContain('|2 +retry upload');
    expect(rows).toContain('3|4  exit 0');
    expect(screen.getByRole('region', { name: 'Changes to NOTES.md' }).textContent).toContain('new file');
  });

  it('shows a thread positioned on a diff line under that line, not in the overview; one from an older version stays there, outdated', async () => {
    await openChanges([[deploy]]);
    const table = screen.getByRole('table', { name: 'Diff of deploy.sh' });
    const thread = within(table).getByRole('article', { name: 'Thread by Administrator' });
    const lineRow = thread.closest('tr')!.previousElementSibling!;
    expect(lineRow.textContent).toContain('retry upload');
    expect(within(table).getAllByRole('article', { name: 'Thread by Administrator' })).toHaveLength(1);
    fireEvent.click(screen.getByRole('tab', { name: 'Overview' }));
    const left = screen.getAllByRole('article', { name: 'Thread by Administrator' });
    expect(left.map((a) => a.textContent?.includes('Was line 2 meant?'))).toEqual([true]);
    expect(left[0].querySelector('.note-head')?.textContent).toBe('deploy.sh:2outdated');
    expect(screen.getByText(/1 thread on lines of the/)).toBeTruthy();
  });

  it('a click on an added line drafts a note with a GitLab text position and its line code', async () => {
    await openChanges([[deploy]]);
    fireEvent.click(screen.getByRole('button', { name: 'Comment on deploy.sh line 3' }));
    const form = await screen.findByRole('form', { name: 'Comment on deploy.sh line 3' });
    fireEvent.change(within(form).getByRole('textbox', { name: 'Line comment' }), { target: { value: 'Say what is done' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Add to review' }));
    await waitFor(() => expect(requests.some((r) => r.method === 'POST' && r.path.endsWith('/draft_notes'))).toBe(true));
    const post = requests.find((r) => r.method === 'POST' && r.path.endsWith('/draft_notes'))!;
    const end = { line_code: `${sha1('deploy.sh')}_3_3`, type: 'new', old_line: null, new_line: 3 };
    expect(post.body).toEqual({
      note: 'Say what is done',
      position: { ...refs, position_type: 'text', old_path: 'deploy.sh', new_path: 'deploy.sh', old_line: null, new_line: 3, line_range: { start: end, end } },
    });
  });

  it('a removed line is commented by its old number, and "Comment now" starts a thread at once', async () => {
    await openChanges([[deploy]]);
    fireEvent.click(screen.getByRole('button', { name: 'Comment on deploy.sh old line 2' }));
    const form = await screen.findByRole('form', { name: 'Comment on deploy.sh old line 2' });
    fireEvent.change(within(form).getByRole('textbox', { name: 'Line comment' }), { target: { value: 'Keep this?' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Comment now' }));
    await waitFor(() => expect(requests.some((r) => r.method === 'POST' && r.path.endsWith('/discussions'))).toBe(true));
    const post = requests.find((r) => r.method === 'POST' && r.path.endsWith('/discussions'))!;
    expect(post.body).toMatchObject({
      body: 'Keep this?',
      position: { old_line: 2, new_line: null, line_range: { start: { line_code: `${sha1('deploy.sh')}_2_2`, type: 'old', old_line: 2, new_line: null } } },
    });
    await waitFor(() => expect(screen.queryByRole('form', { name: 'Comment on deploy.sh old line 2' })).toBeNull());
  });

  it('without a diff on the service, says so and keeps the typed file line in the overview', async () => {
    server.answer = ((req: ApiRequest) => (req.path.endsWith('/diffs') ? { status: 404, body: { message: '404 Not Found' } } : gitlab([])(req))) as (req: unknown) => unknown;
    useProject.setState({ project: { id: 5, name: 'p', path_with_namespace: 'root/p' } });
    render(<ReviewsWorkspace />);
    await act(() => useReviews.getState().open(mr));
    expect(screen.getByLabelText('File path')).toBeTruthy();
    fireEvent.click(screen.getByRole('tab', { name: 'Changes' }));
    expect(screen.getByText('This service keeps no diff for this merge request.')).toBeTruthy();
  });

  it('loadChanges reads one page when the server sends no X-Next-Page', async () => {
    server.answer = ((req: ApiRequest) => ({ body: req.query?.page === 1 ? [deploy] : [notes] })) as (req: unknown) => unknown;
    const files = await loadChanges(bridge, mr);
    expect(files.map((f) => f.new_path)).toEqual(['deploy.sh']);
  });
});
