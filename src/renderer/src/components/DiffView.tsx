import { useEffect, useRef } from 'react';
import { EditorView, lineNumbers } from '@codemirror/view';
import { EditorState, StateEffect } from '@codemirror/state';
import { MergeView } from '@codemirror/merge';
import { syntaxHighlighting } from '@codemirror/language';
import { editorRoot, editorTheme, highlight, languageFor } from './CodeEditor';

/** Two versions of a file side by side (@codemirror/merge), read-only, unchanged stretches folded. */
export function DiffView({ before, after, filename, label }: { before: string; after: string; filename: string; label: string }): React.JSX.Element {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const side = (side: string) => [
      lineNumbers(),
      syntaxHighlighting(highlight),
      editorTheme,
      EditorState.readOnly.of(true),
      EditorView.editable.of(false),
      EditorView.contentAttributes.of({ 'aria-label': `${label}, ${side}` }),
    ];
    const view = new MergeView({
      ...editorRoot(host.current!),
      a: { doc: before, extensions: side('before') },
      b: { doc: after, extensions: side('after') },
      collapseUnchanged: { margin: 3, minSize: 6 },
      highlightChanges: true,
      gutter: true,
    });
    let stale = false;
    languageFor(filename)
      ?.load()
      .then((support) => {
        if (stale) return;
        for (const v of [view.a, view.b]) v.dispatch({ effects: StateEffect.appendConfig.of(support) });
      });
    return () => {
      stale = true;
      view.destroy();
    };
  }, [before, after, filename, label]);
  return <div className="diff-view" ref={host} />;
}
