import { useCallback, useEffect, useState } from 'react';
import type { SandlabDesktopApi } from '../../../../shared/ipc';
import { ErrorNote } from '../../components/ErrorNote';

/** Desktop only: remote tokens (migration sources, providers) in the keychain. Values go in, never out. */
export function CredentialsWorkspace({ desktop }: { desktop: SandlabDesktopApi }): React.JSX.Element {
  const [names, setNames] = useState<string[]>([]);
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const reload = useCallback(() => desktop.listCredentials().then(setNames, (e) => setError(String(e))), [desktop]);
  useEffect(() => {
    void reload();
  }, [reload]);

  async function add(): Promise<void> {
    setError(null);
    try {
      await desktop.setCredential(name.trim(), value);
      setName('');
      setValue('');
      await reload();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  }

  return (
    <section className="workspace-body" aria-labelledby="cred-title">
      <h2 id="cred-title">Remote credentials</h2>
      <p className="muted">Kept in the OS keychain. Sandlab never shows a stored value again.</p>
      <ul className="plain-list">
        {names.map((n) => (
          <li key={n}>
            <code>{n}</code>{' '}
            <button type="button" onClick={() => void desktop.deleteCredential(n).then(reload)}>
              Delete
            </button>
          </li>
        ))}
        {names.length === 0 && <li className="muted">None stored.</li>}
      </ul>
      <form
        className="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          void add();
        }}
      >
        <input aria-label="Credential name" placeholder="migration:https://gitlab.example.com" value={name} onChange={(e) => setName(e.target.value)} />
        <input aria-label="Credential value" type="password" autoComplete="off" placeholder="token" value={value} onChange={(e) => setValue(e.target.value)} />
        <button type="submit" disabled={!name.trim() || !value}>
          Store
        </button>
      </form>
      <ErrorNote message={error} />
    </section>
  );
}
