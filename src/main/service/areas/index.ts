import type { Migration } from '../db/migrations';
import type { ServiceContext } from '../context';
import type { Router } from '../http/route';
import { coreArea } from './core';
import { snippetsArea } from './snippets';
import { uploadsArea } from './uploads';
import { badgesArea } from './badges';

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
export const areas: Area[] = [coreArea, snippetsArea, uploadsArea, badgesArea];
