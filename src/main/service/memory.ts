import { PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';

/**
 * What the service may keep in memory, cache by cache: the one place issue #15's goal (RSS under
 * 150 MB idle and after load with a million records) is divided. Each cache counts in its own
 * unit (entries, rows, statements); the MB beside each is what a full cache held when measured
 * (bench/RESULTS.md "Memory, round 12"). The rest of the RSS is fixed: node's own text (~40 MB),
 * the loaded code and V8's heap at start (~25 MB), SQLite's schema (~1 MB).
 */
export const MEMORY_BUDGET = {
  /**
   * V8's young generation (both semi-spaces), MB, at most: V8 doubles it up to 32 MB as objects
   * survive (the caches below keep what a request builds), and most of that sat empty after the
   * lists bench. boundHeap keeps it at 2-4 MB with 8 as the ceiling: a scavenge per 1-2 MB allocated.
   */
  youngGenerationMb: 8,
  /**
   * V8's old generation: collected once it grows this much (%) past what the last full collection
   * kept, instead of V8's up to 300%. What every write makes garbage (the caches below) is let go
   * at ~20% of the live heap (~6 MB) rather than at up to 3x it.
   */
  oldGenerationGrowthPercent: 20,
  /**
   * SQLite's page cache (main and temporary databases), KiB: 16 MB, full after the lists bench.
   * 4 or 8 MB would save 7-11 MB, but group issues labels=a,b reads ~11 MB of label-row pages per
   * request and took 20-22 ms instead of 13 with them (bench/RESULTS.md "Memory, round 12").
   */
  sqlitePageCacheKib: 16_000,
  /** Prepared statements kept by SQL text (db/connection.ts cacheStatements): ~5-15 KB each in SQLite, ~1 KB in V8. */
  statements: 1000,
  /** Rows the read statements remember across all of them until the next write (rememberReads). */
  rememberedRows: 5000,
  /**
   * Longer answers of a read statement are read again each time. 101: a page of 100 and the row
   * past it that says whether a next page exists (a page of 100 read its ids again after every write elsewhere).
   */
  rememberedListRows: 101,
  /**
   * Longer answers of one column (a search's or a filter's matching ids, LIMIT 10,001) are
   * remembered up to this many rows, each counted as a tenth of a row against rememberedRows (an
   * array of one number, ~60 bytes, where a record's row is ~1 KB): a members query or a projects
   * search of 111 matches read them all again after every write elsewhere.
   */
  rememberedIdRows: 1001,
  /** Looked-up rows (cachedLookup: tokens, users, projects...) until the next write. */
  lookups: 10_000,
  /** Built entities (cachedEntity) until the next write: a project's is ~5 KB of JSON. */
  entities: 1000,
  /**
   * Entities kept per kind across writes while their rows are unchanged (unchangedEntity); as many
   * again per kind of page kept whole (unchangedPage: issues, merge requests, snippets, events, notes, epics), most of them the same objects.
   */
  unchangedEntitiesPerKind: 1000,
  /** Rows kept by id per table across writes while the write log names them unwritten (db/written-rows.ts). */
  rowsById: 2000,
  /** Long list bodies (~150 KB each) sent again while their entities are the same (jsonBody). */
  recentBodies: 8,
  /** Count statements' SQL by the list's FROM (http/pagination.ts countUpTo): the FROMs and SQL texts, most of them the prepared statements' own. */
  countSqls: 200,
  /** Shapes of lists walked by date-lag buckets (db/date-lag.ts's plans): their SQL, ~40-100 KB each, most of it the prepared statements' own text. */
  otherDatePlans: 64,
  /** Lists whose deep-page anchors are kept, and anchors per list (http/pagination.ts). */
  anchoredLists: 200,
  anchorsPerList: 2000,
  /** Pages of rows kept while their list's version holds (http/pagination.ts rememberedPage): up to 101 rows each. */
  rememberedPages: 20,
  /** A project's issue and merge request pages kept whole by their request (core/kept-answers.ts): up to 100 rows each, most shared with rememberedPages'. */
  keptAnswers: 32,
  /** Id lists of searches few rows meet kept at their list's version (http/pagination.ts fewRowsByIds): up to 10,001 ids each (~80 KB). */
  idListsAtVersion: 16,
  /** Lists known to hold more than 10,000 rows at a version (http/pagination.ts countPastLimit): a key and a number each. */
  largeLists: 500,
  /** Request paths whose route is remembered (http/router.ts); longer paths are never kept. */
  routePaths: 2000,
  routePathMaxLength: 256,
  /** Rendered Markdown fields by text, and the longest text kept (markdown/markdown.ts). */
  renderedMarkdown: 500,
  renderedMarkdownMaxLength: 2000,
  /** Full-text match counts, and search walks with the ids each keeps (areas/core/workitems.ts). */
  matchCounts: 500,
  /** Epic list counts (areas/epics/epics.ts). */
  epicCounts: 500,
  searchWalks: 100,
  searchWalkMatches: 2000,
  /** A common term's checked lists (areas/core/workitems.ts searchCheckedRows): the ids up to a page's end, 4 bytes each (~40 KB at page 500). */
  checkedLists: 50,
  /** Rate-limit windows, one per user or address (http/throttle.ts). */
  rateLimitWindows: 10_000,
} as const;

/** V8's own value of each flag boundHeap sets (its flag-definitions.h): what a process starts with. */
const V8_DEFAULTS: Record<string, number> = { 'heap-growing-percent': 0, 'semi-space-growth-factor': 2 };

let bounded = false;

/** The flags boundHeap has set, by name, with the value each has now. */
const heapFlags = new Map<string, number>();

function setHeapFlag(name: string, value: number): void {
  heapFlags.set(name, value);
  v8.setFlagsFromString(`--${name}=${value}`);
}

/**
 * Keeps V8's heap within MEMORY_BUDGET: the young generation at youngGenerationMb, the old one
 * collected once it grows oldGenerationGrowthPercent past what the last full collection kept.
 * Both sizes are V8's to choose when the process starts (`--max-semi-space-size`, which neither
 * `npm run serve` nor Electron's main process can pass), but V8 reads these two flags each time it
 * uses them. Once per process.
 *
 * The young generation: V8 doubles it (`--semi-space-growth-factor`, 2) when enough of it
 * survived a collection. An observer of the collections lets it double while two doublings stay
 * within the budget and stops it (1) past that: the observer runs after the collection, not within
 * it, and a turn of the event loop may see one more doubling before it does. So the young
 * generation ends at a quarter to half of the budget and never grows past it. Once stopped, it can
 * only shrink (V8 gives back an idle one): the observer is let go, and a timer every
 * `youngRecheckMs` lets it grow again after a shrink. node's observer costs ~50 us a collection,
 * and a server under load collects every few hundred requests.
 *
 * The old generation: what survives the young one (every cached row and entity, forgotten at the
 * next write) piles up there as garbage until a full collection, which V8 schedules when the old
 * generation reaches up to 4x what the last one kept (`--heap-growing-percent`, unset).
 */
export function boundHeap(
  budget: { youngGenerationMb: number; oldGenerationGrowthPercent: number; youngRecheckMs?: number } = MEMORY_BUDGET,
): void {
  if (bounded) return;
  bounded = true;
  setHeapFlag('heap-growing-percent', budget.oldGenerationGrowthPercent);
  let growing = true;
  let recheck: NodeJS.Timeout | null = null;
  const observer = new PerformanceObserver(() => check());
  const check = (): void => {
    const young = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    if (!young) return;
    const grow = young.space_size * 4 <= budget.youngGenerationMb * 2 ** 20;
    if (grow === growing) return;
    growing = grow;
    setHeapFlag('semi-space-growth-factor', grow ? 2 : 1);
    if (grow) {
      clearInterval(recheck!);
      recheck = null;
      observer.observe({ entryTypes: ['gc'] });
    } else {
      observer.disconnect();
      recheck = setInterval(check, budget.youngRecheckMs ?? YOUNG_RECHECK_MS).unref();
    }
  };
  observer.observe({ entryTypes: ['gc'] });
  check();
}

/** How often a young generation stopped at its budget is looked at again (boundHeap). */
const YOUNG_RECHECK_MS = 5000;

/**
 * Runs `fn` under the V8 flags the process started with, those boundHeap set back to V8's own
 * values meanwhile. V8 stamps its code cache with a hash of the flags set when it is made and
 * rejects it at a start whose flags differ: the cache of the bundle (scripts/code-cache.cjs, which
 * calls this through the entry's exports) made after boundHeap was rejected by every next start.
 */
export function withStartFlags<T>(fn: () => T): T {
  if (heapFlags.size === 0) return fn();
  v8.setFlagsFromString([...heapFlags.keys()].map((name) => `--${name}=${V8_DEFAULTS[name]}`).join(' '));
  try {
    return fn();
  } finally {
    v8.setFlagsFromString([...heapFlags].map(([name, value]) => `--${name}=${value}`).join(' '));
  }
}

/** Each bounded cache's walk through its own keys, oldest first (deleteOldest). */
const oldestKeys = new WeakMap<Map<unknown, unknown>, Iterator<unknown>>();

/**
 * Deletes the oldest entry of `map` (the first in insertion order), as `map.delete(map.keys().next().value)`
 * does. That starts a new walk from the table's first slot each time, through every slot an earlier
 * delete left empty (V8 compacts a Map only when it grows or shrinks a lot): a cache kept at its bound
 * by deleting its oldest entry per insert paid ~2-3 us per delete at 1,000-2,000 entries (20 per page).
 * One walk kept per map goes on from where it stopped: every entry before it is gone (deleted, or
 * deleted and set again, which puts it at the end), so the next it yields is the oldest left.
 * Returns the value deleted.
 */
export function deleteOldest<K, V>(map: Map<K, V>): V | undefined {
  let keys = oldestKeys.get(map) as Iterator<K> | undefined;
  let next = keys?.next();
  if (next === undefined || next.done) {
    keys = map.keys();
    oldestKeys.set(map, keys);
    next = keys.next();
  }
  if (next.done) return undefined;
  const value = map.get(next.value);
  map.delete(next.value);
  return value;
}
