import { createRequire } from 'node:module';

const nodeRequire = createRequire(__filename);

/**
 * A package loaded on its first use instead of at start-up, for the ones only some requests need
 * (Markdown, YAML, multipart): the service answers sooner after it starts.
 */
export function lazyRequire<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= nodeRequire(id) as T);
}

/**
 * Loads a module before its package needs it, resolved through a chain of packages
 * (`['sanitize-html', 'postcss']`: postcss as sanitize-html requires it, whatever version that
 * is): a warm-up loads a package's heavier dependencies one per turn of the event loop, then the
 * package itself. A chain that no longer resolves is left to the package's own require.
 */
export function preload(chain: readonly string[]): void {
  try {
    requireThrough(chain)(chain[chain.length - 1]);
  } catch {
    // The package's own require loads what it needs, or says what is missing.
  }
}

/** The require that resolves a chain's last package as the package before it does. */
function requireThrough(chain: readonly string[]): NodeJS.Require {
  let from = nodeRequire;
  for (const id of chain.slice(0, -1)) from = createRequire(from.resolve(id));
  return from;
}

/** The file a chain loads (preload), or null where it no longer resolves. */
export function resolveChain(chain: readonly string[]): string | null {
  try {
    return requireThrough(chain).resolve(chain[chain.length - 1]);
  } catch {
    return null;
  }
}
