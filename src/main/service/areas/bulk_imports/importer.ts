import { createHash } from 'node:crypto';
import type { ServiceContext } from '../../context';
import { ApiError } from '../../http/errors';
import { type JobContext, payloadOf } from '../../jobs/runner';
import { type User, findUserById } from '../core/users';
import {
  type BulkImportRow,
  ENTITY_JOB,
  type EntityRow,
  TOKEN_NEEDED,
  addFailure,
  entityTransition,
  findEntity,
  findImport,
  mappedId,
  recordCounts,
  recordMapping,
} from './bulk_imports';
import { GROUP_RELATIONS, PROJECT_RELATIONS } from './relations';
import { type Query, SourceClient, SourceError } from './source';
import { type SourceUser, UserMapper } from './users';

/**
 * The `bulk_import_entity` job: copies one group or project, relation by relation, each relation
 * a recorded job step (so a restart or a retry resumes after the last finished one). Inside a
 * relation every source record is copied in its own savepoint next to its `bulk_import_records`
 * row: one bad record becomes a failure record and the rest go on; a record copied before is
 * skipped. Only the entity's own record (the group or project) is fatal when it cannot be made.
 */

const DAY_MS = 24 * 60 * 60 * 1000;

/** A relation of an entity: its step/stats name, GitLab's pipeline class (failure records), its copy. */
export interface RelationName {
  name: string;
  pipeline: string;
}

export interface Relation extends RelationName {
  /** Skipped when false (memberships or projects not asked for). */
  when?: (r: EntityRun) => boolean;
  run(r: EntityRun): Promise<void>;
}

/** A failure with GitLab's exception class and pipeline step, thrown while copying one record. */
export class ImportError extends Error {
  constructor(
    message: string,
    readonly exceptionClass = 'BulkImports::Error',
    readonly step: 'extractor' | 'transformer' | 'loader' = 'transformer',
  ) {
    super(message);
  }
}

/** 32 hex digits per run of an entity, as GitLab's correlation ids look. */
export const correlationIdFor = (jobId: number, attempt: number): string =>
  createHash('md5').update(`${ENTITY_JOB}:${jobId}:${attempt}`).digest('hex');

/** Where a source record is, for the failures table: its web URL and its title. */
export interface RecordRef {
  url: string | null;
  title: string | null;
}

/** Everything a relation needs while one entity runs. */
export class EntityRun {
  readonly users: UserMapper;
  readonly correlationId: string;

  constructor(
    readonly svc: ServiceContext,
    readonly job: JobContext<{ entityId: number }>,
    public entity: EntityRow,
    readonly imp: BulkImportRow,
    readonly user: User,
    readonly source: SourceClient,
  ) {
    this.users = new UserMapper(svc, entity, source);
    this.correlationId = correlationIdFor(job.id, job.attempt);
  }

  refresh(): EntityRow {
    this.entity = findEntity(this.svc, this.entity.id)!;
    return this.entity;
  }

  /** The source's id of the entity's group or project (`/groups/:xid/...`). */
  get xid(): number {
    return this.entity.source_xid!;
  }

  mapped(relation: string, key: string | number): number | undefined {
    return mappedId(this.svc, this.imp.id, relation, key);
  }

  map(relation: string, key: string | number, destinationId: number, statsRelation: string | null = relation): void {
    recordMapping(this.svc, this.entity, relation, key, destinationId, statsRelation);
  }

  counts(relation: string, counts: { source?: number; fetched?: number }): void {
    recordCounts(this.svc, this.entity.id, relation, counts);
  }

  private readonly tallies = new Map<string, number>();

  /** Counts records of a relation that come inside others (notes of an issue) as fetched. */
  seen(relation: string, n: number): void {
    const total = (this.tallies.get(relation) ?? 0) + n;
    this.tallies.set(relation, total);
    this.counts(relation, { source: total, fetched: total });
  }

  /** The destination author of a source record: the matched user, else the one who migrates. */
  author(u: SourceUser | null | undefined): number {
    return this.users.known(u) ?? this.user.id;
  }

  /** Records a failure for one record (or a whole list); a cancel or shutdown is passed on. */
  fail(relation: RelationName | string, step: 'extractor' | 'transformer' | 'loader', err: unknown, record: RecordRef = { url: null, title: null }): void {
    if (this.job.signal.aborted) throw this.job.signal.reason;
    const { exceptionClass, message } = describe(err);
    addFailure(this.svc, this.entity.id, {
      relation: typeof relation === 'string' ? relation : relation.name,
      pipelineClass: typeof relation === 'string' ? 'BulkImports::Pipeline' : relation.pipeline,
      step: err instanceof ImportError ? err.step : step,
      exceptionClass,
      message,
      correlationId: this.correlationId,
      sourceUrl: record.url,
      sourceTitle: record.title,
    });
  }

  progress(relation: string, index: number, total: number): void {
    this.job.progress({ done: index, total, message: relation, detail: { entity_id: this.entity.id, relation } });
  }

