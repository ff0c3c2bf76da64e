/**
 * `Content-Disposition` as Rails formats it (ActionDispatch::Http::ContentDisposition): an ASCII
 * `filename` with anything else replaced by `_`, and the exact name in `filename*`.
 */
export function contentDisposition(disposition: 'inline' | 'attachment', filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '\\$&');
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${disposition}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
