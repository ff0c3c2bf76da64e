import { MEMORY_BUDGET } from '../memory';

/**
 * The route table: per method, a tree of path segments. Registering a route is a few map inserts
 * (the service registers ~1,000 at start); a lookup walks one node per segment. It answers as
 * find-my-way did for fastify (`ignoreTrailingSlash`, `ignoreDuplicateSlashes`, `maxParamLength`):
 *
 * - static segments win over `:param` segments, which win over a trailing `*`; a dead end backtracks;
 * - `//` collapses to `/`, a trailing `/` is ignored, the query (`?`) and fragment (`#`) are not routed;
 * - `%`-escapes are decoded once: a static segment matches its decoded form (but `%2F` never
 *   splits a segment), a parameter is the segment fully decoded (`group%2Fproject` -> `group/project`);
 * - a malformed escape anywhere in the path is a bad URL (400), a parameter longer than
 *   `MAX_PARAM_LENGTH` fails its match, and a path that only failed for that is "too long" (414);
 * - a segment may be a static prefix and a parameter (`archive.:format`).
 */

export const MAX_PARAM_LENGTH = 2048;

interface PrefixParam<T> {
  prefix: string;
  node: Node<T>;
}

/** A registered route and its parameters' names, in path order (routes sharing a node may name them differently). */
interface Leaf<T> {
  route: T;
  names: string[];
  /** A request's parameters from their values (paramsOf), made at the route's first request. */
  params: ParamsMaker | null;
}

type ParamsMaker = (values: string[]) => Record<string, string>;

/** One maker per list of names: routes share a few dozen (`id`, `id`+`iid`), and each is compiled at most once. */
const makers = new Map<string, ParamsMaker>();

/**
 * Makes a route's parameters object: an object literal with the route's names, compiled once, so
 * every request of a route gets an object of one shape (handlers then read `:id` on one hidden
 * class), instead of keys added one by one to an empty object (a keyed store per parameter, and
 * objects of as many shapes as routes reaching the same reads). The last of two equal names wins,
 * at the first one's place, as assignments in order do.
 */
function paramsOf(names: string[]): ParamsMaker {
  const signature = JSON.stringify(names);
  let maker = makers.get(signature);
  if (!maker) makers.set(signature, (maker = compileParams(names)));
  return maker;
}

function compileParams(names: string[]): ParamsMaker {
  // A name that a literal would not make an own property of (`__proto__`) is assigned in order.
  if (names.includes('__proto__')) {
    return (values) => {
      const params: Record<string, string> = {};
      for (let i = 0; i < names.length; i++) params[names[i]] = values[i];
      return params;
    };
  }
  return new Function('v', `return {${names.map((n, i) => `${JSON.stringify(n)}: v[${i}]`).join(', ')}};`) as ParamsMaker;
}

class Node<T> {
  route: Leaf<T> | null = null;
  statics: Map<string, Node<T>> | null = null;
  prefixParams: PrefixParam<T>[] | null = null;
  param: Node<T> | null = null;
  wildcard: Leaf<T> | null = null;
}

/** A route found for a path: the leaf and its parameters' values, in path order. */
interface Match<T> {
  leaf: Leaf<T>;
  values: string[];
}

/** What a path resolves to among one method's routes: a match, no route (null), or a refusal. */
type Outcome<T> = Match<T> | { kind: 'badUrl'; path: string } | { kind: 'tooLong'; path: string } | null;

/**
 * Paths resolved lately, per method: clients repeat the same paths, and a path seen before skips
 * splitting, decoding and walking (one Map lookup). Bounded, and let go at once when full: the
 * paths are the clients' to choose. Long paths are walked every time.
 */
const MEMO_LIMIT = MEMORY_BUDGET.routePaths;
const MEMO_MAX_PATH = MEMORY_BUDGET.routePathMaxLength;

class Tree<T> {
  readonly root = new Node<T>();
  readonly memo = new Map<string, Outcome<T>>();
  /**
   * Routes added since the last lookup, in order, inserted at the next: a start registers ~2,000
   * (every area's, GET's again as HEAD, all of them in the any-method tree), where its first
   * requests read one or two methods' (~12 ms of a start's CPU when each was inserted at once).
   */
  private pending: [pattern: string, route: T][] | null = null;

  /** Queues `pattern`'s route; checked as inserting it would be (RouteTable.add) before it comes here. */
  add(pattern: string, route: T): void {
    (this.pending ??= []).push([pattern, route]);
  }

