import type { SpamLogRow } from './spam';

/** A spam log as the admin list shows it (the columns of GitLab's spam_logs). */
export const spamLog = (row: SpamLogRow) => ({
  id: row.id,
  user_id: row.user_id,
  noteable_type: row.noteable_type,
  title: row.title,
  description: row.description,
  source_ip: row.source_ip,
  user_agent: row.user_agent,
  via_api: !!row.via_api,
  recaptcha_verified: !!row.recaptcha_verified,
  submitted_as_ham: !!row.submitted_as_ham,
  created_at: row.created_at,
  updated_at: row.updated_at,
});
