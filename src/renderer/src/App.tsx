import { useEffect, useState } from 'react';

/** Minimal shell: shows where the local API listens. */
export function App(): React.JSX.Element {
  const [url, setUrl] = useState<string>('starting…');
  useEffect(() => {
    if (window.sandlab) window.sandlab.serviceStatus().then((s) => setUrl(s.url), (e) => setUrl(`error: ${String(e)}`));
    else setUrl(window.location.origin);
  }, []);
  return (
    <main style={{ fontFamily: 'system-ui, sans-serif', padding: 24 }}>
      <h1>Sandlab</h1>
      <p>
        GitLab-compatible API at <code data-testid="service-url">{url}/api/v4</code>
      </p>
    </main>
  );
}
