import { useEffect, useMemo } from 'react';
import { useStore } from 'zustand';
import { createColumnHelper } from '@tanstack/react-table';
import { DataTable } from '../../components/DataTable';
import { formatDate } from '../../lib/format';
import { useProject } from '../../stores/project';
import { snippetList, useSnippets, type Snippet } from '../../stores/snippets';
import { SnippetEditor } from './SnippetEditor';

const col = createColumnHelper<Snippet>();

/** Snippets: the current project's or the user's own; multi-file editing, revisions, raw files. */
export function SnippetsWorkspace(): React.JSX.Element {
  const list = useStore(snippetList);
  const project = useProject((s) => s.project);
  const { scope, setScope, selected, draft, open, startNew } = useSnippets();

  useEffect(() => {
    void snippetList.getState().setPage(1);
  }, [project?.id, scope]);

  const columns = useMemo(
    () => [
      col.accessor('title', { header: 'Title', cell: (c) => <strong>{c.getValue()}</strong> }),
      col.accessor('files', { header: 'Files', cell: (c) => c.getValue().map((f) => f.path).join(', ') }),
      col.accessor('visibility', { header: 'Visibility', cell: (c) => <span className={`badge ${c.getValue()}`}>{c.getValue()}</span> }),
      col.accessor('updated_at', { header: 'Updated', cell: (c) => <span className="nowrap">{formatDate(c.getValue())}</span> }),
    ],
    [],
  );

  const needsProject = scope === 'project' && !project;
  return (
    <section className="workspace-body wide" aria-labelledby="snippets-title">
      <header className="workspace-header">
        <h1 id="snippets-title">Snippets</h1>
        <div className="segmented" role="radiogroup" aria-label="Whose snippets">
          <label className={scope === 'project' ? 'on' : undefined}>
            <input type="radio" name="snippet-scope" checked={scope === 'project'} onChange={() => void setScope('project')} />
            {project ? `Project: ${project.path_with_namespace}` : 'Project'}
          </label>
          <label className={scope === 'personal' ? 'on' : undefined}>
            <input type="radio" name="snippet-scope" checked={scope === 'personal'} onChange={() => void setScope('personal')} />
            My snippets
          </label>
        </div>
        <span className="spacer" />
        <button type="button" className="primary" disabled={needsProject} onClick={startNew}>
          New snippet
        </button>
      </header>
      <div className="split">
        <div className="split-list">
          {needsProject ? (
            <NoProject what="its snippets" />
          ) : (
            <DataTable
              list={list}
              columns={columns}
              label={scope === 'project' ? 'Project snippets' : 'My snippets'}
              empty="No snippets yet. Create one with “New snippet”."
              rowKey={(s) => String(s.id)}
              onRowClick={(s) => void open(s)}
              selectedKey={selected ? String(selected.id) : null}
              testId="snippets-table"
            />
          )}
        </div>
        <div className="split-detail">{draft ? <SnippetEditor key={draft.id ?? 'new'} /> : <p className="empty-state">Pick a snippet to edit it, or create a new one.</p>}</div>
      </div>
    </section>
  );
}

/** What a project workspace shows before a project is chosen. */
export function NoProject({ what }: { what: string }): React.JSX.Element {
  const openPicker = useProject((s) => s.openPicker);
  return (
    <div className="empty-state">
      <p>Choose a project to see {what}.</p>
      <button type="button" onClick={() => openPicker(true)}>
        Choose a project
      </button>
    </div>
  );
}
