import { useEffect, useMemo, useState } from 'react';
import { createColumnHelper } from '@tanstack/react-table';
import { DataTable } from '../../components/DataTable';
import { ErrorNote } from '../../components/ErrorNote';
import { useProjects, type ProjectRow } from '../../stores/projects';

const col = createColumnHelper<ProjectRow>();

/** Projects the desktop user can see, through the bridge (GET /projects), and a form to add one. */
export function ProjectsWorkspace(): React.JSX.Element {
  const { projects, total, loading, error, search, setSearch, load, create } = useProjects();
  const [name, setName] = useState('');
  const [visibility, setVisibility] = useState('private');

  useEffect(() => {
    void load();
  }, [load]);

  const columns = useMemo(
    () => [
      col.accessor('id', { header: 'ID' }),
      col.accessor('path_with_namespace', {
        header: 'Project',
        cell: (c) => (
          <a href={c.row.original.web_url} target="_blank" rel="noreferrer">
            {c.getValue()}
          </a>
        ),
      }),
      col.accessor('visibility', { header: 'Visibility' }),
      col.accessor('description', { header: 'Description', cell: (c) => c.getValue() ?? '' }),
      col.accessor('created_at', { header: 'Created', cell: (c) => new Date(c.getValue()).toLocaleString() }),
    ],
    [],
  );

  return (
    <section className="workspace-body" aria-labelledby="projects-title">
      <header className="workspace-header">
        <h2 id="projects-title">Projects</h2>
        <span className="muted" data-testid="projects-total">
          {total === null ? '' : `${total} total`}
        </span>
      </header>
      <form
        className="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          void load();
        }}
      >
        <input aria-label="Search projects" placeholder="Search" value={search} onChange={(e) => setSearch(e.target.value)} />
        <button type="submit" disabled={loading}>
          {loading ? 'Loading…' : 'Refresh'}
        </button>
      </form>
      <ErrorNote message={error} />
      <DataTable data={projects} columns={columns} empty={loading ? 'Loading…' : 'No projects yet.'} testId="projects-table" rowKey={(p) => String(p.id)} />
      <form
        className="toolbar"
        aria-label="New project"
        onSubmit={(e) => {
          e.preventDefault();
          if (!name.trim()) return;
          void create(name.trim(), visibility).then(() => setName(''));
        }}
      >
        <input aria-label="New project name" placeholder="New project name" value={name} onChange={(e) => setName(e.target.value)} />
        <select aria-label="Visibility" value={visibility} onChange={(e) => setVisibility(e.target.value)}>
          <option value="private">private</option>
          <option value="internal">internal</option>
          <option value="public">public</option>
        </select>
        <button type="submit">Create project</button>
      </form>
    </section>
  );
}
