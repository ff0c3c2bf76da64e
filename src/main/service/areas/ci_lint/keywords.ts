/**
 * Keyword tables of the configuration loader (include and extends). The keyword values are checked
 * by the entry classes in ./entries, each with its own GitLab table.
 */

export const INCLUDE_KEYS = ['local', 'remote', 'template', 'project', 'file', 'ref', 'component', 'artifact', 'job', 'inputs', 'rules', 'integrity'];
/** Extendable::Entry::MAX_NESTING_LEVELS */
export const MAX_EXTENDS_NESTING = 10;
