import { useShell } from '../../stores/shell';
import { bridge } from '../../bridge';

/** Where the service runs and how to reach it from scripts. */
export function StatusWorkspace(): React.JSX.Element {
  const status = useShell((s) => s.status);
  if (!status) return <section className="workspace-body">Loading…</section>;
  return (
    <section className="workspace-body" aria-labelledby="status-title">
      <h2 id="status-title">Service</h2>
      <dl className="facts">
        <dt>API</dt>
        <dd>{status.url ? <code>{status.url}/api/v4</code> : 'not listening'}</dd>
        <dt>GitLab version</dt>
        <dd>{status.version}</dd>
        {status.appVersion && (
          <>
            <dt>App version</dt>
            <dd>{status.appVersion}</dd>
          </>
        )}
        {status.dataDir && (
          <>
            <dt>Data folder</dt>
            <dd>
              <code>{status.dataDir}</code>
            </dd>
          </>
        )}
        {status.uptimeSeconds !== undefined && (
          <>
            <dt>Uptime</dt>
            <dd>{status.uptimeSeconds} s</dd>
          </>
        )}
        {status.vault && (
          <>
            <dt>Secrets</dt>
            <dd>{status.vault.kind === 'keychain' ? 'OS keychain' : status.vault.message}</dd>
          </>
        )}
        <dt>Bridge</dt>
        <dd>{bridge.kind === 'ipc' ? 'IPC (desktop)' : 'HTTP (browser)'}</dd>
      </dl>
    </section>
  );
}
