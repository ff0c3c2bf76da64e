import type { Migration } from '../db/migrations';
import type { ServiceContext } from '../context';
import type { Router } from '../http/route';
import { coreArea } from './core';
import { jobTokenScopeArea } from './job_token_scope';
import { featureFlagsArea } from './feature_flags';
import { ciLintArea } from './ci_lint';

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
export const areas: Area[] = [coreArea, jobTokenScopeArea, featureFlagsArea, ciLintArea];
