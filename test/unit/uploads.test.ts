import { describe, expect, it } from 'vitest';
import { markdownFor, mimeTypeFor, sanitizeFilename } from '../../src/main/service/areas/uploads/uploads';
import { isValidFilePath } from '../../src/main/service/areas/snippets/snippets';

describe('upload file names', () => {
  it('keeps only the base name and safe characters', () => {
    expect(sanitizeFilename('../../etc/passwd')).toBe('passwd');
    expect(sanitizeFilename('C:\\Users\\me\\a b.txt')).toBe('a_b.txt');
    expect(sanitizeFilename('..')).toBe('_..');
    expect(sanitizeFilename('.')).toBe('_.');
    expect(sanitizeFilename('')).toBe('unnamed');
    expect(sanitizeFilename('résumé+v1-final.pdf')).toBe('résumé+v1-final.pdf');
    expect(sanitizeFilename('a\0b')).toBe('a_b');
  });

  it('shortens very long names and keeps the extension', () => {
    const name = sanitizeFilename(`${'a'.repeat(400)}.png`);
    expect(Buffer.byteLength(name)).toBeLessThanOrEqual(200);
    expect(name.endsWith('.png')).toBe(true);
  });
});

describe('upload markdown', () => {
  it('shows images and videos inline under their stem, other files as links', () => {
    expect(markdownFor('dk.png', '/u/dk.png')).toEqual({ alt: 'dk', markdown: '![dk](/u/dk.png)' });
    expect(markdownFor('clip.mp4', '/u/clip.mp4')).toEqual({ alt: 'clip', markdown: '![clip](/u/clip.mp4)' });
    expect(markdownFor('test.txt', '/u/test.txt')).toEqual({ alt: 'test.txt', markdown: '[test.txt](/u/test.txt)' });
    expect(markdownFor('a]b.txt', '/u/x')).toEqual({ alt: 'a\\]b.txt', markdown: '[a\\]b.txt](/u/x)' });
  });

  it('guesses the content type from the extension', () => {
    expect(mimeTypeFor('a.PNG')).toBe('image/png');
    expect(mimeTypeFor('a.unknown')).toBe('application/octet-stream');
  });
});

describe('snippet file paths', () => {
  it('refuses traversal, absolute paths and NUL', () => {
    for (const bad of ['..', '../a', 'a/../b', '/etc/passwd', 'C:\\x', 'a\0b', '%2e%2e/x']) expect(isValidFilePath(bad)).toBe(false);
    for (const good of ['a.txt', 'dir/file.rb', '.hidden', 'a..b']) expect(isValidFilePath(good)).toBe(true);
  });
});
