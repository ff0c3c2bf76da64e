import { useEffect, useState } from 'react';
import type { Preferences, SandlabDesktopApi } from '../../../../shared/ipc';
import { ErrorNote } from '../../components/ErrorNote';
import { Form } from '../../components/Form';
import { errorText } from '../../lib/format';
import { runAction } from '../../stores/notices';
import { useShell } from '../../stores/shell';

/** Desktop only: port and data folder. A change restarts the service on the new port or folder. */
export function ServicePreferences({ desktop }: { desktop: SandlabDesktopApi }): React.JSX.Element {
  const refreshStatus = useShell((s) => s.refreshStatus);
  const [prefs, setPrefs] = useState<Preferences | null>(null);
  const [port, setPort] = useState('');
  const [dataDir, setDataDir] = useState('');
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    desktop.getPreferences().then(
      (p) => {
        setPrefs(p);
        setPort(String(p.port));
        setDataDir(p.dataDir);
      },
      (e) => setError(errorText(e)),
    );
  }, [desktop]);

  async function save(): Promise<void> {
    const r = await runAction(
      () => desktop.setPreferences({ port: Number(port), dataDir: dataDir.trim() }),
      (r) => (r.status.error ? `Saved. ${r.status.error}` : `Saved. Service at ${r.status.url}`),
    );
    if (r) setPrefs(r.preferences);
    await refreshStatus();
  }

  if (!prefs) return error ? <ErrorNote message={error} /> : <p className="muted">Loading preferences…</p>;
  return (
    <>
      <Form className="form-grid" aria-label="Service preferences" onSubmit={() => void save()}>
        <label htmlFor="pref-port">Port (0 = any free port)</label>
        <input id="pref-port" inputMode="numeric" value={port} onChange={(e) => setPort(e.target.value)} />
        <label htmlFor="pref-data-dir">Data folder (empty = default)</label>
        <input id="pref-data-dir" value={dataDir} onChange={(e) => setDataDir(e.target.value)} placeholder="/absolute/path" />
        <div />
        <div className="toolbar">
          <button type="submit" className="primary">
            Save and restart the service
          </button>
          <button type="button" onClick={() => void runAction(() => desktop.revealDataDir(), 'Opened the data folder')}>
            Reveal data folder
          </button>
        </div>
      </Form>
      {prefs.recentMigrationSources.length > 0 && (
        <>
          <h3>Recent migration sources</h3>
          <ul>
            {prefs.recentMigrationSources.map((s) => (
              <li key={s}>{s}</li>
            ))}
          </ul>
        </>
      )}
    </>
  );
}
