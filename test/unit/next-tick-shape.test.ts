import { createHook } from 'node:async_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { NEXT_TICK_SHAPE, nextTickShape } from '../../src/main/service/http/tick-shape';
import { HttpApp } from '../../src/main/service/http/server';

/** One object made by node's own process.nextTick (seen through an init hook). */
function tickObject(): object {
  let seen: object | null = null;
  const hook = createHook({
    init(_id, type, _trigger, resource) {
      if (type === 'TickObject' && seen === null) seen = resource as object;
    },
  });
  hook.enable();
  process.nextTick(() => undefined);
  hook.disable();
  if (seen === null) throw new Error('no TickObject seen');
  return seen;
}

// V8's own test functions, to ask whether two objects share a hidden class.
setFlagsFromString('--allow-natives-syntax');
setFlagsFromString('--expose-gc');
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;
const fullGc = runInNewContext('gc') as () => void;

describe("the anchor for node's nextTick objects", () => {
  it('has the keys of a nextTick object, in its order', () => {
    expect(Reflect.ownKeys(NEXT_TICK_SHAPE!).map(String)).toEqual(Reflect.ownKeys(tickObject()).map(String));
  });

  it('shares the hidden class of the objects nextTick makes, also after full GCs', () => {
    expect(haveSameMap(NEXT_TICK_SHAPE!, tickObject())).toBe(true);
    // The memory reducer collects whatever only short-lived tick objects used; the anchor is still on their path.
    for (let i = 0; i < 6; i++) fullGc();
    expect(haveSameMap(NEXT_TICK_SHAPE!, tickObject())).toBe(true);
    expect(haveSameMap(nextTickShape()!, tickObject())).toBe(true);
  });

  it('is held by every HttpApp', () => {
    const app = new HttpApp({ bodyLimit: 1, parsers: { text: new Map(), stream: new Set(), unread: new Map(), fallback: () => undefined }, onError: () => undefined, onNotFound: () => undefined });
    expect(app.nextTickShape).toBe(NEXT_TICK_SHAPE);
  });
});
