import { useEffect, useState } from 'react';
import { bridge } from './bridge';
import { ErrorNote } from './components/ErrorNote';
import { useShell, type WorkspaceId } from './stores/shell';
import { CredentialsWorkspace } from './workspaces/credentials/CredentialsWorkspace';
import { PreferencesWorkspace } from './workspaces/preferences/PreferencesWorkspace';
import { ProjectsWorkspace } from './workspaces/projects/ProjectsWorkspace';
import { StatusWorkspace } from './workspaces/status/StatusWorkspace';

interface WorkspaceEntry {
  id: WorkspaceId;
  label: string;
  desktopOnly?: boolean;
}

const WORKSPACES: WorkspaceEntry[] = [
  { id: 'projects', label: 'Projects' },
  { id: 'status', label: 'Service' },
  { id: 'preferences', label: 'Preferences', desktopOnly: true },
  { id: 'credentials', label: 'Credentials', desktopOnly: true },
];

/** Shell: sidebar of workspaces, the selected workspace, a status bar with the service URL. */
export function App(): React.JSX.Element {
  const { ready, refreshStatus, applyJobProgress } = useShell();
  useEffect(() => {
    void refreshStatus();
    return bridge.onJobProgress(applyJobProgress);
  }, [refreshStatus, applyJobProgress]);
  return (
    <div className="shell">
      <Sidebar />
      <main className="workspace">{ready ? <CurrentWorkspace /> : <TokenForm />}</main>
      <StatusBar />
    </div>
  );
}

function Sidebar(): React.JSX.Element {
  const { workspace, select, ready, signOut } = useShell();
  return (
    <nav className="sidebar" aria-label="Workspaces">
      <div className="brand">Sandlab</div>
      {WORKSPACES.filter((w) => !w.desktopOnly || bridge.desktop).map((w) => (
        <button key={w.id} type="button" className={w.id === workspace ? 'nav active' : 'nav'} aria-current={w.id === workspace ? 'page' : undefined} disabled={!ready} onClick={() => select(w.id)}>
          {w.label}
        </button>
      ))}
      {bridge.kind === 'http' && ready && (
        <button type="button" className="nav sign-out" onClick={signOut}>
          Forget token
        </button>
      )}
    </nav>
  );
}

function CurrentWorkspace(): React.JSX.Element {
  const workspace = useShell((s) => s.workspace);
  const desktop = bridge.desktop;
  if (workspace === 'preferences' && desktop) return <PreferencesWorkspace desktop={desktop} />;
  if (workspace === 'credentials' && desktop) return <CredentialsWorkspace desktop={desktop} />;
  if (workspace === 'status') return <StatusWorkspace />;
  return <ProjectsWorkspace />;
}

/** Browser only: the personal access token this tab uses (kept in session storage). */
function TokenForm(): React.JSX.Element {
  const signIn = useShell((s) => s.signIn);
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  return (
    <section className="workspace-body" aria-labelledby="token-title">
      <h2 id="token-title">Connect to Sandlab</h2>
      <p className="muted">Paste a personal access token for this Sandlab (for example the root token `serve` printed).</p>
      <form
        className="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          setError(null);
          signIn(token).catch((err) => setError(err instanceof Error ? err.message : String(err)));
        }}
      >
        <input aria-label="Personal access token" type="password" autoComplete="off" value={token} onChange={(e) => setToken(e.target.value)} />
        <button type="submit" disabled={!token.trim()}>
          Connect
        </button>
      </form>
      <ErrorNote message={error} />
    </section>
  );
}

function StatusBar(): React.JSX.Element {
  const { status, jobs } = useShell();
  const active = Object.values(jobs).filter((j) => j.state === 'created' || j.state === 'started');
  return (
    <footer className="statusbar">
      <span>
        API{' '}
        <code data-testid="service-url">{status ? (status.url ? `${status.url}/api/v4` : 'not listening') : 'starting…'}</code>
      </span>
      {status?.version && <span className="muted">GitLab {status.version}</span>}
      {active.length > 0 && (
        <span data-testid="job-progress">
          {active.map((j) => `${j.kind} ${j.done}/${j.total}`).join(' · ')}
        </span>
      )}
      {status?.error && (
        <span className="statusbar-error" role="alert" data-testid="service-error">
          {status.error}
        </span>
      )}
      {status?.vault?.message && (
        <span className="statusbar-warning" role="status" data-testid="vault-warning" title={status.vault.message}>
          {status.vault.kind === 'memory' ? 'Secrets not saved' : 'No OS keychain: encrypted file in use'}
        </span>
      )}
    </footer>
  );
}
