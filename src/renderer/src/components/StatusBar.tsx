import type { VaultStatus } from '../../../shared/ipc';
import { bridge } from '../bridge';
import { runningJobs, useShell } from '../stores/shell';
import { CopyButton } from './CopyButton';

/** What a script would type to reach this service (the token stays a placeholder: it is never shown). */
export function curlExample(apiUrl: string): string {
  return `curl --header "PRIVATE-TOKEN: <your_access_token>" "${apiUrl}/projects"`;
}

/** Where secrets live, in a word or two. */
function keychainLabel(vault: VaultStatus | undefined): { text: string; title: string; warn: boolean } {
  if (!bridge.desktop) return { text: 'Token: this tab only', title: 'The token you gave is kept in this tab’s session storage and forgotten when the tab closes.', warn: false };
  if (!vault) return { text: 'Keychain: …', title: '', warn: false };
  if (vault.kind === 'keychain') return { text: 'Keychain: OS keychain', title: 'Tokens are kept in the operating system’s keychain.', warn: false };
  if (vault.kind === 'encrypted-file') return { text: 'Keychain: encrypted file', title: vault.message ?? '', warn: true };
  return { text: 'Keychain: memory only', title: vault.message ?? '', warn: true };
}

/** The bottom bar: service URL (copyable, with a curl line), connection, keychain, running jobs. */
export function StatusBar(): React.JSX.Element {
  const { status, connection, jobs } = useShell();
  const apiUrl = status?.url ? `${status.url}/api/v4` : '';
  const active = runningJobs(jobs);
  const keychain = keychainLabel(status?.vault);
  return (
    <footer className="statusbar" aria-label="Status">
      <span className={`connection ${connection}`} role="status" data-testid="connection" title={status?.error ?? undefined}>
        <span className="dot" aria-hidden="true" />
        {connection === 'connected' ? 'Connected' : connection === 'connecting' ? 'Connecting…' : 'Disconnected'}
      </span>
      <span className="status-url">
        <code data-testid="service-url">{status ? apiUrl || 'not listening' : 'starting…'}</code>
        {apiUrl && <CopyButton text={apiUrl} label="Copy service URL" />}
        {apiUrl && (
          <CopyButton text={() => curlExample(apiUrl)} label="Copy curl example">
            curl
          </CopyButton>
        )}
      </span>
      {status?.version && <span className="muted">GitLab {status.version}</span>}
      <span className={keychain.warn ? 'statusbar-warning' : 'muted'} data-testid="keychain" title={keychain.title}>
        {keychain.text}
      </span>
      {active.length > 0 && (
        <span className="jobs" data-testid="job-progress">
          {active.map((j) => (
            <span key={j.jobId} className="job" title={j.message}>
              <span>{j.kind.replace(/_/g, ' ')}</span>
              <progress max={Math.max(j.total, 1)} value={j.done} aria-label={`${j.kind.replace(/_/g, ' ')} ${j.jobId}`} />
              <span className="muted">
                {j.done}/{j.total}
              </span>
            </span>
          ))}
        </span>
      )}
      {status?.error && (
        <span className="statusbar-error" role="alert" data-testid="service-error">
          {status.error}
        </span>
      )}
    </footer>
  );
}
