import { useEffect, useMemo, useRef, useState } from 'react';
import { useStore } from 'zustand';
import { createColumnHelper } from '@tanstack/react-table';
import { bridge } from '../../bridge';
import { ConfirmButton } from '../../components/ConfirmButton';
import { DataTable } from '../../components/DataTable';
import { formatDate } from '../../lib/format';
import { runAction } from '../../stores/notices';
import { type BulkImport, type MigrationEntity, isActive, migrationList, useMigrations } from '../../stores/migrations';

const col = createColumnHelper<BulkImport>();

/** Past and running migrations, and the one opened: entities, relations, failures, cancel, retry. */
export function MigrationHistory(): React.JSX.Element {
  const list = useStore(migrationList);
  const { openId, open } = useMigrations();
  useEffect(() => {
    void migrationList.getState().load();
  }, []);
  const columns = useMemo(
    () => [
      col.accessor('id', { header: 'Migration', cell: (c) => <strong>#{c.getValue()}</strong> }),
      col.accessor('source_url', { header: 'From', cell: (c) => <code>{c.getValue()}</code> }),
      col.accessor('status', { header: 'Status', cell: (c) => <StatusBadge status={c.getValue()} failures={c.row.original.has_failures} /> }),
      col.accessor('created_at', { header: 'Started', cell: (c) => formatDate(c.getValue()) }),
    ],
    [],
  );
  return (
    <>
      <DataTable
        list={list}
        columns={columns}
        label="Migrations"
        empty="No migration yet. Start one under “New migration”."
        rowKey={(m) => String(m.id)}
        onRowClick={(m) => void open(m.id)}
        selectedKey={openId === null ? null : String(openId)}
        testId="migrations-table"
      />
      {openId === null ? <p className="empty-state">Pick a migration to watch it.</p> : <MigrationDetail />}
    </>
  );
}

export function StatusBadge({ status, failures }: { status: string; failures?: boolean }): React.JSX.Element {
  return (
    <span className="status-badges">
      <span className={`badge status-${status}`}>{status}</span>
      {failures && <span className="badge status-failed">failures</span>}
    </span>
  );
}

/**
 * Keeps the open migration current while it runs: on the job progress the desktop app pushes
 * (at most a few times a second), or every 1.5 s in a browser, which has no push channel.
 */
function useLiveDetail(id: number, active: boolean): void {
  const refresh = useMigrations((s) => s.refresh);
  const pending = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => {
    if (!active) return;
    const soon = (): void => {
      if (pending.current) return;
      pending.current = setTimeout(() => {
        pending.current = null;
        void refresh().catch(() => {});
      }, 300);
    };
    const off = bridge.onJobProgress((events) => {
      if (events.some((e) => e.subject === `bulk_import:${id}`)) soon();
    });
    const timer = bridge.kind === 'http' ? setInterval(soon, 1500) : null;
    return () => {
      off();
      if (timer) clearInterval(timer);
      if (pending.current) clearTimeout(pending.current);
      pending.current = null;
    };
  }, [id, active, refresh]);
}

function MigrationDetail(): React.JSX.Element {
  const { detail, openId, cancel, retry, typedToken, setTypedToken } = useMigrations();
  const active = !!detail && (isActive(detail.migration.status) || detail.entities.some((e) => isActive(e.status)));
  useLiveDetail(openId!, active);
  if (!detail || detail.migration.id !== openId) return <p className="muted">Loading…</p>;
  const m = detail.migration;
  const retriable = detail.entities.filter((e) => !isActive(e.status) && (e.status !== 'finished' || e.has_failures));

  async function retryAll(): Promise<void> {
    for (const e of retriable) await runAction(() => retry(e), `Retrying ${e.source_full_path}`);
  }

  return (
    <article className="card migration" aria-labelledby="migration-title" data-testid="migration-detail">
      <header className="editor-head">
        <h2 id="migration-title">Migration #{m.id}</h2>
        <StatusBadge status={m.status} failures={m.has_failures} />
        <span className="spacer" />
        {isActive(m.status) && (
          <ConfirmButton label="Cancel migration" question="Stop this migration? What was copied stays." confirmLabel="Stop it" onConfirm={() => void runAction(cancel, `Migration ${m.id} canceled`)} />
        )}
        {!isActive(m.status) && retriable.length > 0 && (
          <button type="button" onClick={() => void retryAll()}>
            Retry what failed
          </button>
        )}
      </header>
      <p className="muted">
        From <code>{m.source_url}</code> · started {formatDate(m.created_at)} · updated {formatDate(m.updated_at)}
      </p>
      {!bridge.desktop && retriable.length > 0 && (
        <p className="toolbar">
          <label htmlFor="retry-token">Source token for retries</label>
          <input id="retry-token" type="password" autoComplete="off" value={typedToken} onChange={(e) => setTypedToken(e.target.value)} />
        </p>
      )}
      <ol className="entities" aria-label="Entities">
        {detail.entities.map((e) => (
          <EntityView key={e.id} entity={e} sourceUrl={m.source_url} onRetry={() => void runAction(() => retry(e), `Retrying ${e.source_full_path}`)} />
        ))}
      </ol>
    </article>
  );
}

/** The relations an entity copies, in the order it copies them. */
const RELATION_ORDER = ['members', 'labels', 'milestones', 'badges', 'epics', 'issues', 'merge_requests', 'notes', 'snippets', 'feature_flag_user_lists', 'feature_flags', 'uploads'];
const rank = (r: string): number => (RELATION_ORDER.includes(r) ? RELATION_ORDER.indexOf(r) : RELATION_ORDER.length);
const byPipelineOrder = (a: string, b: string): number => rank(a) - rank(b) || a.localeCompare(b);

function EntityView({ entity: e, sourceUrl, onRetry }: { entity: MigrationEntity; sourceUrl: string; onRetry: () => void }): React.JSX.Element {
  const [showFailures, setShowFailures] = useState(e.status === 'failed');
  const relations = Object.keys(e.stats).sort(byPipelineOrder);
  const label = `${e.entity_type} ${e.source_full_path}`;
  return (
    <li className="entity" aria-label={label} data-testid="entity">
      <div className="entity-head">
        <span className="badge">{e.entity_type}</span>
        <a href={`${sourceUrl}/${e.source_full_path}`} target="_blank" rel="noreferrer">
          <code>{e.source_full_path}</code>
        </a>
        <span aria-hidden="true">→</span>
        <code>{e.destination_full_path ?? `${[e.destination_namespace, e.destination_slug].filter(Boolean).join('/')} (not yet created)`}</code>
        <StatusBadge status={e.status} failures={e.has_failures} />
        <span className="spacer" />
        {!isActive(e.status) && (e.status !== 'finished' || e.has_failures) && (
          <button type="button" onClick={onRetry} aria-label={`Retry ${e.source_full_path}`}>
            Retry
          </button>
        )}
      </div>
      {relations.length > 0 && (
        <table className="relations" aria-label={`Relations of ${e.source_full_path}`}>
          <tbody>
            {relations.map((r) => {
              const s = e.stats[r];
              return (
                <tr key={r}>
                  <th scope="row">{r.replace(/_/g, ' ')}</th>
                  <td>
                    <progress max={Math.max(s.source, 1)} value={s.source === 0 ? 1 : s.imported} aria-label={`${r.replace(/_/g, ' ')} of ${e.source_full_path}`} />
                  </td>
                  <td className="muted nowrap">
                    {s.imported} of {s.source} imported · {s.fetched} fetched
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {e.failures.length > 0 && (
        <div className="failures">
          <button type="button" className="icon-button" aria-expanded={showFailures} onClick={() => setShowFailures(!showFailures)}>
            {showFailures ? '▾' : '▸'} {e.failures.length} {e.failures.length === 1 ? 'failure' : 'failures'}
          </button>
          {showFailures && (
            <table className="data-table" aria-label={`Failures of ${e.source_full_path}`}>
              <thead>
                <tr>
                  <th scope="col">Relation</th>
                  <th scope="col">Record</th>
                  <th scope="col">What happened</th>
                  <th scope="col">When</th>
                </tr>
              </thead>
              <tbody>
                {e.failures.map((f, i) => (
                  <tr key={i}>
                    <td className="nowrap">{f.relation}</td>
                    <td className="nowrap">
                      {f.source_url ? (
                        <a href={f.source_url} target="_blank" rel="noreferrer">
                          {f.source_title ?? f.source_url}
                        </a>
                      ) : (
                        (f.source_title ?? '')
                      )}
                    </td>
                    <td>
                      <span className="muted">{f.exception_class}</span> {f.exception_message}
                    </td>
                    <td className="nowrap">{formatDate(f.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      )}
    </li>
  );
}
