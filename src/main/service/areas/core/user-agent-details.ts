import type { ServiceContext } from '../../context';
import type { RequestContext } from '../../http/route';
import { isoTime } from './time';

/**
 * GitLab's user_agent_details for issues: the User-Agent and IP of the request that created the
 * issue (UserAgentDetailService, from Issues::CreateService#after_create), read by the admin-only
 * GET /projects/:id/issues/:issue_iid/user_agent_detail. A request without a User-Agent keeps none
 * (GitLab skips the record when spam_params lack one): that issue answers "404 UserAgentDetail Not Found".
 */
export const issueUserAgentDetailsMigration = {
  name: 'core/157_issue_user_agent_details',
  sql: `
CREATE TABLE issue_user_agent_details (
  issue_id INTEGER PRIMARY KEY REFERENCES issues(id) ON DELETE CASCADE,
  user_agent TEXT NOT NULL,
  ip_address TEXT NOT NULL,
  submitted INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL
);
`,
};

export interface IssueUserAgentDetailRow {
  issue_id: number;
  user_agent: string;
  ip_address: string;
  submitted: number;
  created_at: string;
}

/** Records the creating request's User-Agent and IP for a new issue (inside its transaction). */
export function recordIssueUserAgent(rc: RequestContext, issueId: number): void {
  const header = rc.req.headers['user-agent'];
  const userAgent = (Array.isArray(header) ? header[0] : header) ?? '';
  const ip = rc.req.ip ?? '';
  if (!userAgent || !ip) return;
  rc.svc.db
    .prepare('INSERT INTO issue_user_agent_details (issue_id, user_agent, ip_address, created_at) VALUES (?, ?, ?, ?)')
    .run(issueId, userAgent, ip, isoTime(rc.svc.now()));
}

export function findIssueUserAgentDetail(svc: ServiceContext, issueId: number): IssueUserAgentDetailRow | undefined {
  return svc.db.prepare('SELECT * FROM issue_user_agent_details WHERE issue_id = ?').get(issueId) as IssueUserAgentDetailRow | undefined;
}
