import { createRequire } from 'node:module';

/**
 * GitLab's emoji names: the EmojiOne/JoyPixels short names its TanukiEmoji index is built on
 * (`thumbsup`, `8ball`, `flag_us`, ...), with their alternates (`+1`, `satisfied`, `us`), taken
 * from the emoji-toolkit package's data. Loaded on first use: most requests never need it.
 */
interface EmojiIndex {
  names: Set<string>;
  /** alternate name -> canonical name */
  aliases: Map<string, string>;
}

let index: EmojiIndex | null = null;

function load(): EmojiIndex {
  if (index) return index;
  const data = createRequire(__filename)('emoji-toolkit/emoji.json') as Record<string, { shortname: string; shortname_alternates: string[] }>;
  const strip = (code: string): string => code.replace(/^:|:$/g, '');
  const names = new Set<string>();
  const aliases = new Map<string, string>();
  for (const e of Object.values(data)) names.add(strip(e.shortname));
  for (const e of Object.values(data)) {
    for (const alt of e.shortname_alternates) if (!names.has(strip(alt))) aliases.set(strip(alt), strip(e.shortname));
  }
  index = { names, aliases };
  return index;
}

/** The canonical name for a name or an alias (`+1` -> `thumbsup`); unknown names come back unchanged. */
export function normalizeEmojiName(name: string): string {
  return load().aliases.get(name) ?? name;
}

/** Is this (canonical) name one of GitLab's emoji? */
export function isEmojiName(name: string): boolean {
  return load().names.has(name);
}

export const THUMBS_UP = 'thumbsup';
export const THUMBS_DOWN = 'thumbsdown';
