import { useMigrations } from '../../stores/migrations';
import { MigrationHistory } from './MigrationHistory';
import { NewMigration } from './NewMigration';

/**
 * Migrations by direct transfer: pick groups and projects on another instance (a real GitLab or
 * another Sandlab), plan them with a dry run, start, and watch every entity and relation arrive.
 */
export function MigrationsWorkspace(): React.JSX.Element {
  const { view, setView } = useMigrations();
  return (
    <section className="workspace-body wide" aria-labelledby="migrations-title">
      <header className="workspace-header">
        <h1 id="migrations-title">Migrations</h1>
        <div className="segmented" role="radiogroup" aria-label="Migrations view">
          <label className={view === 'new' ? 'on' : undefined}>
            <input type="radio" name="migrations-view" checked={view === 'new'} onChange={() => setView('new')} />
            New migration
          </label>
          <label className={view === 'history' ? 'on' : undefined}>
            <input type="radio" name="migrations-view" checked={view === 'history'} onChange={() => setView('history')} />
            Migrations
          </label>
        </div>
      </header>
      {view === 'new' ? <NewMigration /> : <MigrationHistory />}
    </section>
  );
}
