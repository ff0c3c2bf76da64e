import { useEffect, useMemo, useRef, useState } from 'react';
import { useStore } from 'zustand';
import { createColumnHelper } from '@tanstack/react-table';
import { apiOk, bridge } from '../../bridge';
import { DataTable } from '../../components/DataTable';
import { ErrorNote } from '../../components/ErrorNote';
import { Form } from '../../components/Form';
import { errorText } from '../../lib/format';
import { runAction } from '../../stores/notices';
import { type Plan, type SourceEntity, credentialName, normalizeUrl, sourceList, useMigrations } from '../../stores/migrations';

const col = createColumnHelper<SourceEntity>();

/** The new-migration flow: source and token, the source's groups and projects, destinations, plan, start. */
export function NewMigration(): React.JSX.Element {
  const { connected, picks, plan } = useMigrations();
  return (
    <>
      <SourceForm />
      {connected && <SourceBrowser />}
      {picks.length > 0 && <Picks />}
      {plan && <PlanView plan={plan} />}
    </>
  );
}

/** Recent sources (desktop preferences): base URLs only. */
function useRecentSources(): string[] {
  const [recent, setRecent] = useState<string[]>([]);
  useEffect(() => {
    void bridge.desktop?.getPreferences().then((p) => setRecent(p.recentMigrationSources), () => {});
  }, []);
  return recent;
}

function SourceForm(): React.JSX.Element {
  const { sourceUrl, typedToken, tokenStored, setSource, setTypedToken, storeToken, connect } = useMigrations();
  const [token, setToken] = useState('');
  const [replacing, setReplacing] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const recent = useRecentSources();
  const desktop = !!bridge.desktop;
  const url = normalizeUrl(sourceUrl);
  const askToken = desktop ? !tokenStored || replacing : true;

  async function submit(): Promise<void> {
    setError(null);
    try {
      if (desktop && askToken) {
        if (!token.trim()) throw new Error('Enter the access token of the source instance.');
        await storeToken(token);
        setToken('');
        setReplacing(false);
      }
      if (!desktop && !typedToken.trim()) throw new Error('Enter the access token of the source instance.');
      await connect();
    } catch (err) {
      setError(errorText(err));
    }
  }

  return (
    <section className="card" aria-labelledby="source-title">
      <h2 id="source-title">Source instance</h2>
      <p className="muted">A GitLab (14 or later) or another Sandlab. The token needs the <code>api</code> scope and Owner rights on what you migrate.</p>
      <Form className="form-grid" aria-label="Source instance" onSubmit={() => void submit()}>
        <label htmlFor="source-url">Source URL</label>
        <input id="source-url" list="recent-sources" placeholder="https://gitlab.example.com" value={sourceUrl} onChange={(e) => setSource(e.target.value)} autoComplete="url" />
        <datalist id="recent-sources">
          {recent.map((u) => (
            <option key={u} value={u} />
          ))}
        </datalist>
        <label htmlFor="source-token">Access token</label>
        {askToken ? (
          <input
            id="source-token"
            type="password"
            autoComplete="off"
            placeholder="glpat-…"
            value={desktop ? token : typedToken}
            onChange={(e) => (desktop ? setToken(e.target.value) : setTypedToken(e.target.value))}
          />
        ) : (
          <span data-testid="stored-token">
            In the keychain as <code>{credentialName(url)}</code>{' '}
            <button type="button" onClick={() => setReplacing(true)}>
              Replace
            </button>
          </span>
        )}
        <span />
        <span className="muted hint">
          {desktop ? 'Stored in the OS keychain by name; Sandlab puts it into each request itself and never shows it again.' : 'Kept in this tab only, for this page’s requests.'}
        </span>
        <span />
        <span>
          <button type="submit" className="primary" disabled={!url}>
            {desktop && askToken ? 'Store token and browse' : 'Browse source'}
          </button>
        </span>
      </Form>
      <ErrorNote message={error} />
    </section>
  );
}

