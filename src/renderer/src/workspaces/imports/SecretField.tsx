import { useCallback, useEffect, useState } from 'react';
import { bridge } from '../../bridge';
import { runAction } from '../../stores/notices';
import type { Secret } from './providers';

/**
 * A provider token. In the desktop app it is a credential stored in the keychain, chosen by name
 * (main puts its value into the request); a new one can be stored here. In a browser the user
 * types it, and it lives in this tab's memory only.
 */
export function SecretField({ id, label, value, onChange, suggestedName }: { id: string; label: string; value: Secret | null; onChange: (s: Secret | null) => void; suggestedName: string }): React.JSX.Element {
  const desktop = bridge.desktop;
  if (!desktop) {
    return (
      <>
        <label htmlFor={id}>{label}</label>
        <span className="field-with-hint">
          <input id={id} type="password" autoComplete="off" value={value && 'typed' in value ? value.typed : ''} onChange={(e) => onChange(e.target.value ? { typed: e.target.value } : null)} />
          <span className="muted hint">Kept in this tab only.</span>
        </span>
      </>
    );
  }
  return <StoredCredentialField id={id} label={label} value={value} onChange={onChange} suggestedName={suggestedName} />;
}

function StoredCredentialField({ id, label, value, onChange, suggestedName }: { id: string; label: string; value: Secret | null; onChange: (s: Secret | null) => void; suggestedName: string }): React.JSX.Element {
  const desktop = bridge.desktop!;
  const [names, setNames] = useState<string[]>([]);
  const [adding, setAdding] = useState(false);
  const [name, setName] = useState(suggestedName);
  const [secret, setSecret] = useState('');
  const reload = useCallback(() => desktop.listCredentials().then(setNames, () => setNames([])), [desktop]);
  useEffect(() => {
    void reload();
  }, [reload]);
  useEffect(() => setName(suggestedName), [suggestedName]);
  const chosen = value && 'credential' in value ? value.credential : '';

  async function store(): Promise<void> {
    const stored = name.trim();
    if ((await runAction(() => desktop.setCredential(stored, secret), `Stored credential ${stored} in the keychain`)) === undefined) return;
    setSecret('');
    setAdding(false);
    await reload();
    onChange({ credential: stored });
  }

  return (
    <>
      <label htmlFor={id}>{label}</label>
      <span className="field-with-hint">
        <span className="toolbar tight">
          <select id={id} value={chosen} onChange={(e) => onChange(e.target.value ? { credential: e.target.value } : null)}>
            <option value="">{names.length ? 'Choose a stored credential' : 'No credential stored yet'}</option>
            {names.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
          <button type="button" onClick={() => setAdding(!adding)} aria-expanded={adding}>
            Store a new one
          </button>
        </span>
        {adding && (
          <span className="toolbar tight" role="group" aria-label="New credential">
            <input aria-label="Credential name" value={name} onChange={(e) => setName(e.target.value)} />
            <input aria-label="Credential value" type="password" autoComplete="off" placeholder="token" value={secret} onChange={(e) => setSecret(e.target.value)} />
            <button type="button" disabled={!name.trim() || !secret} onClick={() => void store()}>
              Store in keychain
            </button>
          </span>
        )}
        <span className="muted hint">Kept in the OS keychain; Sandlab puts it into the request and never shows it again.</span>
      </span>
    </>
  );
}
