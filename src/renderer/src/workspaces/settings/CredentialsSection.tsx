import { useCallback, useEffect, useState } from 'react';
import type { SandlabDesktopApi } from '../../../../shared/ipc';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ErrorNote } from '../../components/ErrorNote';
import { Form } from '../../components/Form';
import { errorText } from '../../lib/format';
import { runAction, runStep } from '../../stores/notices';

/** Desktop only: remote tokens (migration sources, providers) in the keychain. Values go in, never out. */
export function CredentialsSection({ desktop }: { desktop: SandlabDesktopApi }): React.JSX.Element {
  const [names, setNames] = useState<string[]>([]);
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const reload = useCallback(() => desktop.listCredentials().then(setNames, (e) => setError(errorText(e))), [desktop]);
  useEffect(() => {
    void reload();
  }, [reload]);

  async function add(): Promise<void> {
    const stored = name.trim();
    if (!(await runStep(() => desktop.setCredential(stored, value), `Stored credential ${stored}`))) return;
    setName('');
    setValue('');
    await reload();
  }

  return (
    <section className="card" aria-labelledby="cred-title">
      <h2 id="cred-title">Remote credentials</h2>
      <p className="muted">Tokens for migration sources and import providers, kept in the OS keychain. Sandlab never shows a stored value again.</p>
      <ul className="plain-list">
        {names.map((n) => (
          <li key={n}>
            <code>{n}</code>{' '}
            <ConfirmButton label="Delete" question={`Delete ${n}?`} confirmLabel="Delete credential" onConfirm={() => void runAction(() => desktop.deleteCredential(n), `Deleted ${n}`).then(reload)} />
          </li>
        ))}
        {names.length === 0 && <li className="muted">None stored.</li>}
      </ul>
      <Form className="toolbar" aria-label="New credential" onSubmit={() => void add()}>
        <input aria-label="Credential name" placeholder="migration:https://gitlab.example.com" value={name} onChange={(e) => setName(e.target.value)} />
        <input aria-label="Credential value" type="password" autoComplete="off" placeholder="token" value={value} onChange={(e) => setValue(e.target.value)} />
        <button type="submit" disabled={!name.trim() || !value}>
          Store
        </button>
      </Form>
      <ErrorNote message={error} />
    </section>
  );
}
