import { useEffect, useMemo, useState } from 'react';
import { useStore } from 'zustand';
import { createColumnHelper } from '@tanstack/react-table';
import { TOKEN_SCOPES } from '../../../../shared/token-scopes';
import { ConfirmButton } from '../../components/ConfirmButton';
import { CopyButton } from '../../components/CopyButton';
import { DataTable } from '../../components/DataTable';
import { Form } from '../../components/Form';
import { formatDate } from '../../lib/format';
import { runAction } from '../../stores/notices';
import { useShell } from '../../stores/shell';
import { tokenList, useTokens, type PersonalAccessToken } from '../../stores/tokens';

const col = createColumnHelper<PersonalAccessToken>();

function tokenState(t: PersonalAccessToken): string {
  if (t.revoked) return 'revoked';
  return t.active ? 'active' : 'expired';
}

/** The signed-in user's personal access tokens: create (value shown once), rotate, revoke. */
export function TokensSection(): React.JSX.Element {
  const list = useStore(tokenList);
  const user = useShell((s) => s.user);
  const { selfId, revealed, showInactive, setShowInactive, loadSelf, rotate, revoke, forgetRevealed } = useTokens();

  useEffect(() => {
    if (!user) return;
    void loadSelf();
    void tokenList.getState().load();
  }, [user, loadSelf]);

  const columns = useMemo(
    () => [
      col.accessor('name', { header: 'Name', enableSorting: true, cell: (c) => <strong>{c.getValue()}</strong> }),
      col.accessor('scopes', { header: 'Scopes', cell: (c) => c.getValue().join(', ') }),
      col.accessor('created_at', { header: 'Created', enableSorting: true, cell: (c) => formatDate(c.getValue()) }),
      col.accessor('last_used_at', { header: 'Last used', enableSorting: true, cell: (c) => formatDate(c.getValue()) || 'never' }),
      col.accessor('expires_at', { header: 'Expires', enableSorting: true, cell: (c) => c.getValue() ?? 'never' }),
      col.display({ id: 'state', header: 'State', cell: (c) => <span className={`badge ${tokenState(c.row.original)}`}>{tokenState(c.row.original)}</span> }),
      col.display({
        id: 'actions',
        header: () => <span className="visually-hidden">Actions</span>,
        cell: (c) => {
          const t = c.row.original;
          if (t.id === selfId) return <span className="muted">in use by this app</span>;
          if (!t.active) return null;
          return (
            <span className="row-actions">
              <button type="button" aria-label={`Rotate ${t.name}`} onClick={() => void runAction(() => rotate(t.id), `Rotated ${t.name}: copy the new value now`)}>
                Rotate
              </button>
              <ConfirmButton label="Revoke" question={`Revoke ${t.name}?`} confirmLabel={`Revoke ${t.name}`} onConfirm={() => void runAction(() => revoke(t.id), `Revoked ${t.name}`)} />
            </span>
          );
        },
      }),
    ],
    [selfId, rotate, revoke],
  );

  return (
    <section className="card" aria-labelledby="tokens-title">
      <h2 id="tokens-title">Personal access tokens</h2>
      {revealed?.token && (
        <div className="revealed" role="status" aria-label="New token value">
          <p>
            <strong>{revealed.name}</strong>: copy this token now. It is shown once and Sandlab keeps only its digest.
          </p>
          <div className="toolbar">
            <code className="token-value" data-testid="revealed-token">
              {revealed.token}
            </code>
            <CopyButton text={revealed.token} label="Copy token">
              Copy
            </CopyButton>
            <button type="button" onClick={forgetRevealed}>
              Done
            </button>
          </div>
        </div>
      )}
      <DataTable
        list={list}
        columns={columns}
        label="Personal access tokens"
        filterLabel="Filter tokens by name"
        empty={showInactive ? 'No tokens.' : 'No active tokens.'}
        rowKey={(t) => String(t.id)}
        testId="tokens-table"
        toolbar={
          <label className="check">
            <input type="checkbox" checked={showInactive} onChange={(e) => void setShowInactive(e.target.checked)} /> Show revoked and expired
          </label>
        }
      />
      <NewTokenForm />
    </section>
  );
}

function NewTokenForm(): React.JSX.Element {
  const create = useTokens((s) => s.create);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [expiresAt, setExpiresAt] = useState('');
  const [scopes, setScopes] = useState<string[]>(['api']);

  async function submit(): Promise<void> {
    const made = await runAction(() => create({ name: name.trim(), scopes, expiresAt, description: description.trim() }), (t) => `Created token ${t.name}: copy its value now`);
    if (made) {
      setName('');
      setDescription('');
    }
  }

  return (
    <Form className="new-token" aria-label="New personal access token" onSubmit={() => void submit()}>
      <h3>New token</h3>
      <div className="form-grid">
        <label htmlFor="token-name">Token name</label>
        <input id="token-name" value={name} onChange={(e) => setName(e.target.value)} placeholder="ci-script" />
        <label htmlFor="token-description">Description</label>
        <input id="token-description" value={description} onChange={(e) => setDescription(e.target.value)} placeholder="optional" />
        <label htmlFor="token-expires">Expires on</label>
        <input id="token-expires" type="date" value={expiresAt} onChange={(e) => setExpiresAt(e.target.value)} aria-describedby="token-expires-hint" />
      </div>
      <p id="token-expires-hint" className="muted hint">
        Empty: in a year, as GitLab does.
      </p>
      <fieldset className="scopes">
        <legend>Scopes</legend>
        {TOKEN_SCOPES.map((s) => (
          <label key={s} className="check">
            <input type="checkbox" checked={scopes.includes(s)} onChange={(e) => setScopes(e.target.checked ? [...scopes, s] : scopes.filter((x) => x !== s))} />
            <code>{s}</code>
          </label>
        ))}
      </fieldset>
      <button type="submit" className="primary" disabled={!name.trim()}>
        Create token
      </button>
    </Form>
  );
}
