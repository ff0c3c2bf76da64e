import type MarkdownIt from 'markdown-it';
import type { MarkdownIt as Renderer, StateCore, Token } from 'markdown-it';
import { lazyRequire, preload } from '../lazy-require';
import { MEMORY_BUDGET } from '../memory';

const markdownIt = lazyRequire<typeof MarkdownIt>('markdown-it');
const markdownItEmoji = lazyRequire<typeof import('markdown-it-emoji')>('markdown-it-emoji');
import { sanitizeRenderedHtml } from './sanitize';

/** A reference GitLab links in GitLab Flavored Markdown (`#1`, `!2`, `@user`), resolved by the caller. */
export interface ResolvedReference {
  url: string;
  title: string;
  /** data-* attributes and classes GitLab writes on the link. */
  attrs: Record<string, string>;
}

/** Looks references up for the caller (null: unknown or not visible to them; the text stays plain). */
export interface ReferenceResolver {
  issue?(iid: number): ResolvedReference | null;
  mergeRequest?(iid: number): ResolvedReference | null;
  user(username: string): ResolvedReference | null;
}

export interface RenderOptions {
  /** GitLab Flavored Markdown (emoji, references, task lists, autolinks, heading anchors); else plain CommonMark with tables. */
  gfm: boolean;
  references?: ReferenceResolver;
}

/** markdown-it's per-render environment (its own keys are `references`, for link definitions). */
type Env = Record<string, unknown> & { resolver?: ReferenceResolver };

const BLOCKS_WITH_DIR = new Set(['paragraph_open', 'heading_open', 'bullet_list_open', 'ordered_list_open', 'blockquote_open', 'table_open']);

/** `data-sourcepos="l:c-l:c"` (1-based, inclusive, in bytes as GitLab's renderer counts) and `dir="auto"` on blocks. */
function sourcePositions(state: StateCore): void {
  const lines = state.src.split('\n');
  let listDepth = 0;
  for (const token of state.tokens) {
    if (token.type === 'bullet_list_close' || token.type === 'ordered_list_close') listDepth--;
    if (token.nesting !== 1 && token.type !== 'fence' && token.type !== 'code_block' && token.type !== 'hr') continue;
    const isList = token.type === 'bullet_list_open' || token.type === 'ordered_list_open';
    if (token.map) {
      const [start, end] = token.map;
      const first = lines[start] ?? '';
      const last = lines[Math.max(start, end - 1)] ?? '';
      const startCol = first.length - first.trimStart().length + 1;
      token.attrSet('data-sourcepos', `${start + 1}:${startCol}-${Math.max(start, end - 1) + 1}:${Buffer.byteLength(last)}`);
    }
    // Top-level lists and every other block read their direction from their text.
    if (BLOCKS_WITH_DIR.has(token.type) && !(isList && listDepth > 0)) token.attrSet('dir', 'auto');
    if (isList) listDepth++;
  }
}

/** `- [ ] x` and `- [x] x`: GitLab's task list items, rendered disabled (checking one is an edit). */
function taskLists(state: StateCore): void {
  const tokens = state.tokens;
  for (let i = 2; i < tokens.length; i++) {
    const inline = tokens[i];
    if (inline.type !== 'inline' || tokens[i - 1].type !== 'paragraph_open' || tokens[i - 2].type !== 'list_item_open') continue;
    const m = /^\[([ xX])\]\s/.exec(inline.content);
    if (!m || !inline.children?.length) continue;
    const text = inline.children[0];
    if (text.type !== 'text' || !text.content.startsWith(m[0].trimEnd())) continue;
    text.content = text.content.slice(m[0].length - 1).replace(/^\s/, ' ');
    const box = new state.Token('html_inline', '', 0);
    box.content = `<input type="checkbox" class="task-list-item-checkbox" disabled${m[1] === ' ' ? '' : ' checked'}>`;
    inline.children.unshift(box);
    tokens[i - 2].attrJoin('class', 'task-list-item');
    for (let j = i - 3; j >= 0; j--) {
      const t = tokens[j];
      if ((t.type === 'bullet_list_open' || t.type === 'ordered_list_open') && t.level === tokens[i - 2].level - 1) {
        if (!String(t.attrGet('class') ?? '').includes('task-list')) t.attrJoin('class', 'task-list');
        break;
      }
    }
  }
}

