import { useEffect, useMemo, useState } from 'react';
import { bridge } from './bridge';
import { ErrorNote } from './components/ErrorNote';
import { Form } from './components/Form';
import { Icon } from './components/Icon';
import { Notices } from './components/Notices';
import { ProjectPicker } from './components/ProjectPicker';
import { StatusBar } from './components/StatusBar';
import { errorText } from './lib/format';
import { applyTheme } from './lib/theme';
import { useProject } from './stores/project';
import { useShell } from './stores/shell';
import { DEFAULT_WORKSPACE, WORKSPACES, type WorkspaceDef } from './workspaces/registry';

/** `#/snippets` -> 'snippets'. */
const routeOf = (hash: string): string => hash.replace(/^#\/?/, '').split('/')[0] || DEFAULT_WORKSPACE;

function useRoute(): string {
  const [route, setRoute] = useState(() => routeOf(location.hash));
  useEffect(() => {
    const onHash = (): void => setRoute(routeOf(location.hash));
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  return route;
}

/** Workspaces this service has (see registry.ts: `requires`). */
function useAvailableWorkspaces(): WorkspaceDef[] {
  const available = useShell((s) => s.available);
  // One list per probe result: effects that depend on it (job polling) must not re-run each render.
  return useMemo(() => WORKSPACES.filter((w) => (w.requires ? available[w.id] === true : true)), [available]);
}

/** The shell: header (project picker), sidebar of workspaces, the workspace, status bar, notices. */
export function App(): React.JSX.Element {
  const { ready, theme, refreshStatus, applyJobProgress, loadTheme, probe } = useShell();
  const workspaces = useAvailableWorkspaces();
  const route = useRoute();
  const current = workspaces.find((w) => w.id === route) ?? workspaces[0];

  useEffect(() => {
    void loadTheme().catch(() => {});
  }, [loadTheme]);
  useEffect(() => applyTheme(theme), [theme]);

  useEffect(() => {
    void refreshStatus();
    const timer = setInterval(() => void refreshStatus(), 15_000);
    const unsubscribe = bridge.onJobProgress(applyJobProgress);
    return () => {
      clearInterval(timer);
      unsubscribe();
    };
  }, [refreshStatus, applyJobProgress]);

  useEffect(() => {
    if (!ready) return;
    void probe(WORKSPACES);
    void forgetMissingProject();
  }, [ready, probe]);

  useBrowserJobPolling(ready, workspaces);

  return (
    <div className="shell">
      <a className="skip-link" href="#workspace" onClick={(e) => (e.preventDefault(), document.getElementById('workspace')?.focus())}>
        Skip to the workspace
      </a>
      <header className="topbar">
        <span className="brand">Sandlab</span>
        <ProjectPicker disabled={!ready} />
        {bridge.kind === 'http' && ready && (
          <button type="button" className="sign-out" onClick={useShell.getState().signOut}>
            Forget token
          </button>
        )}
      </header>
      <nav className="sidebar" aria-label="Workspaces">
        {ready &&
          workspaces.map((w) => (
            <a key={w.id} href={`#/${w.id}`} className={w.id === current?.id ? 'nav active' : 'nav'} aria-current={w.id === current?.id ? 'page' : undefined}>
              <Icon name={w.icon} />
              <span>{w.label}</span>
            </a>
          ))}
      </nav>
      <main className="workspace" id="workspace" tabIndex={-1}>
        {!ready ? <TokenForm /> : current ? <current.Component key={current.id} /> : null}
      </main>
      <StatusBar />
      <Notices />
    </div>
  );
}

/** A project remembered from another data folder (or deleted since) is forgotten, not shown as current. */
async function forgetMissingProject(): Promise<void> {
  const project = useProject.getState().project;
  if (!project) return;
  const r = await bridge.api({ method: 'GET', path: `/projects/${project.id}`, query: { simple: true } });
  if (r.status === 404) useProject.getState().choose(null);
}

/** Browser only: running jobs come from the workspaces' APIs, every few seconds. */
function useBrowserJobPolling(ready: boolean, workspaces: WorkspaceDef[]): void {
  useEffect(() => {
    const readers = workspaces.map((w) => w.readJobs).filter((r): r is NonNullable<WorkspaceDef['readJobs']> => !!r);
    if (bridge.kind !== 'http' || !ready || readers.length === 0) return;
    const poll = (): void => {
      for (const read of readers) read(bridge).then(useShell.getState().applyJobProgress, () => {});
    };
    poll();
    const timer = setInterval(poll, 3000);
    return () => clearInterval(timer);
  }, [ready, workspaces]);
}

/** Browser only: the personal access token this tab uses (kept in session storage). */
function TokenForm(): React.JSX.Element {
  const signIn = useShell((s) => s.signIn);
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  return (
    <section className="workspace-body connect" aria-labelledby="token-title">
      <h1 id="token-title">Connect to Sandlab</h1>
      <p className="muted">
        Give a personal access token of this Sandlab (for example the root token <code>serve</code> printed). It is kept in this tab only and
        forgotten when the tab closes.
      </p>
      <Form
        className="connect-form"
        aria-label="Connect"
        onSubmit={() => {
          setError(null);
          signIn(token).catch((err) => setError(errorText(err)));
        }}
      >
        <label htmlFor="token-input">Token</label>
        <input id="token-input" type="password" autoComplete="off" autoFocus value={token} onChange={(e) => setToken(e.target.value)} />
        <button type="submit" className="primary" disabled={!token.trim()}>
          Connect
        </button>
      </Form>
      <ErrorNote message={error} />
    </section>
  );
}
