import type { ApiRequest, JobProgressEvent } from '../../../shared/ipc';
import type { Bridge } from '../bridge';
import type { IconName } from '../components/Icon';
import { SettingsWorkspace } from './settings/SettingsWorkspace';
import { MigrationsWorkspace } from './migrations/MigrationsWorkspace';
import { readMigrationJobs } from '../stores/migrations';
import { SnippetsWorkspace } from './snippets/SnippetsWorkspace';
import { UploadsWorkspace } from './uploads/UploadsWorkspace';
import { ReviewsWorkspace } from './reviews/ReviewsWorkspace';
import { ImportsWorkspace } from './imports/ImportsWorkspace';
import { readImportJobs } from './imports/store';

/**
 * A workspace of the shell. To add one: write `workspaces/<id>/<Name>Workspace.tsx` and add a line
 * to WORKSPACES below, in sidebar order.
 */
export interface WorkspaceDef {
  /** The URL fragment (`#/<id>`). */
  id: string;
  /** The sidebar link's name. */
  label: string;
  icon: IconName;
  Component: () => React.JSX.Element;
  /** Works inside the header's current project (the workspace says so when none is chosen). */
  usesProject?: boolean;
  /**
   * Listed only when this request answers anything but 404, i.e. when the service has the API
   * the workspace drives (a 405 means the path exists with another method). Omit: always listed.
   */
  requires?: ApiRequest;
  /**
   * In a browser there is no push channel for job progress: the status bar reads running jobs
   * through this (every few seconds) for workspaces that own jobs.
   */
  readJobs?: (bridge: Bridge) => Promise<JobProgressEvent[]>;
}

export const WORKSPACES: WorkspaceDef[] = [
  { id: 'snippets', label: 'Snippets', icon: 'snippets', Component: SnippetsWorkspace, usesProject: true },
  { id: 'uploads', label: 'Uploads', icon: 'uploads', Component: UploadsWorkspace, usesProject: true },
  { id: 'reviews', label: 'Reviews', icon: 'reviews', Component: ReviewsWorkspace, usesProject: true },
  {
    id: 'migrations',
    label: 'Migrations',
    icon: 'migrations',
    Component: MigrationsWorkspace,
    // Hidden while the `bulk_import_enabled` setting is off (the API answers 404 then).
    requires: { method: 'GET', path: '/bulk_imports', query: { per_page: 1 } },
    readJobs: readMigrationJobs,
  },
  {
    id: 'imports',
    label: 'Imports',
    icon: 'imports',
    Component: ImportsWorkspace,
    // POST-only: a GET answers 405 where the import API exists.
    requires: { method: 'GET', path: '/import/github' },
    readJobs: readImportJobs,
  },
  { id: 'settings', label: 'Settings', icon: 'settings', Component: SettingsWorkspace },
];

export const DEFAULT_WORKSPACE = WORKSPACES[0].id;
