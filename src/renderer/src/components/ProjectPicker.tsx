import { useEffect, useId, useRef, useState } from 'react';
import { apiOk, bridge } from '../bridge';
import { errorText } from '../lib/format';
import { isModKey, MOD_LABEL } from '../lib/keys';
import { runAction } from '../stores/notices';
import { useProject, type ProjectRef } from '../stores/project';
import { Form } from './Form';
import { Icon } from './Icon';

/** The header's project picker: searches GET /projects as you type; Ctrl/Cmd+K opens it from anywhere. */
export function ProjectPicker({ disabled }: { disabled: boolean }): React.JSX.Element {
  const { project, pickerOpen, openPicker } = useProject();
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (disabled || !isModKey(e, 'k')) return;
      e.preventDefault();
      openPicker(true);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [disabled, openPicker]);
  return (
    <div className="picker-anchor">
      <button
        type="button"
        className="picker-button"
        aria-haspopup="dialog"
        aria-expanded={pickerOpen}
        aria-label={`Project: ${project ? project.path_with_namespace : 'none chosen'} (${MOD_LABEL}K)`}
        disabled={disabled}
        onClick={() => openPicker(!pickerOpen)}
      >
        <Icon name="project" />
        <span className="picker-current">{project ? project.path_with_namespace : 'Choose a project'}</span>
        <kbd>{MOD_LABEL}K</kbd>
      </button>
      {pickerOpen && <PickerDialog onClose={() => openPicker(false)} />}
    </div>
  );
}

function PickerDialog({ onClose }: { onClose: () => void }): React.JSX.Element {
  const choose = useProject((s) => s.choose);
  const [search, setSearch] = useState('');
  const [results, setResults] = useState<ProjectRef[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [active, setActive] = useState(0);
  const [newName, setNewName] = useState('');
  const [visibility, setVisibility] = useState('private');
  const listId = useId();
  const dialog = useRef<HTMLDivElement>(null);

  useEffect(() => {
    let stale = false;
    setLoading(true);
    const t = setTimeout(() => {
      apiOk<ProjectRef[]>(bridge, {
        method: 'GET',
        path: '/projects',
        query: { simple: true, per_page: 20, order_by: 'last_activity_at', ...(search.trim() ? { search: search.trim() } : {}) },
      }).then(
        (r) => !stale && (setResults(r.body), setError(null), setActive(0), setLoading(false)),
        (e) => !stale && (setError(errorText(e)), setLoading(false)),
      );
    }, 150);
    return () => {
      stale = true;
      clearTimeout(t);
    };
  }, [search]);

  // A click outside closes the picker.
  useEffect(() => {
    const onDown = (e: MouseEvent): void => {
      if (dialog.current && !dialog.current.contains(e.target as Node) && !(e.target as Element).closest?.('.picker-button')) onClose();
    };
    document.addEventListener('mousedown', onDown);
    return () => document.removeEventListener('mousedown', onDown);
  }, [onClose]);

  async function create(): Promise<void> {
    const name = newName.trim();
    if (!name) return;
    const made = await runAction(
      async () => (await apiOk<ProjectRef>(bridge, { method: 'POST', path: '/projects', body: { name, visibility } })).body,
      (p) => `Created project ${p.path_with_namespace}`,
    );
    if (made) choose(made);
  }

  return (
    <div
      className="picker"
      role="dialog"
      aria-label="Choose a project"
      ref={dialog}
      onKeyDown={(e) => {
        if (e.key === 'Escape') onClose();
      }}
    >
      <div className="picker-search">
        <Icon name="search" />
        <input
          autoFocus
          role="combobox"
          aria-label="Search projects"
          aria-expanded="true"
          aria-controls={listId}
          aria-activedescendant={results[active] ? `${listId}-${results[active].id}` : undefined}
          placeholder="Search projects"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'ArrowDown') setActive((a) => Math.min(a + 1, results.length - 1));
            else if (e.key === 'ArrowUp') setActive((a) => Math.max(a - 1, 0));
            else if (e.key === 'Enter' && results[active]) choose(results[active]);
            else return;
            e.preventDefault();
          }}
        />
      </div>
      <ul className="picker-list" role="listbox" id={listId} aria-label="Projects" aria-busy={loading}>
        {results.map((p, i) => (
          <li
            key={p.id}
            id={`${listId}-${p.id}`}
            role="option"
            aria-selected={i === active}
            className={i === active ? 'active' : undefined}
            onMouseEnter={() => setActive(i)}
            onClick={() => choose(p)}
          >
            <span>{p.path_with_namespace}</span>
          </li>
        ))}
        {!loading && !error && results.length === 0 && <li className="muted picker-empty">{search ? 'No project matches.' : 'No projects yet: create one below.'}</li>}
        {error && (
          <li className="error-note picker-empty" role="alert">
            {error}
          </li>
        )}
      </ul>
      <Form className="picker-create" aria-label="New project" onSubmit={() => void create()}>
        <input aria-label="New project name" placeholder="New project name" value={newName} onChange={(e) => setNewName(e.target.value)} />
        <select aria-label="New project visibility" value={visibility} onChange={(e) => setVisibility(e.target.value)}>
          <option value="private">private</option>
          <option value="internal">internal</option>
          <option value="public">public</option>
        </select>
        <button type="submit" disabled={!newName.trim()}>
          Create project
        </button>
      </Form>
    </div>
  );
}
