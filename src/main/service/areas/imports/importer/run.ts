import type { ServiceContext } from '../../../context';
import type { JobContext } from '../../../jobs/runner';
import { type Project, findProjectById } from '../../core/projects';
import type { Page } from '../providers/providera';
import { type ImportSettings, type Provider, type ProjectImportRow, countObjects, findProjectImport, importSettings, insertFailure } from '../imports';
import { UserMap } from './users';

/**
 * One import as its stages see it: the project, its settings, the job (steps, cancel, progress),
 * and the users the upstream contributions map to.
 */
export class ImportRun {
  readonly settings: ImportSettings;
  readonly users: UserMap;

  constructor(
    readonly svc: ServiceContext,
    readonly job: JobContext<{ projectId: number }>,
    readonly row: ProjectImportRow,
    lookupEmail: ((key: string) => Promise<string | null>) | null,
  ) {
    this.settings = importSettings(row);
    this.users = new UserMap(svc, this.project, lookupEmail);
  }

  static load(svc: ServiceContext, job: JobContext<{ projectId: number }>, lookupEmail: ((key: string) => Promise<string | null>) | null = null): ImportRun {
    const row = findProjectImport(svc, job.payload.projectId);
    if (!row) throw new Error('The project of this import no longer exists.');
    return new ImportRun(svc, job, row, lookupEmail);
  }

  get projectId(): number {
    return this.row.project_id;
  }

  get provider(): Provider {
    return this.row.provider;
  }

  /** The project as it is now (iids, branches and names read from it). */
  get project(): Project {
    const p = findProjectById(this.svc, this.row.project_id);
    if (!p) throw new Error('The project of this import no longer exists.');
    return p;
  }

  optionalStage(name: string): boolean {
    return this.settings.optional_stages?.[name] === true;
  }

  /**
   * Reads a list page by page, each page one recorded job step (`<stage>:<n>`), so a resumed
   * import skips the pages it finished. `prepare` does the page's upstream lookups (users);
   * `each` writes one record and may throw: that record becomes a failure and the rest go on.
   */
  async eachPage<T>(opts: {
    stage: string;
    objectType: string;
    first: string;
    fetchPage: (url: string) => Promise<Page<T>>;
    prepare?: (items: T[]) => Promise<void>;
    each: (item: T) => 'imported' | 'skipped';
    /** Where a failed record was: its number or id upstream. */
    identify?: (item: T) => number | null;
  }): Promise<void> {
    let url: string | null = opts.first;
    for (let n = 1; url; n++) {
      const current: string = url;
      url = await this.job.step(`${opts.stage}:${n}`, async () => {
        const page = await opts.fetchPage(current);
        await opts.prepare?.(page.items);
        await this.importItems(opts.stage, opts.objectType, page.items, opts.each, opts.identify);
        return page.next;
      });
      this.job.progress({ message: `${opts.stage} (page ${n})` });
    }
  }

  /** Writes a batch of records, each in its own savepoint, in short transactions (`job.writeEach`). */
  async importItems<T>(stage: string, objectType: string, items: T[], each: (item: T) => 'imported' | 'skipped', identify?: (item: T) => number | null): Promise<void> {
    let imported = 0;
    await this.job.writeEach(
      items,
      (item) => {
        if (each(item) === 'imported') imported++;
      },
      {
        failed: (item, err) => this.recordFailure(stage, objectType, err, identify?.(item) ?? null),
        afterSlice: (slice) => {
          countObjects(this.svc, this.projectId, 'fetched', objectType, slice.length);
          countObjects(this.svc, this.projectId, 'imported', objectType, imported);
          imported = 0;
        },
      },
    );
  }

  /** A record (or a whole optimistic stage) that could not be imported; the import goes on. */
  recordFailure(stage: string, relation: string, err: unknown, index: number | null = null): void {
    const e = err instanceof Error ? err : new Error(String(err));
    insertFailure(this.svc, this.row, {
      source: stage,
      relationKey: relation,
      relationIndex: index,
      exceptionClass: e.constructor.name,
      message: e.message,
      recordFailure: true,
    });
  }
}
