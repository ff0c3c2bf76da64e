import { useEffect, useState } from 'react';
import type { Preferences, SandlabDesktopApi, Theme } from '../../../../shared/ipc';
import { ErrorNote } from '../../components/ErrorNote';
import { useShell } from '../../stores/shell';

/** Desktop only: port, data dir, theme. A changed port or data dir restarts the service. */
export function PreferencesWorkspace({ desktop }: { desktop: SandlabDesktopApi }): React.JSX.Element {
  const refreshStatus = useShell((s) => s.refreshStatus);
  const [prefs, setPrefs] = useState<Preferences | null>(null);
  const [port, setPort] = useState('');
  const [dataDir, setDataDir] = useState('');
  const [theme, setTheme] = useState<Theme>('system');
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);

  useEffect(() => {
    desktop.getPreferences().then((p) => {
      setPrefs(p);
      setPort(String(p.port));
      setDataDir(p.dataDir);
      setTheme(p.theme);
    }, (e) => setError(String(e)));
  }, [desktop]);

  async function save(): Promise<void> {
    setError(null);
    setSaved(null);
    try {
      const r = await desktop.setPreferences({ port: Number(port), dataDir: dataDir.trim(), theme });
      setPrefs(r.preferences);
      setSaved(r.status.error ? `Saved. ${r.status.error}` : `Saved. Service at ${r.status.url}`);
      await refreshStatus();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  }

  if (!prefs) return <section className="workspace-body">{error ? <ErrorNote message={error} /> : 'Loading…'}</section>;
  return (
    <section className="workspace-body" aria-labelledby="prefs-title">
      <h2 id="prefs-title">Preferences</h2>
      <form
        className="form-grid"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <label htmlFor="pref-port">Port (0 = any free port)</label>
        <input id="pref-port" inputMode="numeric" value={port} onChange={(e) => setPort(e.target.value)} />
        <label htmlFor="pref-data-dir">Data folder (empty = default)</label>
        <input id="pref-data-dir" value={dataDir} onChange={(e) => setDataDir(e.target.value)} placeholder="/absolute/path" />
        <label htmlFor="pref-theme">Theme</label>
        <select id="pref-theme" value={theme} onChange={(e) => setTheme(e.target.value as Theme)}>
          <option value="system">system</option>
          <option value="light">light</option>
          <option value="dark">dark</option>
        </select>
        <div />
        <div className="toolbar">
          <button type="submit">Save</button>
          <button type="button" onClick={() => void desktop.revealDataDir().catch((e) => setError(String(e)))}>
            Reveal data folder
          </button>
        </div>
      </form>
      {saved && <p className="muted">{saved}</p>}
      <ErrorNote message={error} />
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
    </section>
  );
}
