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