  /** `url`'s outcome: from the memo when its path (before `?`) was resolved before. */
  match(url: string): Outcome<T> {
    if (this.pending !== null) this.insertPending();
    // Only origin-form targets: an absolute URL's or a malformed escape's 400 names the whole target, query included.
    const q = url.indexOf('?');
    const key = q < 0 ? url : url.slice(0, q);
    if (key.charCodeAt(0) !== 47 || key.length > MEMO_MAX_PATH) return resolve(this.root, url);
    const known = this.memo.get(key);
    if (known !== undefined) return known;
    const outcome = resolve(this.root, url);
    if (outcome !== null && 'kind' in outcome && outcome.kind === 'badUrl') return outcome;
    if (this.memo.size >= MEMO_LIMIT) this.memo.clear();
    this.memo.set(key, outcome);
    return outcome;
  }

  private insertPending(): void {
    const pending = this.pending!;
    this.pending = null;
    // Another method's route may have the pattern already (the any-method tree): the first stays.
    for (const [pattern, route] of pending) insert(this, pattern, route);
  }
}

/** Resolves `url` from the root of one method's routes. */
function resolve<T>(root: Node<T>, url: string): Outcome<T> {
  const prepared = prepare(url);
  if (!('segments' in prepared)) return prepared;
  const values: string[] = [];
  const state = { tooLong: false };
  const leaf = walk(root, prepared, 0, values, state);
  if (leaf !== null) return { leaf, values };
  return state.tooLong ? { kind: 'tooLong', path: prepared.path } : null;
}

export type Lookup<T> =
  | { kind: 'found'; route: T; params: Record<string, string> }
  | { kind: 'badUrl'; path: string }
  | { kind: 'tooLong'; path: string };

/** A request path split for routing: raw segments, and their decoded forms when they hold escapes. */
interface Prepared {
  segments: string[];
  /** Each segment as static parts compare to it (decodeURI: reserved escapes such as %2F stay). */
  staticForms: string[] | null;
  /** The normalized path as the 414 answer names it. */
  path: string;
}

export class RouteTable<T> {
  private readonly trees = new Map<string, Tree<T>>();

  /**
   * Every method's patterns in one tree: a path it does not match has no route for any method, so
   * an unknown path's 404 asks one tree (methodsMatching) instead of each method's in turn.
   */
  private readonly anyMethod = new Tree<true>();

  /**
   * Each method's patterns by where they end in its tree (routeShape), so that a duplicate throws
   * here, as the route is registered, though the trees are built only at their first lookups.
   */
  private readonly shapes = new Set<string>();

  /** Adds `pattern` (`/api/v4/projects/:id/badges/:badge_id`) for `method`; a duplicate throws. */
  add(method: string, pattern: string, route: T): void {
    const shape = `${method} ${routeShape(pattern)}`;
    if (this.shapes.has(shape)) throw new Error(`Method '${method}' already declared for route '${pattern}'`);
    this.shapes.add(shape);
    let tree = this.trees.get(method);
    if (!tree) this.trees.set(method, (tree = new Tree<T>()));
    tree.add(pattern, route);
    this.anyMethod.add(pattern, true);
  }

  /** Whether any route is registered for `method`. */
  has(method: string): boolean {
    return this.trees.has(method);
  }

  /**
   * Looks `url` (a request target: path, maybe a query) up among `method`'s routes. Null: no
   * route (or no route at all for the method).
   */
  find(method: string, url: string): Lookup<T> | null {
    const tree = this.trees.get(method);
    if (!tree) return null;
    const outcome = tree.match(url);
    if (outcome === null || 'kind' in outcome) return outcome;
    const { leaf, values } = outcome;
    // Each request gets its own parameters: the memo's values stay as they were found.
    return { kind: 'found', route: leaf.route, params: (leaf.params ??= paramsOf(leaf.names))(values) };
  }

  /**
   * The methods among `methods` with a route for `url` (a bad or over-long URL counts as a route,
   * as it did for fastify's 405 check).
   */
  methodsMatching(url: string, methods: readonly string[]): string[] {
    if (this.anyMethod.match(url) === null) return [];
    return methods.filter((method) => {
      const tree = this.trees.get(method);
      return tree !== undefined && tree.match(url) !== null;
    });
  }
}

/** A URL whose path is not valid percent-encoding (or an absolute URL that is not http(s)). */
export function badUrl(url: string): { kind: 'badUrl'; path: string } | null {
  const prepared = prepare(url);
  return 'segments' in prepared ? null : prepared;
}

/**
 * Where `pattern` ends in a method's tree, as text: a parameter's name is no part of it
 * (`/projects/:id` and `/projects/:project_id` are one route; `archive.:format` keeps its prefix).
 * Throws for a pattern the tree cannot hold.
 */
