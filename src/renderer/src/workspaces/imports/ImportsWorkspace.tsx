import { useEffect, useMemo, useRef, useState } from 'react';
import { useStore } from 'zustand';
import { createColumnHelper } from '@tanstack/react-table';
import { ConfirmButton } from '../../components/ConfirmButton';
import { DataTable } from '../../components/DataTable';
import { ErrorNote } from '../../components/ErrorNote';
import { Form } from '../../components/Form';
import { errorText, formatDate } from '../../lib/format';
import { runAction, useNotices } from '../../stores/notices';
import { useProject } from '../../stores/project';
import { useShell } from '../../stores/shell';
import { bridge } from '../../bridge';
import { GITHUB_OPTIONAL_STAGES, PROVIDERS, type ProviderDef, type RepositoryChoice, providerById, secretGiven } from './providers';
import { SecretField } from './SecretField';
import { type ImportDetail, type ImportedProject, importList, isActive, repositoryList, useImports } from './store';

/**
 * Imports: bring a repository in from GitHub, Bitbucket Server or Bitbucket Cloud (pick it from
 * what the credentials reach), follow each import live, cancel one, open what it made; and
 * import your GitHub gists as snippets.
 */
export function ImportsWorkspace(): React.JSX.Element {
  useLiveImports();
  return (
    <section className="workspace-body imports" aria-labelledby="imports-title">
      <header className="workspace-header">
        <h1 id="imports-title">Imports</h1>
      </header>
      <NewImport />
      <ImportsList />
      <GistsImport />
    </section>
  );
}

/** Job events (the desktop's IPC push, or the browser's polling) refresh the list and the selected import. */
function useLiveImports(): void {
  const jobs = useShell((s) => s.jobs);
  const signature = useMemo(
    () =>
      Object.values(jobs)
        .filter((j) => j.kind === 'project_import' || j.kind === 'github_gists_import')
        .map((j) => `${j.jobId}:${j.state}:${j.done}:${j.message ?? ''}`)
        .join('|'),
    [jobs],
  );
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    const t = setTimeout(() => {
      void importList.getState().load();
      void useImports.getState().refreshDetail().catch(() => {});
      void useImports.getState().loadGistReport();
    }, 150);
    return () => clearTimeout(t);
  }, [signature]);
}

function NewImport(): React.JSX.Element {
  const { provider, connections, secrets, listing, picked, setProvider, setConnection, setSecret, listRepositories } = useImports();
  const def = providerById(provider);
  const connection = connections[provider];
  const missing = def.connection.filter((f) => !f.optional && !connection[f.name]?.trim());
  const canList = missing.length === 0 && secretGiven(secrets[provider]);
  const [byHand, setByHand] = useState(false);

  return (
    <section className="card" aria-labelledby="new-import-title">
      <h2 id="new-import-title">New import</h2>
      <fieldset className="segmented">
        <legend>Provider</legend>
        {PROVIDERS.map((p) => (
          <label key={p.id} className={p.id === provider ? 'checked' : undefined}>
            <input type="radio" name="provider" value={p.id} checked={p.id === provider} onChange={() => setProvider(p.id)} />
            {p.label}
          </label>
        ))}
      </fieldset>
      <Form className="form-grid" aria-label={`${def.label} credentials`} onSubmit={() => canList && void listRepositories()}>
        {def.connection.map((f) => (
          <FieldRow key={`${provider}-${f.name}`} id={`conn-${f.name}`} label={f.label} placeholder={f.placeholder} value={connection[f.name] ?? ''} onChange={(v) => setConnection(f.name, v)} />
        ))}
        <SecretField id={`secret-${provider}`} label={def.secretLabel} value={secrets[provider]} onChange={setSecret} suggestedName={suggestedCredentialName(def, connection)} />
        <span />
        <span className="toolbar tight">
          <button type="submit" className="primary" disabled={!canList}>
            Show repositories
          </button>
          <button type="button" onClick={() => setByHand(!byHand)} aria-expanded={byHand}>
            Name a repository instead
          </button>
        </span>
      </Form>
      {listing && <RepositoryPicker def={def} />}
      {(picked || byHand) && <ImportForm key={`${provider}:${picked?.full_name ?? 'by-hand'}`} def={def} repo={picked} />}
    </section>
  );
}

