import { create } from 'zustand';
import { ApiCallError, apiOk, bridge, type Bridge } from '../bridge';
import { positionLine, type DiffLine } from '../../../shared/diff-lines';
import { createListStore } from './list';
import { useProject } from './project';

interface UserRef {
  id: number;
  username: string;
  name: string;
}

/** GitLab's merge request entity (the fields this workspace uses). */
export interface MergeRequest {
  id: number;
  iid: number;
  project_id: number;
  title: string;
  description: string | null;
  state: string;
  author: UserRef;
  source_branch: string;
  target_branch: string;
  updated_at: string;
  web_url: string;
  diff_refs: { base_sha: string; head_sha: string; start_sha: string } | null;
}

/** A text position on a file of the diff (GitLab's Gitlab::Diff::Position). */
export interface TextPosition {
  base_sha: string;
  start_sha: string;
  head_sha: string;
  position_type: 'text';
  old_path: string;
  new_path: string;
  old_line: number | null;
  new_line: number | null;
}

/** Entities::Diff: one file of a merge request's changes (GET .../merge_requests/:iid/diffs). */
export interface FileDiff {
  old_path: string;
  new_path: string;
  a_mode: string;
  b_mode: string;
  diff: string;
  new_file: boolean;
  renamed_file: boolean;
  deleted_file: boolean;
  generated_file?: boolean | null;
  too_large?: boolean;
  collapsed?: boolean;
}

/** The merge request's changes as the Changes tab shows them. */
export type Changes =
  | { state: 'loading' }
  | { state: 'ready'; files: FileDiff[] }
  /** No diff to show: the merge request has no commits yet, or the service keeps no diff for it. */
  | { state: 'none'; why: string }
  | { state: 'error'; message: string };

export interface Note {
  id: number;
  type?: string | null;
  body: string;
  author: UserRef;
  created_at: string;
  resolvable: boolean;
  resolved: boolean;
  system: boolean;
  position?: TextPosition | null;
}

export interface Discussion {
  id: string;
  individual_note: boolean;
  notes: Note[];
}

/** GitLab's draft note entity: a comment of the caller's pending review. */
export interface DraftNote {
  id: number;
  note: string;
  discussion_id: string | null;
  resolve_discussion: boolean;
  position: TextPosition | null;
  line_code: string | null;
}

/** Columns the API orders merge requests by. */
export const MR_SORTS = ['created_at', 'updated_at', 'title'];

export const mergeRequestList = createListStore<MergeRequest>(
  (q) => {
    const project = useProject.getState().project;
    if (!project) return null;
    const { state } = useReviews.getState();
    return {
      method: 'GET',
      path: `/projects/${project.id}/merge_requests`,
      query: {
        state,
        search: q.filter || undefined,
        order_by: q.sort && MR_SORTS.includes(q.sort.id) ? q.sort.id : undefined,
        sort: q.sort ? (q.sort.desc ? 'desc' : 'asc') : undefined,
      },
    };
  },
  { sort: { id: 'updated_at', desc: true } },
);

const mrPath = (mr: { project_id: number; iid: number }): string => `/projects/${mr.project_id}/merge_requests/${mr.iid}`;

/** A file line a comment sits on: typed in (path and numbers), or clicked in the diff (with its line code). */
export interface LineRef {
  path: string;
  oldPath?: string;
  oldLine: number | null;
  newLine: number | null;
  /** Clicked lines: Gitlab::Git.diff_line_code and the line's type ('new', 'old', null for unchanged). */
  lineCode?: string;
  lineType?: 'new' | 'old' | null;
}

/** A new draft: the note, and where it sits (a typed or clicked file line, or a thread it answers). */
export interface NewDraft {
  note: string;
  position?: LineRef;
  inReplyTo?: string;
}

/**
 * A merge request's whole diff: every page of GET .../diffs (GitLab pages it; X-Next-Page is empty
 * on the last page).
 */
