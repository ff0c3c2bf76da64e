import { AsyncResource } from 'node:async_hooks';

/**
 * An object shaped like the ones node's `process.nextTick` makes, kept alive for the life of the
 * process so the hidden classes of that shape are never collected.
 *
 * nextTick builds `{ [async_id_symbol]: id, [trigger_async_id_symbol]: id, callback, args }` several
 * times a request (ending the request stream, writing the answer, destroying). Computed keys in a
 * literal go through V8's DefineKeyedOwnPropertyInLiteral, whose feedback is monomorphic or, on the
 * first object with another hidden class, megamorphic for good. Only these short-lived objects use
 * the shape's hidden classes, so when the process idles V8's memory reducer (or a run of full GCs)
 * collects them; the next request makes new ones, the feedback goes megamorphic, and from then on
 * every nextTick object is built in V8's runtime: ~3.8 us a request, 10% of a read's CPU (bench/RESULTS.md,
 * hot path rounds 9 and 10). Holding one object of the shape keeps its hidden classes (and, through
 * their back pointers, every one on the way to it) alive.
 *
 * The ids are doubles because node reads them from a Float64Array, so its fields are doubles from
 * the first nextTick on; a small integer here would also land on those classes. If node's literal
 * changes (other keys or order), this is an unused object and nothing else.
 */
export function nextTickShape(): object | null {
  const symbols = Object.getOwnPropertySymbols(new AsyncResource('SandlabNextTickShape'));
  const asyncId = symbols.find((s) => s.description === 'async_id_symbol');
  const triggerAsyncId = symbols.find((s) => s.description === 'trigger_async_id_symbol');
  if (asyncId === undefined || triggerAsyncId === undefined) return null;
  // The same keys in the same order as node's literal (lib/internal/process/task_queues.js).
  return { [asyncId]: 0.5, [triggerAsyncId]: 0.5, callback: keepShape, args: undefined };
}

function keepShape(): void {}

/** The process's one anchor: made when the HTTP layer loads, held by every HttpApp. */
export const NEXT_TICK_SHAPE = nextTickShape();
