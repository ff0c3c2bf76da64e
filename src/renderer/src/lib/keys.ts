/** Ctrl+<key> on Linux and Windows, Cmd+<key> on macOS (either is accepted everywhere). */
export function isModKey(e: { key: string; ctrlKey: boolean; metaKey: boolean; altKey?: boolean }, key: string): boolean {
  return (e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === key.toLowerCase();
}

/** How the shortcut reads on this machine. */
export const MOD_LABEL = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform) ? '⌘' : 'Ctrl+';