export async function loadChanges(b: Bridge, mr: { project_id: number; iid: number }): Promise<FileDiff[]> {
  const files: FileDiff[] = [];
  let page = 1;
  for (;;) {
    const res = await apiOk<FileDiff[]>(b, { method: 'GET', path: `${mrPath(mr)}/diffs`, query: { page, per_page: 100 } });
    files.push(...res.body);
    const next = Number(res.headers['x-next-page'] || 0);
    if (!next || next <= page || res.body.length === 0) return files;
    page = next;
  }
}

/**
 * GitLab's text position for a line of the merge request's current diff. A clicked line also
 * carries its line code in line_range (start and end: a one-line range), as GitLab's own UI sends it.
 */
export function textPosition(refs: NonNullable<MergeRequest['diff_refs']>, line: LineRef): Record<string, unknown> {
  const position: Record<string, unknown> = {
    base_sha: refs.base_sha,
    start_sha: refs.start_sha,
    head_sha: refs.head_sha,
    position_type: 'text',
    old_path: line.oldPath ?? line.path,
    new_path: line.path,
    old_line: line.oldLine,
    new_line: line.newLine,
  };
  if (line.lineCode) {
    const end = { line_code: line.lineCode, type: line.lineType ?? null, old_line: line.oldLine, new_line: line.newLine };
    position.line_range = { start: end, end };
  }
  return position;
}

interface ReviewsState {
  state: 'opened' | 'merged' | 'closed' | 'all';
  mr: MergeRequest | null;
  discussions: Discussion[];
  drafts: DraftNote[];
  changes: Changes;
  loading: boolean;
  setState(state: ReviewsState['state']): Promise<void>;
  open(mr: MergeRequest): Promise<void>;
  close(): void;
  reload(): Promise<void>;
  addDraft(d: NewDraft): Promise<DraftNote>;
  updateDraft(id: number, note: string): Promise<void>;
  deleteDraft(id: number): Promise<void>;
  publishDraft(id: number): Promise<void>;
  submitReview(): Promise<number>;
  /** A thread on a diff line at once, without the pending review. */
  commentNow(body: string, line: LineRef): Promise<void>;
  reply(discussionId: string, body: string): Promise<void>;
  resolve(discussionId: string, resolved: boolean): Promise<void>;
}