/** GitLab's heading anchors: `<a href="#slug" aria-hidden="true" class="anchor" id="user-content-slug">`. */
function headingAnchors(state: StateCore): void {
  const used = new Map<string, number>();
  for (let i = 0; i < state.tokens.length; i++) {
    const t = state.tokens[i];
    if (t.type !== 'heading_open') continue;
    const inline = state.tokens[i + 1];
    const base =
      inline.content
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .trim()
        .replace(/\s+/g, '-') || 'heading';
    const n = used.get(base) ?? 0;
    used.set(base, n + 1);
    const slug = n === 0 ? base : `${base}-${n}`;
    const anchor = new state.Token('html_inline', '', 0);
    anchor.content = `<a href="#${slug}" aria-hidden="true" class="anchor" id="user-content-${slug}"></a>`;
    inline.children?.unshift(anchor);
  }
}

// `#12`, `!3`, `@name`: at a word start, not inside a word, e-mail address or URL fragment.
const REFERENCE = /(^|[^\w/&#!@.-])(?:#(\d+)|!(\d+)|@([A-Za-z0-9_][A-Za-z0-9_.-]*[A-Za-z0-9_]|[A-Za-z0-9_]))(?![\w-])/g;

/** Turns references in text (never in code or links) into GitLab's reference links. */
function references(state: StateCore): void {
  const resolver = (state.env as Env).resolver;
  if (!resolver) return;
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    const out: Token[] = [];
    let inLink = 0;
    for (const child of block.children) {
      if (child.type === 'link_open') inLink++;
      if (child.type === 'link_close') inLink--;
      if (child.type !== 'text' || inLink > 0) {
        out.push(child);
        continue;
      }
      let last = 0;
      const text = child.content;
      for (const m of text.matchAll(REFERENCE)) {
        const at = m.index + m[1].length;
        const ref = m[2] ? resolver.issue?.(Number(m[2])) : m[3] ? resolver.mergeRequest?.(Number(m[3])) : resolver.user(m[4]);
        if (!ref) continue;
        const original = text.slice(at, m.index + m[0].length);
        if (at > last) out.push(textToken(state, text.slice(last, at)));
        const open = new state.Token('link_open', 'a', 1);
        open.attrSet('href', ref.url);
        for (const [k, v] of Object.entries(ref.attrs)) open.attrSet(k, v);
        open.attrSet('data-original', original);
        open.attrSet('title', ref.title);
        out.push(open, textToken(state, original), new state.Token('link_close', 'a', -1));
        last = at + original.length;
      }
      out.push(last === 0 ? child : textToken(state, text.slice(last)));
    }
    block.children = out;
  }
}

function textToken(state: StateCore, content: string): Token {
  const t = new state.Token('text', '', 0);
  t.content = content;
  return t;
}

function createRenderer(gfm: boolean): Renderer {
  const MarkdownItClass = markdownIt();
  const md = new MarkdownItClass({ html: true, linkify: gfm, typographer: false });
  md.core.ruler.push('sandlab_sourcepos', sourcePositions);
  if (gfm) {
    md.use(markdownItEmoji().full, { shortcuts: {} });
    md.renderer.rules.emoji = (tokens, idx) => `<gl-emoji data-name="${tokens[idx].markup}">${tokens[idx].content}</gl-emoji>`;
    md.core.ruler.push('sandlab_task_lists', taskLists);
    md.core.ruler.push('sandlab_heading_anchors', headingAnchors);
    md.core.ruler.push('sandlab_references', references);
  }
  // Fenced code keeps its language where GitLab's highlighter reads it.
  md.renderer.rules.fence = (tokens, idx) => {
    const t = tokens[idx];
    const lang = t.info.trim().split(/\s+/)[0] ?? '';
    const pos = t.attrGet('data-sourcepos');
    const langAttrs = lang ? ` lang="${md.utils.escapeHtml(lang)}" class="code highlight js-syntax-highlight language-${md.utils.escapeHtml(lang)}"` : ' class="code highlight js-syntax-highlight"';
    return `<pre${pos ? ` data-sourcepos="${pos}"` : ''}${langAttrs}><code>${md.utils.escapeHtml(t.content)}</code></pre>\n`;
  };
  return md;
}

let renderers: { gfm: Renderer; plain: Renderer } | null = null;

/** Markdown to sanitized HTML, as GitLab's Markdown API and `*_html` fields answer it. */
export function renderMarkdown(text: string, opts: RenderOptions): string {
  renderers ??= { gfm: createRenderer(true), plain: createRenderer(false) };
  const md = opts.gfm ? renderers.gfm : renderers.plain;
  const env: Env = { resolver: opts.references };
  return sanitizeRenderedHtml(md.render(text, env)).replace(/\n+$/, '');
}

/**
 * What building the renderers loads, in the order warmMarkdown loads it: each package's heavier
 * dependencies (as that package resolves them) before the package, ~1-8 ms of CPU each here.
 * postcss (~13 ms whole) goes file by file through its exported lib/ files, and dom-serializer's
 * entities (~11 ms) as its decoder, then the rest.
 */
export const WARM_UP_MODULES: readonly (readonly string[])[] = [
  ['markdown-it', 'uc.micro'],
  ['markdown-it', 'mdurl'],
  ['markdown-it', 'punycode.js'],
  ['markdown-it', 'linkify-it'],
  ['markdown-it'],
  ['markdown-it-emoji'],
  ['sanitize-html', 'htmlparser2', 'entities/decode'],
  ['sanitize-html', 'htmlparser2', 'domelementtype'],
  ['sanitize-html', 'htmlparser2', 'domhandler'],
  ['sanitize-html', 'htmlparser2', 'domutils', 'dom-serializer', 'entities/lib/decode.js'],
  ['sanitize-html', 'htmlparser2', 'domutils', 'dom-serializer', 'entities'],
  ['sanitize-html', 'htmlparser2', 'domutils'],
  ['sanitize-html', 'htmlparser2'],
  ['sanitize-html', 'postcss', 'source-map-js'],
  ['sanitize-html', 'postcss', 'nanoid/non-secure'],
  ['sanitize-html', 'postcss', 'picocolors'],
  ['sanitize-html', 'postcss/lib/tokenize'],
  ['sanitize-html', 'postcss/lib/terminal-highlight'],
  ['sanitize-html', 'postcss/lib/css-syntax-error'],
  ['sanitize-html', 'postcss/lib/node'],
  ['sanitize-html', 'postcss/lib/container'],
  ['sanitize-html', 'postcss/lib/input'],
  ['sanitize-html', 'postcss/lib/parse'],
  ['sanitize-html', 'postcss/lib/lazy-result'],
  ['sanitize-html', 'postcss/lib/processor'],
  ['sanitize-html', 'postcss'],
  ['sanitize-html'],
];

/**
 * Builds the renderers before any field needs them: loading markdown-it, its emoji list and
 * sanitize-html, then a first render of each kind, is ~100 ms of CPU, paid otherwise by the first
 * read with a description. One step a turn of the event loop (a module, a render), so a request
 * that arrives meanwhile waits for one step, not for all of it (what a render loaded before costs
 * nothing again).
 */
export function warmMarkdown(): void {
  const steps = [
    ...WARM_UP_MODULES.map((chain) => () => preload(chain)),
    () => renderMarkdown('*warm*', { gfm: false }),
    () => renderMarkdown('*warm*', { gfm: true }),
    () => renderMarkdown(':smile:', { gfm: true }),
  ];
  let step = 0;
  const next = (): void => {
    steps[step++]();
    if (step < steps.length) setImmediate(next).unref();
  };
  next();
}

/** Whether the renderers are built (warmMarkdown or a first render). */
export function markdownWarm(): boolean {
  return renderers !== null;
}

/** Rendered `*_html` fields by source text: without reference lookups the HTML depends on the text alone. */
const renderedFields = new Map<string, string>();
/** Bounds the memory they take: a few megabytes at most. */
const RENDERED_FIELDS_KEPT = MEMORY_BUDGET.renderedMarkdown;
const RENDERED_FIELD_MAX_LENGTH = MEMORY_BUDGET.renderedMarkdownMaxLength;

/**
 * A `*_html` field: GitLab Flavored Markdown without reference lookups; '' for no text. Remembered
 * per text (entities such as a project or a label list render the same descriptions on every read).
 */
export function markdownField(text: string | null | undefined): string {
  if (!text) return '';
  let html = renderedFields.get(text);
  if (html === undefined) {
    html = renderMarkdown(text, { gfm: true });
    if (text.length > RENDERED_FIELD_MAX_LENGTH) return html;
    if (renderedFields.size >= RENDERED_FIELDS_KEPT) renderedFields.clear();
    renderedFields.set(text, html);
  }
  return html;
}
