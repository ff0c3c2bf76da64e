/** Taskable: the checklist items of an issue's or merge request's description. */

/** Taskable::ITEM_PATTERN: a list item with a checkbox and some text. */
const TASK_ITEM = /^(?:(?:>\s{0,4})*)(?:(?:\s*(?:[-+*]|(?:\d+[.)])))+)\s+(\[\s\]|\[[xX]\])(\s.+)/gm;

function taskItems(text: string | null): { source: string; complete: boolean }[] {
  const t = text ?? '';
  const passed = codeAndCommentBlocks(t);
  let span = 0;
  return [...t.matchAll(TASK_ITEM)]
    .filter((m) => {
      // Both in text order: the spans before this item are behind it for the later ones too.
      while (span < passed.length && passed[span][1] <= m.index) span++;
      return !(span < passed.length && passed[span][0] <= m.index);
    })
    .map((m) => ({ source: m[2].trim(), complete: /\[[xX]\]/.test(m[1]) }));
}

/**
 * The spans Taskable::REGEX reads whole and passes over (Gitlab::Regex.markdown_code_or_html_comments_untrusted):
 * a line opening with ``` up to the first line from two on that is ``` and spaces, and a line opening
 * with <!-- (not a comment of its own) up to the first line from two on that ends with --> and spaces
 * (an unclosed one is no span).
 * Found line by line, in linear time as GitLab's RE2 does, where a backtracking regular expression
 * would try each unclosed opening to the end of a long description.
 */
function codeAndCommentBlocks(text: string): [number, number][] {
  const lines = text.split('\n');
  const starts: number[] = [];
  for (let k = 0, at = 0; k < lines.length; at += lines[k].length + 1, k++) starts.push(at);
  const fenceEnd = (k: number): boolean => lines[k].startsWith('```') && /^``` *$/.test(lines[k]);
  const commentEnd = (k: number): boolean => lines[k].includes('-->') && /--> *$/.test(lines[k]);
  // The first closing line at or after each line, from the end.
  const nextFence: number[] = new Array(starts.length + 1).fill(-1);
  const nextComment: number[] = new Array(starts.length + 1).fill(-1);
  for (let k = starts.length - 1; k >= 0; k--) {
    nextFence[k] = fenceEnd(k) ? k : nextFence[k + 1];
    nextComment[k] = commentEnd(k) ? k : nextComment[k + 1];
  }
  const spans: [number, number][] = [];
  for (let k = 0; k < starts.length; k++) {
    const l = lines[k];
    // A comment on one line (`<!-- x -->`) is read as that line alone, before a block is looked for.
    const close = l.startsWith('```') ? nextFence[k + 2] ?? -1 : l.startsWith('<!--') && !/^<!-- .*? --> *$/.test(l) ? nextComment[k + 2] ?? -1 : -1;
    if (close === -1) continue;
    spans.push([starts[k], starts[close] + lines[close].length]);
    k = close;
  }
  return spans;
}

/** Taskable.get_updated_tasks: the new description's task items that kept their text and flipped their box. */
export function updatedTasks(oldText: string | null, newText: string | null): { source: string; complete: boolean }[] {
  const old = taskItems(oldText);
  return taskItems(newText).filter((t, i) => old[i] !== undefined && old[i].source === t.source && old[i].complete !== t.complete);
}

/** Taskable#task_completion_status, the same object for every description without an item (most of them). */
export function taskCompletionStatus(text: string | null): { count: number; completed_count: number } {
  if (text === null || !text.includes('[')) return NO_TASKS;
  const items = taskItems(text);
  if (items.length === 0) return NO_TASKS;
  return { count: items.length, completed_count: items.filter((t) => t.complete).length };
}

const NO_TASKS = { count: 0, completed_count: 0 };

/** Taskable#task_status: "1 of 2 checklist items completed" (Entities::Issue shows it only when there are items). */
export function taskStatus(status: { count: number; completed_count: number }): string {
  return `${status.completed_count} of ${status.count} checklist item${status.count === 1 ? '' : 's'} completed`;
}