export const useReviews = create<ReviewsState>((set, get) => {
  const current = (): MergeRequest => {
    const mr = get().mr;
    if (!mr) throw new Error('no merge request open');
    return mr;
  };
  const refsOf = (mr: MergeRequest): NonNullable<MergeRequest['diff_refs']> => {
    if (!mr.diff_refs?.head_sha) throw new Error('this merge request has no diff refs to place a comment on');
    return mr.diff_refs;
  };
  async function loadChangesOf(mr: MergeRequest): Promise<void> {
    let changes: Changes;
    try {
      const files = mr.diff_refs?.head_sha ? await loadChanges(bridge, mr) : [];
      if (files.length) changes = { state: 'ready', files };
      else if (!mr.diff_refs?.head_sha) changes = { state: 'none', why: `No diff: the source branch ${mr.source_branch} has no commits here.` };
      else changes = { state: 'none', why: `No changes: ${mr.source_branch} has nothing ${mr.target_branch} lacks.` };
    } catch (err) {
      // A service without merge request diffs (404) is not an error the user can act on.
      changes =
        err instanceof ApiCallError && err.status === 404
          ? { state: 'none', why: 'This service keeps no diff for this merge request.' }
          : { state: 'error', message: err instanceof Error ? err.message : String(err) };
    }
    if (get().mr?.id === mr.id) set({ changes });
  }
  return {
    state: 'opened',
    mr: null,
    discussions: [],
    drafts: [],
    changes: { state: 'loading' },
    loading: false,
    async setState(state) {
      set({ state });
      await mergeRequestList.getState().setPage(1);
    },
    async open(mr) {
      set({ mr, discussions: [], drafts: [], changes: { state: 'loading' }, loading: true });
      try {
        const full = (await apiOk<MergeRequest>(bridge, { method: 'GET', path: mrPath(mr) })).body;
        if (get().mr?.id !== mr.id) return;
        set({ mr: full });
        await Promise.all([get().reload(), loadChangesOf(full)]);
      } finally {
        set({ loading: false });
      }
    },
    close: () => set({ mr: null, discussions: [], drafts: [], changes: { state: 'loading' } }),
    async reload() {
      const mr = current();
      const [discussions, drafts] = await Promise.all([
        apiOk<Discussion[]>(bridge, { method: 'GET', path: `${mrPath(mr)}/discussions`, query: { per_page: 100 } }),
        apiOk<DraftNote[]>(bridge, { method: 'GET', path: `${mrPath(mr)}/draft_notes` }),
      ]);
      if (get().mr?.id === mr.id) set({ discussions: discussions.body, drafts: drafts.body });
    },
    async addDraft(d) {
      const mr = current();
      const body: Record<string, unknown> = { note: d.note };
      if (d.inReplyTo) body.in_reply_to_discussion_id = d.inReplyTo;
      if (d.position) body.position = textPosition(refsOf(mr), d.position);
      const made = (await apiOk<DraftNote>(bridge, { method: 'POST', path: `${mrPath(mr)}/draft_notes`, body })).body;
      await get().reload();
      return made;
    },
    async updateDraft(id, note) {
      await apiOk(bridge, { method: 'PUT', path: `${mrPath(current())}/draft_notes/${id}`, body: { note } });
      await get().reload();
    },
    async deleteDraft(id) {
      await apiOk(bridge, { method: 'DELETE', path: `${mrPath(current())}/draft_notes/${id}` });
      await get().reload();
    },
    async publishDraft(id) {
      await apiOk(bridge, { method: 'PUT', path: `${mrPath(current())}/draft_notes/${id}/publish` });
      await get().reload();
    },
    async submitReview() {
      const n = get().drafts.length;
      await apiOk(bridge, { method: 'POST', path: `${mrPath(current())}/draft_notes/bulk_publish` });
      await get().reload();
      return n;
    },
    async commentNow(body, line) {
      const mr = current();
      await apiOk(bridge, { method: 'POST', path: `${mrPath(mr)}/discussions`, body: { body, position: textPosition(refsOf(mr), line) } });
      await get().reload();
    },
    async reply(discussionId, body) {
      await apiOk(bridge, { method: 'POST', path: `${mrPath(current())}/discussions/${discussionId}/notes`, body: { body } });
      await get().reload();
    },
    async resolve(discussionId, resolved) {
      await apiOk(bridge, { method: 'PUT', path: `${mrPath(current())}/discussions/${discussionId}`, body: { resolved } });
      await get().reload();
    },
  };
});

/** "path:line" for a positioned note or draft. */
export function positionLabel(p: TextPosition | null | undefined): string | null {
  if (!p) return null;
  const line = p.new_line ?? p.old_line;
  return line === null ? p.new_path : `${p.new_path}:${line}${p.new_line === null ? ' (old)' : ''}`;
}

/** The line of this file of the current diff a note or draft sits on; undefined when it is elsewhere or outdated. */
export function lineOfPosition(p: TextPosition | null | undefined, file: FileDiff, lines: DiffLine[], headSha: string | null | undefined): DiffLine | undefined {
  if (!p || p.position_type !== 'text' || !headSha || p.head_sha !== headSha || p.new_path !== file.new_path) return undefined;
  return positionLine(lines, p.old_line, p.new_line);
}

/** Gitlab::Git.diff_line_code for a line of a file: `<sha1 of the path>_<old>_<new>`. */
export async function lineCode(path: string, oldPos: number, newPos: number): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-1', new TextEncoder().encode(path)));
  const hex = Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex}_${oldPos}_${newPos}`;
}
