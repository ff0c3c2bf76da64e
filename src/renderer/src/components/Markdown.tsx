import { useEffect, useState } from 'react';
import { apiOk, bridge } from '../bridge';
import { errorText } from '../lib/format';

const cache = new Map<string, string>();

/** Renders Markdown as GitLab does, through POST /markdown (sanitized by the service; the CSP runs no script either). */
export function Markdown({ text, project, className }: { text: string; project?: string; className?: string }): React.JSX.Element {
  const key = `${project ?? ''}\u0000${text}`;
  const [html, setHtml] = useState<string | null>(cache.get(key) ?? null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (cache.has(key)) return setHtml(cache.get(key)!);
    let stale = false;
    apiOk<{ html: string }>(bridge, { method: 'POST', path: '/markdown', body: { text, gfm: true, ...(project ? { project } : {}) } }).then(
      (r) => {
        cache.set(key, r.body.html);
        if (!stale) setHtml(r.body.html);
      },
      (e) => !stale && setError(errorText(e)),
    );
    return () => {
      stale = true;
    };
  }, [key, text, project]);
  if (error) return <p className="error-note">{error}</p>;
  if (html === null) return <p className="muted">Rendering…</p>;
  // The HTML comes from Sandlab's own Markdown API, which sanitizes it (no script, handler or javascript: URL).
  return <div className={`markdown ${className ?? ''}`} dangerouslySetInnerHTML={{ __html: html }} />;
}