function SourceBrowser(): React.JSX.Element {
  const list = useStore(sourceList);
  const { browsing, browse, pick, picks } = useMigrations();
  const columns = useMemo(() => {
    const picked = new Set(picks.map((p) => p.sourceFullPath));
    return [
      col.accessor('full_name', { header: 'Name', cell: (c) => <strong>{c.getValue()}</strong> }),
      col.accessor('full_path', { header: 'Path', cell: (c) => <code>{c.getValue()}</code> }),
      col.accessor('visibility', { header: 'Visibility', cell: (c) => (c.getValue() ? <span className="badge">{c.getValue()}</span> : null) }),
      col.display({
        id: 'pick',
        header: () => <span className="visually-hidden">Pick</span>,
        cell: (c) => {
          const done = picked.has(c.row.original.full_path);
          return (
            <button type="button" disabled={done} onClick={() => pick(c.row.original)} aria-label={`${done ? 'Added' : 'Add'} ${c.row.original.full_path}`}>
              {done ? 'Added' : 'Add'}
            </button>
          );
        },
      }),
    ];
  }, [picks, pick]);
  return (
    <section className="card" aria-labelledby="browser-title">
      <h2 id="browser-title">On the source</h2>
      <DataTable
        list={list}
        columns={columns}
        label={browsing === 'group_entity' ? 'Source groups' : 'Source projects'}
        empty={browsing === 'group_entity' ? 'The token owns no group there.' : 'The token maintains no project there.'}
        rowKey={(e) => `${e.kind}:${e.id}`}
        filterLabel="Search the source"
        testId="source-table"
        toolbar={
          <div className="segmented" role="radiogroup" aria-label="Browse">
            <label className={browsing === 'group_entity' ? 'on' : undefined}>
              <input type="radio" name="browse-kind" checked={browsing === 'group_entity'} onChange={() => void browse('group_entity')} />
              Groups
            </label>
            <label className={browsing === 'project_entity' ? 'on' : undefined}>
              <input type="radio" name="browse-kind" checked={browsing === 'project_entity'} onChange={() => void browse('project_entity')} />
              Projects
            </label>
          </div>
        }
      />
    </section>
  );
}

/** Groups here the user may create in (Maintainer and up), for the destination list. */
function useDestinationGroups(): string[] {
  const [groups, setGroups] = useState<string[]>([]);
  useEffect(() => {
    apiOk<{ full_path: string }[]>(bridge, { method: 'GET', path: '/groups', query: { min_access_level: 40, per_page: 100, order_by: 'path' } }).then(
      (r) => setGroups(r.body.map((g) => g.full_path)),
      () => {},
    );
  }, []);
  return groups;
}

