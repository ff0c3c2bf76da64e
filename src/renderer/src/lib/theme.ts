import type { Theme } from '../../../shared/ipc';

export type ResolvedTheme = 'light' | 'dark';

/** The theme in force: the user's choice, else the system's. */
export function resolveTheme(choice: Theme, systemDark: boolean): ResolvedTheme {
  if (choice === 'light' || choice === 'dark') return choice;
  return systemDark ? 'dark' : 'light';
}

const darkQuery = (): MediaQueryList | null => (typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : null);

/**
 * Puts the theme on <html data-theme> (the stylesheet keys its colours on it) and keeps following
 * the system while the choice is `system`. Returns a function that stops following.
 */
export function applyTheme(choice: Theme): () => void {
  const query = darkQuery();
  const apply = (): void => {
    document.documentElement.dataset.theme = resolveTheme(choice, query?.matches ?? false);
  };
  apply();
  if (!query || choice !== 'system') return () => {};
  query.addEventListener('change', apply);
  return () => query.removeEventListener('change', apply);
}
