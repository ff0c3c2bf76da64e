import type { Theme } from '../../../../shared/ipc';
import { bridge } from '../../bridge';
import { formatDate } from '../../lib/format';
import { runAction } from '../../stores/notices';
import { useShell } from '../../stores/shell';
import { CredentialsSection } from './CredentialsSection';
import { ServicePreferences } from './ServicePreferences';
import { TokensSection } from './TokensSection';

/** Settings: appearance, the service (port, data folder), where secrets live, tokens, remote credentials. */
export function SettingsWorkspace(): React.JSX.Element {
  return (
    <section className="workspace-body settings" aria-labelledby="settings-title">
      <header className="workspace-header">
        <h1 id="settings-title">Settings</h1>
      </header>
      <AppearanceSection />
      <ServiceSection />
      <TokensSection />
      {bridge.desktop && <CredentialsSection desktop={bridge.desktop} />}
    </section>
  );
}

function AppearanceSection(): React.JSX.Element {
  const { theme, setTheme } = useShell();
  return (
    <section className="card" aria-labelledby="appearance-title">
      <h2 id="appearance-title">Appearance</h2>
      <div className="form-grid">
        <label htmlFor="pref-theme">Theme</label>
        <select id="pref-theme" value={theme} onChange={(e) => void runAction(() => setTheme(e.target.value as Theme), `Theme: ${e.target.value}`)}>
          <option value="system">Follow the system</option>
          <option value="light">Light</option>
          <option value="dark">Dark</option>
        </select>
      </div>
    </section>
  );
}

function ServiceSection(): React.JSX.Element {
  const status = useShell((s) => s.status);
  const user = useShell((s) => s.user);
  const vault = status?.vault;
  return (
    <section className="card" aria-labelledby="service-title">
      <h2 id="service-title">Service</h2>
      <dl className="facts">
        <dt>API</dt>
        <dd>{status?.url ? <code>{status.url}/api/v4</code> : 'not listening'}</dd>
        <dt>GitLab version</dt>
        <dd>{status?.version || '—'}</dd>
        {user && (
          <>
            <dt>Signed in as</dt>
            <dd>
              {user.name} (<code>@{user.username}</code>){user.is_admin ? ', administrator' : ''}
            </dd>
          </>
        )}
        {status?.appVersion && (
          <>
            <dt>App version</dt>
            <dd>{status.appVersion}</dd>
          </>
        )}
        {status?.dataDir && (
          <>
            <dt>Data folder</dt>
            <dd>
              <code>{status.dataDir}</code>
            </dd>
          </>
        )}
        {status?.uptimeSeconds !== undefined && (
          <>
            <dt>Started</dt>
            <dd>{formatDate(new Date(Date.now() - status.uptimeSeconds * 1000).toISOString())}</dd>
          </>
        )}
        <dt>Keychain</dt>
        <dd data-testid="keychain-status">
          {bridge.desktop ? (vault ? (vault.kind === 'keychain' ? 'OS keychain' : vault.message) : '…') : 'None in a browser: the token you gave lives in this tab only, until it closes.'}
        </dd>
        <dt>Bridge</dt>
        <dd>{bridge.kind === 'ipc' ? 'IPC (desktop)' : 'HTTP (browser)'}</dd>
      </dl>
      {bridge.desktop ? (
        <ServicePreferences desktop={bridge.desktop} />
      ) : (
        <p className="muted">Port and data folder are set where the service runs: <code>npm run serve -- --port &lt;n&gt; --data-dir &lt;dir&gt; --ui</code>.</p>
      )}
    </section>
  );
}