function Picks(): React.JSX.Element {
  const { picks, destination, setDestination, updatePick, unpick, dryRun, start } = useMigrations();
  const groups = useDestinationGroups();
  const [busy, setBusy] = useState<'plan' | 'start' | null>(null);

  async function act(which: 'plan' | 'start'): Promise<void> {
    setBusy(which);
    try {
      if (which === 'plan') await runAction(dryRun, (p) => `Dry run: ${p.entities.length} to migrate, ${p.conflicts.length} conflicts`);
      else await runAction(start, (m) => `Migration ${m.id} started`);
    } finally {
      setBusy(null);
    }
  }

  return (
    <section className="card" aria-labelledby="picks-title">
      <h2 id="picks-title">To migrate</h2>
      <datalist id="destination-groups">
        {groups.map((g) => (
          <option key={g} value={g} />
        ))}
      </datalist>
      <div className="toolbar">
        <label htmlFor="destination-default">Destination group</label>
        <input id="destination-default" list="destination-groups" placeholder="(a new top-level group)" value={destination} onChange={(e) => setDestination(e.target.value)} />
      </div>
      <table className="data-table" aria-label="Picked groups and projects">
        <thead>
          <tr>
            <th scope="col">Source</th>
            <th scope="col">Destination group</th>
            <th scope="col">Path there</th>
            <th scope="col">Also</th>
            <th scope="col">
              <span className="visually-hidden">Remove</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {picks.map((p, i) => (
            <tr key={p.sourceFullPath}>
              <td>
                <span className="badge">{p.sourceType === 'group_entity' ? 'group' : 'project'}</span> <code>{p.sourceFullPath}</code>
              </td>
              <td>
                <input aria-label={`Destination group of ${p.sourceFullPath}`} list="destination-groups" placeholder="(top level)" value={p.destinationNamespace} onChange={(e) => updatePick(i, { destinationNamespace: e.target.value })} />
              </td>
              <td>
                <input aria-label={`Destination path of ${p.sourceFullPath}`} value={p.destinationSlug} onChange={(e) => updatePick(i, { destinationSlug: e.target.value })} />
              </td>
              <td>
                {p.sourceType === 'group_entity' && (
                  <label className="check">
                    <input type="checkbox" checked={p.migrateProjects} onChange={(e) => updatePick(i, { migrateProjects: e.target.checked })} /> projects
                  </label>
                )}{' '}
                <label className="check">
                  <input type="checkbox" checked={p.migrateMemberships} onChange={(e) => updatePick(i, { migrateMemberships: e.target.checked })} /> members
                </label>
              </td>
              <td>
                <button type="button" className="icon-button" aria-label={`Remove ${p.sourceFullPath}`} onClick={() => unpick(i)}>
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="toolbar">
        <button type="button" disabled={!!busy} onClick={() => void act('plan')}>
          {busy === 'plan' ? 'Planning…' : 'Dry run'}
        </button>
        <button type="button" className="primary" disabled={!!busy} onClick={() => void act('start')}>
          {busy === 'start' ? 'Starting…' : 'Start migration'}
        </button>
      </div>
    </section>
  );
}

/** `{"issues": {"source": 3}, ...}` as "3 issues · 2 merge requests". */
const counts = (stats: Record<string, { source: number }>): string =>
  Object.entries(stats)
    .map(([k, v]) => `${v.source} ${k.replace(/_/g, ' ')}`)
    .join(' · ');

function PlanView({ plan }: { plan: Plan }): React.JSX.Element {
  const groups = plan.entities.filter((e) => e.entity_type === 'group').length;
  const ref = useRef<HTMLElement>(null);
  // A new plan comes into view: it is the answer to the button just pressed.
  useEffect(() => {
    ref.current?.scrollIntoView({ block: 'start', behavior: 'smooth' });
  }, [plan]);
  return (
    <section className="card" aria-labelledby="plan-title" data-testid="plan" ref={ref}>
      <h2 id="plan-title">Dry run</h2>
      <p>
        {groups} {groups === 1 ? 'group' : 'groups'} and {plan.entities.length - groups} {plan.entities.length - groups === 1 ? 'project' : 'projects'} would be
        created. Nothing was written.
      </p>
      {plan.conflicts.length > 0 && (
        <>
          <h3>Conflicts</h3>
          <ul className="conflicts" aria-label="Conflicts">
            {plan.conflicts.map((c, i) => (
              <li key={i}>
                <span className="badge warn">{c.type.replace(/_/g, ' ')}</span> <code>{c.source_full_path}</code>: {c.message}
              </li>
            ))}
          </ul>
        </>
      )}
      <table className="data-table" aria-label="Planned entities">
        <thead>
          <tr>
            <th scope="col">Source</th>
            <th scope="col">Destination</th>
            <th scope="col">On the source</th>
          </tr>
        </thead>
        <tbody>
          {plan.entities.map((e) => (
            <tr key={`${e.entity_type}:${e.source_full_path}`}>
              <td>
                <span className="badge">{e.entity_type}</span> <code>{e.source_full_path}</code>
              </td>
              <td>
                <code>{e.destination_full_path}</code>
              </td>
              <td className="muted">{counts(e.stats)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