function routeShape(pattern: string): string {
  const shape = trimPath(pattern).replace(/:[^/]*/g, ':');
  if (/\/\*\//.test(shape)) throw new Error(`route ${pattern}: '*' must end the pattern`);
  return shape || '/';
}

/** Adds `pattern`'s route to `tree`; a pattern already there keeps its route (RouteTable.add refused duplicates). */
function insert<T>(tree: Tree<T>, pattern: string, route: T): void {
  // A path resolved before may resolve to the new route now.
  tree.memo.clear();
  let node = tree.root;
  const names: string[] = [];
  const segments = splitSegments(trimPath(pattern));
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i];
    if (seg === '*') {
      node.wildcard ??= { route, names: [...names, '*'], params: null };
      return;
    }
    const colon = seg.indexOf(':');
    if (colon === 0) {
      names.push(seg.slice(1));
      node = node.param ??= new Node<T>();
    } else if (colon > 0) {
      const prefix = seg.slice(0, colon);
      names.push(seg.slice(colon + 1));
      node.prefixParams ??= [];
      let entry = node.prefixParams.find((p) => p.prefix === prefix);
      if (!entry) node.prefixParams.push((entry = { prefix, node: new Node<T>() }));
      node = entry.node;
    } else {
      node.statics ??= new Map();
      let next = node.statics.get(seg);
      if (!next) node.statics.set(seg, (next = new Node<T>()));
      node = next;
    }
  }
  // Compiled at the route's first request, not at start (~1,000 routes registered).
  node.route ??= { route, names, params: null };
}

function walk<T>(node: Node<T>, p: Prepared, i: number, values: string[], state: { tooLong: boolean }): Leaf<T> | null {
  if (i === p.segments.length) return node.route;
  const raw = p.segments[i];
  const staticForm = p.staticForms ? p.staticForms[i] : raw;
  const next = node.statics?.get(staticForm);
  if (next) {
    const found = walk(next, p, i + 1, values, state);
    if (found !== null) return found;
  }
  if (node.prefixParams) {
    for (const pp of node.prefixParams) {
      if (!staticForm.startsWith(pp.prefix)) continue;
      const value = decodeComponent(staticForm.slice(pp.prefix.length));
      if (value.length > MAX_PARAM_LENGTH) {
        state.tooLong = true;
        continue;
      }
      values.push(value);
      const found = walk(pp.node, p, i + 1, values, state);
      if (found !== null) return found;
      values.pop();
    }
  }
  if (node.param) {
    const value = p.staticForms ? decodeComponent(staticForm) : raw;
    if (value.length > MAX_PARAM_LENGTH) {
      state.tooLong = true;
    } else {
      values.push(value);
      const found = walk(node.param, p, i + 1, values, state);
      if (found !== null) return found;
      values.pop();
    }
  }
  if (node.wildcard !== null) {
    const rest = p.segments.slice(i).join('/');
    values.push(p.staticForms ? decodeURIComponent(rest) : rest);
    return node.wildcard;
  }
  return null;
}

/** The path of a request target without its query or fragment, `//` collapsed, no trailing `/`. */
function trimPath(path: string): string {
  if (path.includes('//')) path = path.replace(/\/{2,}/g, '/');
  return path.length > 1 && path.charCodeAt(path.length - 1) === 47 ? path.slice(0, -1) : path;
}

const splitSegments = (path: string): string[] => (path === '/' || path === '' ? [] : path.slice(1).split('/'));

function prepare(url: string): Prepared | { kind: 'badUrl'; path: string } {
  let path = url;
  if (path.charCodeAt(0) !== 47) {
    const absolute = pathOfAbsoluteUrl(path);
    if (absolute === null) return { kind: 'badUrl', path: url };
    path = absolute;
  }
  const original = path;
  let end = path.length;
  const q = path.indexOf('?');
  if (q >= 0) end = q;
  const hash = path.indexOf('#');
  if (hash >= 0 && hash < end) end = hash;
  if (end < path.length) path = path.slice(0, end);
  path = trimPath(path);
  const segments = splitSegments(path);
  if (path.indexOf('%') < 0) return { segments, staticForms: null, path };
  // decodeURI leaves reserved escapes (%2F, %3F, ...) encoded; %25 is kept as itself, so a
  // decoded segment never holds a `%` that was not an escape.
  let decodedPath: string;
  try {
    decodedPath = decodeURI(path.replace(/%25/g, '%2525'));
    for (const seg of segments) if (seg.includes('%')) decodeURIComponent(seg);
  } catch {
    return { kind: 'badUrl', path: original };
  }
  return { segments, staticForms: splitSegments(decodedPath), path: decodedPath };
}

/** Decodes the escapes decodeURI left in a static form (reserved characters, `%25`). */
function decodeComponent(value: string): string {
  return value.includes('%') ? decodeURIComponent(value) : value;
}

/** `http://host/path?q` -> `/path?q`; null for anything that is not an http(s) absolute URL. */
function pathOfAbsoluteUrl(url: string): string | null {
  if (url === '*') return url;
  const m = /^(https?):\/\/([^/?#]+)/i.exec(url);
  if (!m) return null;
  try {
    new URL(url);
  } catch {
    return null;
  }
  const rest = url.slice(m[0].length);
  if (rest.includes('#')) return null;
  if (rest === '') return '/';
  return rest.startsWith('/') ? rest : `/${rest}`;
}
