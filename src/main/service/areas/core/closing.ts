import type { ServiceContext } from '../../context';
import type { MergeRequestRow } from './entities';
import { findNamespaceByFullPath } from './namespaces';
import { isoTime } from './time';

/** An issue reference: `#12`, `group/project#12`, or an issue URL. */
const ISSUE_REF = String.raw`(?:(?:[\w.-]+(?:/[\w.-]+)+)?#\d+|https?://\S+?/-/issues/\d+)`;

/**
 * GitLab's default closing pattern (Gitlab::ClosingIssueExtractor): Close(s/d/ing), Fix(es/ed/ing),
 * Resolve(s/d/ing), Implement(s/ed/ing), optionally "issue(s)", then references joined by commas or "and".
 */
const CLOSING = new RegExp(
  String.raw`\b(?:[Cc]los(?:e[sd]?|ing)|[Ff]ix(?:e[sd]|ing)?|[Rr]esolv(?:e[sd]?|ing)|[Ii]mplement(?:s|ed|ing)?):? +(?:issues? +)?(${ISSUE_REF}(?:(?: *,? +and +| *,? *)${ISSUE_REF})*)`,
  'g',
);

interface IssueReference {
  /** Full path of the project named, or null for this project. */
  projectPath: string | null;
  iid: number;
}

function parseReference(ref: string): IssueReference {
  const url = /^https?:\/\/[^/]+\/(.+)\/-\/issues\/(\d+)$/.exec(ref);
  if (url) return { projectPath: url[1], iid: Number(url[2]) };
  const [path, iid] = ref.split('#');
  return { projectPath: path || null, iid: Number(iid) };
}

/** The issue references an MR description closes. */
export function closingReferences(text: string | null): IssueReference[] {
  if (!text) return [];
  const out: IssueReference[] = [];
  for (const m of text.matchAll(CLOSING)) {
    for (const ref of m[1].match(new RegExp(ISSUE_REF, 'g')) ?? []) out.push(parseReference(ref));
  }
  return out;
}

/** Issue ids a text mentions at all (`#12`, `group/project#12`), resolved against `projectId`. */
export function referencedIssueIds(svc: ServiceContext, projectId: number, text: string | null): number[] {
  if (!text) return [];
  return resolveIssues(svc, projectId, (text.match(new RegExp(ISSUE_REF, 'g')) ?? []).map(parseReference));
}

function resolveIssues(svc: ServiceContext, projectId: number, refs: IssueReference[]): number[] {
  const ids = new Set<number>();
  for (const ref of refs) {
    let pid: number | undefined = projectId;
    if (ref.projectPath) {
      const slash = ref.projectPath.lastIndexOf('/');
      const ns = findNamespaceByFullPath(svc, ref.projectPath.slice(0, slash));
      pid = ns
        ? (svc.db.prepare('SELECT id FROM projects WHERE namespace_id = ? AND lower(path) = lower(?)').get(ns.id, ref.projectPath.slice(slash + 1)) as { id: number } | undefined)?.id
        : undefined;
    }
    if (pid === undefined) continue;
    const issue = svc.db.prepare('SELECT id FROM issues WHERE project_id = ? AND iid = ?').get(pid, ref.iid) as { id: number } | undefined;
    if (issue) ids.add(issue.id);
  }
  return [...ids];
}

/**
 * MergeRequest#cache_merge_request_closes_issues!: an open merge request's closing issues follow
 * its description. Call inside a transaction after a create or update.
 */
export function refreshClosingIssues(svc: ServiceContext, mr: MergeRequestRow): void {
  if (mr.state !== 'opened') return;
  svc.db.prepare('DELETE FROM merge_requests_closing_issues WHERE merge_request_id = ?').run(mr.id);
  const insert = svc.db.prepare('INSERT OR IGNORE INTO merge_requests_closing_issues (merge_request_id, issue_id, created_at) VALUES (?, ?, ?)');
  const now = isoTime(svc.now());
  for (const issueId of resolveIssues(svc, mr.project_id, closingReferences(mr.description))) insert.run(mr.id, issueId, now);
}