function suggestedCredentialName(def: ProviderDef, connection: Record<string, string>): string {
  const where = connection.github_hostname || connection.bitbucket_server_url || '';
  const who = connection.bitbucket_server_username || connection.bitbucket_username || '';
  return [def.id, where.replace(/^https?:\/\//, ''), who].filter(Boolean).join(':');
}

function FieldRow({ id, label, value, onChange, placeholder, type = 'text' }: { id: string; label: string; value: string; onChange: (v: string) => void; placeholder?: string; type?: string }): React.JSX.Element {
  return (
    <>
      <label htmlFor={id}>{label}</label>
      <input id={id} type={type} value={value} placeholder={placeholder} onChange={(e) => onChange(e.target.value)} />
    </>
  );
}

const repoCol = createColumnHelper<RepositoryChoice>();

function RepositoryPicker({ def }: { def: ProviderDef }): React.JSX.Element {
  const list = useStore(repositoryList);
  const { picked, pick } = useImports();
  const columns = useMemo(
    () => [
      repoCol.accessor('full_name', {
        header: 'Repository',
        cell: (c) => (
          <span>
            <strong>{c.getValue()}</strong> {c.row.original.private && <span className="badge">private</span>}
          </span>
        ),
      }),
      repoCol.accessor('description', { header: 'Description', cell: (c) => c.getValue() ?? '' }),
      repoCol.display({
        id: 'pick',
        header: () => <span className="visually-hidden">Choose</span>,
        cell: (c) => (
          <button type="button" aria-label={`Import ${c.row.original.full_name}`} onClick={() => pick(c.row.original)}>
            Import…
          </button>
        ),
      }),
    ],
    [pick],
  );
  return (
    <DataTable
      list={list}
      columns={columns}
      label={`${def.label} repositories`}
      empty="These credentials reach no repository."
      rowKey={(r) => r.full_name}
      onRowClick={pick}
      selectedKey={picked?.full_name ?? null}
      testId="repositories-table"
    />
  );
}

function ImportForm({ def, repo }: { def: ProviderDef; repo: RepositoryChoice | null }): React.JSX.Element {
  const user = useShell((s) => s.user);
  const { startImport, pick } = useImports();
  const [locator, setLocator] = useState<Record<string, string>>(() => Object.fromEntries(def.locator.map((f) => [f.name, String(repo?.import_params[f.name] ?? '')])));
  const [namespace, setNamespace] = useState(user?.username ?? '');
  const [newName, setNewName] = useState('');
  const [stages, setStages] = useState<Record<string, boolean>>({});
  const [timeoutStrategy, setTimeoutStrategy] = useState<'pessimistic' | 'optimistic'>('pessimistic');
  const [paginationLimit, setPaginationLimit] = useState(100);
  const [error, setError] = useState<string | null>(null);
  const namespaces = useNamespaces();
  const ready = def.locator.every((f) => locator[f.name]?.trim()) && namespace.trim();

  async function submit(): Promise<void> {
    setError(null);
    try {
      const made = await startImport({ locator, namespace: namespace.trim(), newName, optionalStages: stages, timeoutStrategy, paginationLimit });
      useNotices.getState().notify('success', `Import of ${made.import_source} scheduled into ${made.full_path.slice(1)}`);
      // Done with this form: the import shows below, live.
      pick(null);
      document.getElementById('imports-list-title')?.scrollIntoView({ block: 'start' });
    } catch (err) {
      setError(errorText(err));
    }
  }

  return (
    <Form className="import-form" aria-label={repo ? `Import ${repo.full_name}` : 'Import a repository'} onSubmit={() => ready && void submit()}>
      <h3>{repo ? `Import ${repo.full_name}` : 'Import a repository'}</h3>
      <div className="form-grid">
        {def.locator.map((f) => (
          <FieldRow key={f.name} id={`locator-${f.name}`} label={f.label} placeholder={f.placeholder} value={locator[f.name] ?? ''} onChange={(v) => setLocator({ ...locator, [f.name]: v })} />
        ))}
        <label htmlFor="import-namespace">Into namespace</label>
        <input id="import-namespace" list="import-namespaces" value={namespace} onChange={(e) => setNamespace(e.target.value)} />
        <datalist id="import-namespaces">
          {namespaces.map((n) => (
            <option key={n} value={n} />
          ))}
        </datalist>
        <FieldRow id="import-new-name" label="New name" placeholder={repo?.name ?? 'the repository name'} value={newName} onChange={setNewName} />
        {def.id !== 'bitbucket' && (
          <>
            <label htmlFor="import-timeout">When a stage fails</label>
            <select id="import-timeout" value={timeoutStrategy} onChange={(e) => setTimeoutStrategy(e.target.value as 'pessimistic' | 'optimistic')}>
              <option value="pessimistic">Stop the import (pessimistic)</option>
              <option value="optimistic">Go on with the next stage (optimistic)</option>
            </select>
          </>
        )}
        {def.id === 'github' && (
          <>
            <label htmlFor="import-page-size">Items per request</label>
            <input id="import-page-size" type="number" min={1} max={100} value={paginationLimit} onChange={(e) => setPaginationLimit(Number(e.target.value))} />
          </>
        )}
      </div>
      {def.id === 'github' && (
        <fieldset>
          <legend>Also import</legend>
          {GITHUB_OPTIONAL_STAGES.map((s) => (
            <label key={s.key} className="check block">
              <input type="checkbox" checked={!!stages[s.key]} onChange={(e) => setStages({ ...stages, [s.key]: e.target.checked })} />
              {s.label}
            </label>
          ))}
        </fieldset>
      )}
      <div className="toolbar">
        <button type="submit" className="primary" disabled={!ready}>
          Start import
        </button>
      </div>
      <ErrorNote message={error} />
    </Form>
  );
}

/** Namespaces the user can see, to suggest as destinations. */
function useNamespaces(): string[] {
  const [paths, setPaths] = useState<string[]>([]);
  useEffect(() => {
    void bridge.api<{ full_path: string }[]>({ method: 'GET', path: '/namespaces', query: { per_page: 100 } }).then((r) => r.status === 200 && Array.isArray(r.body) && setPaths(r.body.map((n) => n.full_path)));
  }, []);
  return paths;
}

const PROVIDER_LABELS: Record<string, string> = { github: 'GitHub', bitbucket_server: 'Bitbucket Server', bitbucket: 'Bitbucket Cloud' };
const importCol = createColumnHelper<ImportedProject>();

function ImportsList(): React.JSX.Element {
  const list = useStore(importList);
  const { selectedImportId, selectImport, cancelImport } = useImports();
  useEffect(() => {
    void importList.getState().load();
  }, []);
  const columns = useMemo(
    () => [
      importCol.accessor('path_with_namespace', { header: 'Project', cell: (c) => <ProjectLink project={c.row.original} /> }),
      importCol.accessor('import_type', { header: 'From', cell: (c) => PROVIDER_LABELS[c.getValue() ?? ''] ?? c.getValue() ?? '' }),
      importCol.accessor('import_status', { header: 'Status', cell: (c) => <StatusBadge status={c.getValue()} /> }),
      importCol.accessor('created_at', { header: 'Started', cell: (c) => formatDate(c.getValue()) }),
      importCol.display({
        id: 'actions',
        header: () => <span className="visually-hidden">Actions</span>,
        cell: (c) => {
          const p = c.row.original;
          if (!isActive(p.import_status) || p.import_type !== 'github') return null;
          return <ConfirmButton label="Cancel" question={`Cancel the import into ${p.path_with_namespace}?`} confirmLabel="Cancel import" onConfirm={() => void runAction(() => cancelImport(p.id), `Canceled the import into ${p.path_with_namespace}`)} />;
        },
      }),
    ],
    [cancelImport],
  );
  return (
    <section className="card" aria-labelledby="imports-list-title">
      <h2 id="imports-list-title">Your imports</h2>
      <DataTable
        list={list}
        columns={columns}
        label="Your imports"
        filterLabel="Filter imports"
        empty="Nothing imported yet."
        rowKey={(p) => String(p.id)}
        onRowClick={(p) => void selectImport(p.id)}
        selectedKey={selectedImportId === null ? null : String(selectedImportId)}
        testId="imports-table"
      />
      <ImportDetails />
    </section>
  );
}

/** The imported project: one click makes it the header's current project, for the other workspaces. */
function ProjectLink({ project }: { project: ImportedProject }): React.JSX.Element {
  const choose = useProject((s) => s.choose);
  return (
    <button
      type="button"
      className="link-button"
      title="Make it the current project"
      onClick={() => {
        choose({ id: project.id, name: project.name, path_with_namespace: project.path_with_namespace, web_url: project.web_url });
        useNotices.getState().notify('success', `Current project: ${project.path_with_namespace}`);
      }}
    >
      {project.path_with_namespace}
    </button>
  );
}

function StatusBadge({ status }: { status: string }): React.JSX.Element {
  return <span className={`badge status-${status}`}>{status}</span>;
}

/** How the selected import went: where from, its counts per kind of record, what failed. */
function ImportDetails(): React.JSX.Element | null {
  const detail = useImports((s) => s.detail);
  if (!detail) return null;
  return (
    <section className="import-detail" aria-label={`Import into ${detail.path_with_namespace}`} data-testid="import-detail">
      <h3>
        Import into {detail.path_with_namespace} <StatusBadge status={detail.import_status} />
      </h3>
      <dl className="facts">
        <dt>From</dt>
        <dd>
          {PROVIDER_LABELS[detail.import_type ?? ''] ?? detail.import_type}
          {detail.import_source && (
            <>
              {' '}
              <code>{detail.import_source}</code>
            </>
          )}
        </dd>
        {detail.import_error && (
          <>
            <dt>Error</dt>
            <dd className="error-note">{detail.import_error}</dd>
          </>
        )}
        <dt>Correlation id</dt>
        <dd>
          <code>{detail.correlation_id ?? '—'}</code>
        </dd>
      </dl>
      <StatsTable detail={detail} />
      {detail.failed_relations.length > 0 && (
        <>
          <h4>Not imported</h4>
          <ul className="plain-list">
            {detail.failed_relations.map((f) => (
              <li key={f.id}>
                <code>{f.relation_name}</code>
                {f.line_number !== null && <span> #{f.line_number}</span>} <span className="muted">({f.exception_class} in {f.source})</span>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

const OBJECT_LABELS: Record<string, string> = {
  label: 'Labels',
  issue: 'Issues',
  pull_request: 'Pull requests',
  pull_request_merged_by: 'Merged by',
  note: 'Comments',
  diff_note: 'Review comments',
  collaborator: 'Collaborators',
  attachment: 'Attachments',
};

function StatsTable({ detail }: { detail: ImportDetail }): React.JSX.Element | null {
  const stats = detail.stats;
  const kinds = stats ? [...new Set([...Object.keys(stats.fetched), ...Object.keys(stats.imported)])] : [];
  if (!stats || kinds.length === 0) return <p className="muted">{isActive(detail.import_status) ? 'Nothing read yet…' : 'No records were read from the provider.'}</p>;
  return (
    <table className="data-table compact" aria-label="Imported records">
      <thead>
        <tr>
          <th scope="col">Records</th>
          <th scope="col">Read</th>
          <th scope="col">Imported</th>
        </tr>
      </thead>
      <tbody>
        {kinds.map((k) => (
          <tr key={k}>
            <td>{OBJECT_LABELS[k] ?? k}</td>
            <td>{stats.fetched[k] ?? 0}</td>
            <td>{stats.imported[k] ?? 0}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function GistsImport(): React.JSX.Element {
  const { gistSecret, gistHost, gistReport, setGistSecret, setGistHost, importGists, loadGistReport } = useImports();
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    void loadGistReport();
  }, [loadGistReport]);
  // The browser has no push channel: while an import runs, read its report every second.
  useEffect(() => {
    if (gistReport?.status !== 'started') return;
    const t = setInterval(() => void loadGistReport(), 1000);
    return () => clearInterval(t);
  }, [gistReport?.status, loadGistReport]);

  return (
    <section className="card" aria-labelledby="gists-title">
      <h2 id="gists-title">GitHub gists</h2>
      <p className="muted">Each of your gists with at most 10 files becomes one of your personal snippets, with all its files. Larger gists are skipped and listed here.</p>
      <Form
        className="form-grid"
        aria-label="Gists import"
        onSubmit={() => {
          setError(null);
          void importGists().then(
            () => useNotices.getState().notify('success', 'Gists import started'),
            (err) => setError(errorText(err)),
          );
        }}
      >
        <FieldRow id="gists-host" label="Enterprise host" placeholder="empty: github.com" value={gistHost} onChange={setGistHost} />
        <SecretField id="gists-secret" label="Personal access token" value={gistSecret} onChange={setGistSecret} suggestedName={`github${gistHost ? `:${gistHost.replace(/^https?:\/\//, '')}` : ''}`} />
        <span />
        <span>
          <button type="submit" className="primary" disabled={!secretGiven(gistSecret) || gistReport?.status === 'started'}>
            Import my gists
          </button>
        </span>
      </Form>
      <ErrorNote message={error} />
      {gistReport && (
        <div className="gist-report" data-testid="gist-report" aria-live="polite">
          <p>
            <StatusBadge status={gistReport.status} /> {gistReport.imported_count} imported
            {gistReport.skipped.length > 0 && `, ${gistReport.skipped.length} skipped`}
            {gistReport.finished_at && <span className="muted"> · {formatDate(gistReport.finished_at)}</span>}
          </p>
          {gistReport.error && <p className="error-note">{gistReport.error}</p>}
          {gistReport.skipped.length > 0 && (
            <ul className="plain-list">
              {gistReport.skipped.map((g) => (
                <li key={g.id}>
                  <strong>{g.description || g.id}</strong> <span className="muted">{g.reason}</span>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </section>
  );
}