  /**
   * Copies a source list: page by page (following the source's Link headers), skipping records
   * copied before, `prepare` fetching what the page's records need (threads, files, users), then
   * a savepoint per record in short transactions (`job.writeEach`: requests go on meanwhile). A list the source will not give is one
   * failure record (its URL as source_url); the entity goes on with its other relations.
   */
  async copyList<T>(
    relation: RelationName,
    path: string,
    query: Query,
    opts: {
      key: (item: T) => string | number;
      /** Records the list shows that belong elsewhere (a group's badge on a project): neither counted nor copied. */
      skip?: (item: T) => boolean;
      ref: (item: T) => RecordRef;
      prepare?: (items: T[]) => Promise<void>;
      write: (item: T) => number | null;
      /** A source that answers these statuses has no such list (an older or smaller instance): skip quietly. */
      absentOn?: number[];
      /** Where the counts go (default: the relation's name); null for lists that are not records (child entities). */
      statsRelation?: string | null;
    },
  ): Promise<void> {
    const stats = opts.statsRelation === undefined ? relation.name : opts.statsRelation;
    let fetched = 0;
    let total: number | null = null;
    const pages = this.source.pages<T>(path, query);
    try {
      // The next page is on its way while this one is prepared and written.
      let ahead = pages.next();
      for (;;) {
        const step = await ahead;
        if (step.done) break;
        const page = step.value;
        ahead = pages.next();
        ahead.catch(() => undefined); // a failure is met when it is awaited
        await this.job.checkpoint();
        const items = opts.skip ? page.items.filter((item) => !opts.skip!(item)) : page.items;
        total ??= opts.skip ? null : page.total;
        fetched += items.length;
        const todo = items.filter((item) => this.mapped(relation.name, opts.key(item)) === undefined);
        if (opts.prepare && todo.length) await opts.prepare(todo);
        await this.job.writeEach(
          todo,
          (item) => {
            const id = opts.write(item);
            if (id !== null) this.map(relation.name, opts.key(item), id, stats);
          },
          { failed: (item, err) => this.fail(relation, 'loader', err, opts.ref(item)) },
        );
        if (stats) this.counts(stats, { source: total ?? fetched, fetched });
      }
    } catch (err) {
      await pages.return(undefined).catch(() => undefined);
      if (this.job.signal.aborted) throw err;
      if (err instanceof SourceError && fetched === 0 && err.status !== null && opts.absentOn?.includes(err.status)) return;
      this.fail(relation, 'extractor', err, { url: this.source.apiUrl(path, query), title: relation.name });
    }
    if (stats) this.counts(stats, { source: total ?? fetched, fetched });
  }

  /** Every page of a source list, gathered (threads of one issue, notes of one epic). */
  async all<T>(path: string, query: Query = {}): Promise<T[]> {
    const out: T[] = [];
    for await (const page of this.source.pages<T>(path, query)) out.push(...page.items);
    return out;
  }
}

/** exception_class and exception_message of a failure, as GitLab names its errors. */
function describe(err: unknown): { exceptionClass: string; message: string } {
  if (err instanceof ImportError) return { exceptionClass: err.exceptionClass, message: err.message };
  if (err instanceof SourceError) return { exceptionClass: 'BulkImports::NetworkError', message: err.message };
  if (err instanceof ApiError) return { exceptionClass: 'ActiveRecord::RecordInvalid', message: validationMessage(err.body) };
  if (err instanceof Error) return { exceptionClass: err.name || 'StandardError', message: err.message };
  return { exceptionClass: 'StandardError', message: String(err) };
}

/** A validation answer as ActiveRecord words it: "Validation failed: Title can't be blank". */
function validationMessage(body: Record<string, unknown> | null): string {
  const m = body?.message ?? body?.error;
  if (typeof m === 'string') return m;
  if (Array.isArray(m)) return `Validation failed: ${m.join(', ')}`;
  if (m && typeof m === 'object') {
    const parts = Object.entries(m as Record<string, string[]>).flatMap(([k, v]) =>
      (Array.isArray(v) ? v : [String(v)]).map((msg) => `${k.charAt(0).toUpperCase()}${k.slice(1).replace(/_/g, ' ')} ${msg}`),
    );
    return `Validation failed: ${parts.join(', ')}`;
  }
  return 'Validation failed';
}

async function runEntity(svc: ServiceContext, job: JobContext<{ entityId: number }>): Promise<void> {
  const entity = findEntity(svc, job.payload.entityId);
  const imp = entity && findImport(svc, entity.bulk_import_id);
  if (!entity || !imp || imp.status === 'canceled') return;
  const user = findUserById(svc, imp.user_id);
  if (!user) throw new Error('The user who started this migration no longer exists.');
  // job.fetch attaches the job's signal: a cancel aborts the request under way.
  const source = new SourceClient(imp.source_url, job.secret(), (url, init) => job.fetch(url, init), job.signal);
  const run = new EntityRun(svc, job, entity, imp, user, source);
  const relations = entity.entity_type === 'group' ? GROUP_RELATIONS : PROJECT_RELATIONS;
  for (const [i, relation] of relations.entries()) {
    if (relation.when && !relation.when(run)) continue;
    run.progress(relation.name, i, relations.length);
    await job.step(relation.name, () => relation.run(run));
    run.refresh();
  }
  run.progress('done', relations.length, relations.length);
}

/** Defines the entity job on the service's runner (the area's start). */
export function defineEntityJob(svc: ServiceContext): void {
  svc.jobs.define<{ entityId: number }>({
    kind: ENTITY_JOB,
    secretMissingMessage: TOKEN_NEEDED,
    timeoutMs: DAY_MS,
    run: (job) => runEntity(svc, job),
    transition: (row, state, error) => entityTransition(svc, payloadOf<{ entityId: number }>(row).entityId, state, error, correlationIdFor(row.id, row.attempts)),
  });
}
