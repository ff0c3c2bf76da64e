import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { preload, resolveChain } from '../../src/main/service/lazy-require';
import { WARM_UP_MODULES, markdownWarm, renderMarkdown, warmMarkdown } from '../../src/main/service/markdown/markdown';

/**
 * The Markdown renderer's warm-up (service/index.ts, shortly after listening) loads its packages
 * and renders once in many short turns of the event loop, so a request that arrives meanwhile is
 * answered between two steps instead of after all of them.
 */
describe('warming the Markdown renderer in turns', () => {
  it('returns before the renderers are built, builds them over many turns, and renders as before', async () => {
    warmMarkdown();
    expect(markdownWarm()).toBe(false);
    let turns = 0;
    while (!markdownWarm()) {
      await new Promise((resolve) => setImmediate(resolve));
      turns++;
    }
    // One module a turn: markdown-it, its emoji list, sanitize-html and their heavier dependencies.
    expect(turns).toBeGreaterThanOrEqual(10);
    expect(renderMarkdown('A **bold** start :smile:', { gfm: true })).toBe(
      '<p data-sourcepos="1:1-1:24" dir="auto">A <strong>bold</strong> start <gl-emoji data-name="smile">\u{1F604}</gl-emoji></p>',
    );
    expect(renderMarkdown('*plain* :smile:', { gfm: false })).toBe('<p data-sourcepos="1:1-1:15" dir="auto"><em>plain</em> :smile:</p>');
  });

  it('loads in each step a file of the packages the renderers load, as they resolve it', () => {
    renderMarkdown('*built*', { gfm: true });
    const loaded = Object.values(createRequire(__filename).cache);
    const missed = WARM_UP_MODULES.filter((chain) => {
      const file = resolveChain(chain);
      if (file === null) return true;
      // A dependency: some module of the packages requires that very file (not another copy).
      return chain.length > 1 && !loaded.some((m) => m?.children.some((child) => child.filename === file));
    });
    expect(missed).toEqual([]);
  });

  it("leaves a module that no longer resolves to its package's own require", () => {
    expect(() => preload(['markdown-it', 'no-such-dependency'])).not.toThrow();
    expect(() => preload(['no-such-package', 'markdown-it'])).not.toThrow();
  });
});
