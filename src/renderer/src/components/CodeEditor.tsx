import { useEffect, useRef } from 'react';
import { basicSetup, EditorView } from 'codemirror';
import { Compartment, EditorState } from '@codemirror/state';
import { HighlightStyle, LanguageDescription, syntaxHighlighting } from '@codemirror/language';
import { languages } from '@codemirror/language-data';
import { tags } from '@lezer/highlight';

/**
 * Token colours from the stylesheet's variables, so the editor follows the light and dark themes
 * (CodeMirror writes these rules through constructable stylesheets: nothing inline, CSP-safe).
 */
export const highlight = HighlightStyle.define([
  { tag: [tags.keyword, tags.modifier, tags.operatorKeyword, tags.controlKeyword], color: 'var(--hl-keyword)' },
  { tag: [tags.string, tags.special(tags.string), tags.regexp], color: 'var(--hl-string)' },
  { tag: [tags.number, tags.bool, tags.null, tags.atom], color: 'var(--hl-number)' },
  { tag: [tags.comment, tags.lineComment, tags.blockComment, tags.docComment], color: 'var(--hl-comment)', fontStyle: 'italic' },
  { tag: [tags.function(tags.variableName), tags.function(tags.propertyName), tags.definition(tags.variableName)], color: 'var(--hl-function)' },
  { tag: [tags.typeName, tags.className, tags.namespace, tags.tagName], color: 'var(--hl-type)' },
  { tag: [tags.propertyName, tags.attributeName], color: 'var(--hl-property)' },
  { tag: [tags.heading, tags.strong], fontWeight: 'bold' },
  { tag: tags.emphasis, fontStyle: 'italic' },
  { tag: [tags.link, tags.url], color: 'var(--accent)', textDecoration: 'underline' },
  { tag: tags.invalid, color: 'var(--error)' },
]);

export const editorTheme = EditorView.theme({
  '&': { backgroundColor: 'var(--code-bg)', color: 'var(--fg)', fontSize: '13px' },
  '&.cm-focused': { outline: '2px solid var(--focus)', outlineOffset: '-1px' },
  '.cm-content': { caretColor: 'var(--fg)', fontFamily: "ui-monospace, 'SFMono-Regular', Menlo, 'DejaVu Sans Mono', monospace" },
  '.cm-gutters': { backgroundColor: 'var(--panel)', color: 'var(--muted)', borderRight: '1px solid var(--border)' },
  '.cm-activeLine': { backgroundColor: 'var(--accent-soft)' },
  '.cm-activeLineGutter': { backgroundColor: 'var(--accent-soft)' },
  '&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection': { backgroundColor: 'var(--selection) !important' },
  '.cm-cursor': { borderLeftColor: 'var(--fg)' },
});

/** The editing surface: room to type, scrolling past a screenful. */
const editingHeight = EditorView.theme({ '.cm-scroller': { minHeight: '220px', maxHeight: '60vh' } });

/**
 * Where an editor lives: a shadow root inside `host`. CodeMirror writes its styles with style-mod,
 * which uses a <style> element in a document (blocked by the strict CSP: no 'unsafe-inline') but
 * constructable, adopted stylesheets in a shadow root (allowed). The app's CSS variables still
 * reach inside, so the editor follows the theme.
 */
export function editorRoot(host: HTMLElement): { root: ShadowRoot; parent: HTMLElement } {
  const root = host.shadowRoot ?? host.attachShadow({ mode: 'open' });
  root.replaceChildren();
  const parent = document.createElement('div');
  root.append(parent);
  return { root, parent };
}

/** The language CodeMirror knows for a file name (by extension or exact name), loaded on demand. */
export function languageFor(filename: string): LanguageDescription | null {
  return LanguageDescription.matchFilename(languages, filename);
}

interface CodeEditorProps {
  value: string;
  onChange?: (value: string) => void;
  /** Picks the highlighting by extension. */
  filename: string;
  label: string;
  readOnly?: boolean;
}

/** CodeMirror 6 with highlighting by file name. Ctrl/Cmd+Enter never reaches it: the surrounding Form takes it first. */
export function CodeEditor({ value, onChange, filename, label, readOnly = false }: CodeEditorProps): React.JSX.Element {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const language = useRef(new Compartment());
  const name = useRef(new Compartment());
  const changed = useRef(onChange);
  changed.current = onChange;

  useEffect(() => {
    const v = new EditorView({
      ...editorRoot(host.current!),
      state: EditorState.create({
        doc: value,
        extensions: [
          basicSetup,
          syntaxHighlighting(highlight),
          editorTheme,
          editingHeight,
          language.current.of([]),
          EditorState.readOnly.of(readOnly),
          EditorView.editable.of(!readOnly),
          name.current.of(EditorView.contentAttributes.of({ 'aria-label': label })),
          EditorView.updateListener.of((u) => u.docChanged && changed.current?.(u.state.doc.toString())),
        ],
      }),
    });
    view.current = v;
    return () => {
      v.destroy();
      view.current = null;
    };
    // Made once per mount (and read-only switch); value, language and label follow in the effects below.
  }, [readOnly]);

  // A value from outside (another file, a reload) replaces the document; typing does not come back here.
  useEffect(() => {
    const v = view.current;
    if (v && v.state.doc.toString() !== value) v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value } });
  }, [value]);

  useEffect(() => {
    view.current?.dispatch({ effects: name.current.reconfigure(EditorView.contentAttributes.of({ 'aria-label': label })) });
  }, [label]);

  useEffect(() => {
    let stale = false;
    const desc = languageFor(filename);
    if (!desc) {
      view.current?.dispatch({ effects: language.current.reconfigure([]) });
      return;
    }
    desc.load().then((support) => !stale && view.current?.dispatch({ effects: language.current.reconfigure(support) }));
    return () => {
      stale = true;
    };
  }, [filename]);

  return <div className="code-editor" ref={host} data-language={languageFor(filename)?.name ?? 'plain'} />;
}
