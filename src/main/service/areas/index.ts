import type { Migration } from '../db/migrations';
import type { ServiceContext } from '../context';
import type { Router } from '../http/route';
import { coreArea } from './core';
import { eventsArea } from './events';
import { notificationSettingsArea } from './notification_settings';
import { accessRequestsArea } from './access_requests';
import { invitationsArea } from './invitations';
import { discussionsArea } from './discussions';
import { draftNotesArea } from './draft_notes';
import { alertsArea } from './alerts';
import { errorTrackingArea } from './error_tracking';
import { serviceAccountsArea } from './service_accounts';
import { samlArea } from './saml';
import { labelsArea } from './labels';
import { epicsArea } from './epics';
import { snippetsArea } from './snippets';
import { awardEmojiArea } from './award_emoji';
import { ciVariablesArea } from './ci_variables';
import { uploadsArea } from './uploads';
import { badgesArea } from './badges';
import { jobTokenScopeArea } from './job_token_scope';
import { featureFlagsArea } from './feature_flags';
import { bulkImportsArea } from './bulk_imports';
import { ciLintArea } from './ci_lint';
import { markdownArea } from './markdown';
import { importsArea } from './imports';
import { applicationSettingsArea } from './application_settings';
import { spamArea } from './spam';
import { repositoriesArea } from './repositories';
import { sidekiqMetricsArea } from './sidekiq_metrics';

/** An API area: its tables, its routes, and anything it resumes when the service starts. */
export interface Area {
  name: string;
  migrations: Migration[];
  register(router: Router, svc: ServiceContext): void;
  /** Runs once the database is open (resume jobs, install hooks such as `resolveJobToken`). */
  start?(svc: ServiceContext): void | Promise<void>;
  /** Runs before the database closes. */
  stop?(svc: ServiceContext): void | Promise<void>;
}

/** Every area, core first. Add a line here to plug in a new one. */
export const areas: Area[] = [
  coreArea,
  eventsArea,
  notificationSettingsArea,
  accessRequestsArea,
  invitationsArea,
  discussionsArea,
  draftNotesArea,
  alertsArea,
  errorTrackingArea,
  serviceAccountsArea,
  samlArea,
  labelsArea,
  epicsArea,
  snippetsArea,
  awardEmojiArea,
  ciVariablesArea,
  uploadsArea,
  badgesArea,
  jobTokenScopeArea,
  featureFlagsArea,
  ciLintArea,
  markdownArea,
  applicationSettingsArea,
  spamArea,
  importsArea,
  bulkImportsArea,
  repositoriesArea,
  sidekiqMetricsArea,
];
