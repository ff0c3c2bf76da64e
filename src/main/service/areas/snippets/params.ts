import { ApiError, grapeError } from '../../http/errors';
import { type Params, declared, t } from '../../http/params';
import type { Visibility } from '../core/namespaces';
import { FILE_ACTIONS, type FileAction, type SnippetFile, isValidFilePath } from './snippets';

/**
 * Snippet parameters as Grape validates them (lib/api/helpers/snippets_helpers.rb): every failure
 * is collected and reported at once in declaration order, joined with ", ".
 */
class Errors {
  readonly list: string[] = [];
  /** Runs a `declared()` check and keeps its message instead of throwing. */
  run<T>(fn: () => T): T | undefined {
    try {
      return fn();
    } catch (err) {
      if (err instanceof ApiError && typeof err.body?.error === 'string') {
        this.list.push(err.body.error);
        return undefined;
      }
      throw err;
    }
  }
  add(msg: string): void {
    this.list.push(msg);
  }
  throwIfAny(): void {
    if (this.list.length) throw grapeError(400, [...new Set(this.list)].join(', '));
  }
}

const VISIBILITY = ['private', 'internal', 'public'] as const;
const given = (p: Params, name: string): boolean => p[name] !== undefined;

/** A string element field of `files[i]`: missing / invalid / empty / not a valid file path. */
function fileString(
  errors: Errors,
  item: Record<string, unknown>,
  name: string,
  label: string,
  opts: { required: boolean; notBlank: boolean; path: boolean },
): string | null | undefined {
  const v = item[name];
  if (v === undefined) {
    if (opts.required) errors.add(`${label} is missing`);
    return v;
  }
  if (v === null) {
    // A given null: the path validator fails on it first, then `allow_blank: false` (GitLab's spec order).
    if (opts.path && opts.notBlank) errors.add(`${label} should be a valid file path`);
    if (opts.notBlank) errors.add(`${label} is empty`);
    return null;
  }
  if (typeof v !== 'string' && typeof v !== 'number') {
    errors.add(`${label} is invalid`);
    return undefined;
  }
  const s = String(v);
  if (opts.notBlank && s.trim() === '') {
    errors.add(`${label} is empty`);
    return undefined;
  }
  if (opts.path && s !== '' && !isValidFilePath(s)) {
    errors.add(`${label} should be a valid file path`);
    return undefined;
  }
  return s;
}

function fileItems(errors: Errors, raw: unknown): Record<string, unknown>[] | undefined {
  const list = Array.isArray(raw) ? raw : null;
  if (!list || list.some((x) => !x || typeof x !== 'object' || Array.isArray(x))) {
    errors.add('files is invalid');
    return undefined;
  }
  return list as Record<string, unknown>[];
}

export interface CreateSnippetParams {
  title: string;
  description?: string | null;
  visibility: Visibility;
  files: SnippetFile[];
}

/** POST params; `visibilityRequired` for project snippets, personal ones default to `internal`. */
export function createParams(p: Params, visibilityRequired: boolean): CreateSnippetParams {
  const errors = new Errors();
  const base = errors.run(() =>
    declared(p, {
      title: t.string().required().notBlank(),
      description: t.string(),
      visibility: visibilityRequired ? t.string().required().values(VISIBILITY) : t.string().values(VISIBILITY).default('internal'),
    }),
  );
  let files: SnippetFile[] | undefined;
  if (given(p, 'files') && p.files !== null) {
    const items = fileItems(errors, p.files);
    if (items) {
      files = items.map((item, i) => ({
        path: fileString(errors, item, 'file_path', `files[${i}][file_path]`, { required: true, notBlank: true, path: true }) ?? '',
        content: fileString(errors, item, 'content', `files[${i}][content]`, { required: true, notBlank: true, path: false }) ?? '',
      }));
    }
  }
  const legacy = errors.run(() => declared(p, { content: t.string().notBlank() }));
  if (given(p, 'content')) errors.run(() => declared(p, { file_name: t.string().required() }));
  if (given(p, 'files') && given(p, 'content')) errors.add('files, content are mutually exclusive');
  else if (!given(p, 'files') && !given(p, 'content')) errors.add('files, content are missing, exactly one parameter must be provided');
  errors.throwIfAny();
  if (!files) files = [{ path: typeof p.file_name === 'string' ? p.file_name : String(p.file_name ?? ''), content: legacy!.content! }];
  return { title: base!.title, description: base!.description, visibility: base!.visibility as Visibility, files };
}

export interface UpdateSnippetParams {
  title?: string;
  description?: string | null;
  visibility?: Visibility;
  content?: string;
  file_name?: string;
  actions?: FileAction[];
}

export function updateParams(p: Params): UpdateSnippetParams {
  const errors = new Errors();
  const base = errors.run(() =>
    declared(p, {
      content: t.string().notBlank(),
      description: t.string(),
      file_name: t.string(),
      title: t.string().notBlank(),
      visibility: t.string().values(VISIBILITY),
    }),
  );
  let actions: FileAction[] | undefined;
  if (given(p, 'files') && p.files !== null) {
    const items = fileItems(errors, p.files);
    if (items) {
      actions = items.map((item, i) => {
        const label = (k: string): string => `files[${i}][${k}]`;
        let action = fileString(errors, item, 'action', label('action'), { required: true, notBlank: false, path: false });
        if (typeof action === 'string' && !(FILE_ACTIONS as readonly string[]).includes(action)) {
          errors.add(`${label('action')} does not have a valid value`);
          action = undefined;
        }
        return {
          action: action as FileAction['action'],
          content: fileString(errors, item, 'content', label('content'), { required: false, notBlank: false, path: false }),
          file_path: fileString(errors, item, 'file_path', label('file_path'), { required: false, notBlank: false, path: true }),
          previous_path: fileString(errors, item, 'previous_path', label('previous_path'), { required: false, notBlank: false, path: true }),
        };
      });
    }
  }
  if (given(p, 'files') && given(p, 'content')) errors.add('files, content are mutually exclusive');
  if (given(p, 'files') && given(p, 'file_name')) errors.add('files, file_name are mutually exclusive');
  const names = ['content', 'description', 'files', 'file_name', 'title', 'visibility'];
  if (!names.some((n) => given(p, n))) errors.add(`${names.join(', ')} are missing, at least one parameter must be provided`);
  errors.throwIfAny();
  return {
    title: base!.title ?? undefined,
    description: base!.description,
    visibility: base!.visibility as Visibility | undefined,
    content: base!.content ?? undefined,
    file_name: base!.file_name ?? undefined,
    actions,
  };
}

/** `:snippet_id` (Grape `type: Integer`). */
export function snippetIdParam(raw: string, name = 'snippet_id'): number {
  if (!/^\d+$/.test(raw)) throw grapeError(400, `${name} is invalid`);
  return Number(raw);
}
