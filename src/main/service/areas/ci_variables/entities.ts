import type { VariableRow } from './variables';

/**
 * Entities::Ci::Variable: project and group variables carry `hidden` and `environment_scope`,
 * instance variables do not; a hidden variable's value is never shown.
 */
export function variable(v: VariableRow): Record<string, unknown> {
  const instance = v.owner_type === 'Instance';
  const out: Record<string, unknown> = { variable_type: v.variable_type, key: v.key, value: v.hidden ? null : v.value };
  if (!instance) out.hidden = !!v.hidden;
  out.protected = !!v.protected;
  out.masked = !!v.masked;
  out.raw = !!v.raw;
  if (!instance) out.environment_scope = v.environment_scope;
  out.description = v.description;
  return out;
}
