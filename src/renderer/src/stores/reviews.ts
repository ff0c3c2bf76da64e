import { create } from 'zustand';
import { apiOk, bridge } from '../bridge';
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

export interface Note {
  id: number;
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

/** A new draft: the note, and where it sits (a typed or clicked file line, or a thread it answers). */
export interface NewDraft {
  note: string;
  position?: { path: string; oldLine: number | null; newLine: number | null; oldPath?: string };
  inReplyTo?: string;
}

interface ReviewsState {
  state: 'opened' | 'merged' | 'closed' | 'all';
  mr: MergeRequest | null;
  discussions: Discussion[];
  drafts: DraftNote[];
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
  reply(discussionId: string, body: string): Promise<void>;
  resolve(discussionId: string, resolved: boolean): Promise<void>;
}

export const useReviews = create<ReviewsState>((set, get) => {
  const current = (): MergeRequest => {
    const mr = get().mr;
    if (!mr) throw new Error('no merge request open');
    return mr;
  };
  return {
    state: 'opened',
    mr: null,
    discussions: [],
    drafts: [],
    loading: false,
    async setState(state) {
      set({ state });
      await mergeRequestList.getState().setPage(1);
    },
    async open(mr) {
      set({ mr, discussions: [], drafts: [], loading: true });
      try {
        const full = (await apiOk<MergeRequest>(bridge, { method: 'GET', path: mrPath(mr) })).body;
        if (get().mr?.id !== mr.id) return;
        set({ mr: full });
        await get().reload();
      } finally {
        set({ loading: false });
      }
    },
    close: () => set({ mr: null, discussions: [], drafts: [] }),
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
      if (d.position) {
        const refs = mr.diff_refs;
        if (!refs) throw new Error('this merge request has no diff refs to place a comment on');
        body.position = {
          ...refs,
          position_type: 'text',
          old_path: d.position.oldPath ?? d.position.path,
          new_path: d.position.path,
          old_line: d.position.oldLine,
          new_line: d.position.newLine,
        };
      }
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
