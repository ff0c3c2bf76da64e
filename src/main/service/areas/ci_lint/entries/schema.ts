/**
 * The part of JSON Schema (draft-07) GitLab's small CI schemas use (type, minLength, maxLength,
 * properties, required, additionalProperties), with json_schemer 2's error wording as
 * JsonSchemaValidator reports it (`detail_errors: true`).
 */

export interface Schema {
  type?: string | string[];
  minLength?: number;
  maxLength?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean;
}

const typeOf = (v: unknown): string[] => {
  if (v === null) return ['null'];
  if (Array.isArray(v)) return ['array'];
  if (typeof v === 'number') return Number.isInteger(v) ? ['integer', 'number'] : ['number'];
  return [typeof v];
};

const article = (type: string): string => (['array', 'integer', 'object'].includes(type) ? 'an' : 'a');

function typeError(where: string, type: string | string[]): string {
  if (Array.isArray(type)) return `value at ${where} is not one of the types: [${type.map((t) => JSON.stringify(t)).join(', ')}]`;
  if (type === 'null') return `value at ${where} is not null`;
  return `value at ${where} is not ${article(type)} ${type}`;
}

/** json_schemer's messages for `value` against `schema`, in the schema's keyword order. */
export function schemaErrors(schema: Schema, value: unknown, pointer = ''): string[] {
  const where = pointer ? `\`${pointer}\`` : 'root';
  const out: string[] = [];
  if (schema.type !== undefined) {
    const wanted = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!wanted.some((t) => typeOf(value).includes(t))) out.push(typeError(where, schema.type));
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    if (schema.minLength !== undefined && length < schema.minLength) out.push(`string length at ${where} is less than: ${schema.minLength}`);
    if (schema.maxLength !== undefined && length > schema.maxLength) out.push(`string length at ${where} is greater than: ${schema.maxLength}`);
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const object = value as Record<string, unknown>;
    for (const [name, sub] of Object.entries(schema.properties ?? {})) {
      if (name in object) out.push(...schemaErrors(sub, object[name], `${pointer}/${name}`));
    }
    const missing = (schema.required ?? []).filter((name) => !(name in object));
    if (missing.length) out.push(`object at ${where} is missing required properties: ${missing.join(', ')}`);
    if (schema.additionalProperties === false) {
      for (const name of Object.keys(object)) {
        if (!(name in (schema.properties ?? {}))) out.push(`object property at \`${pointer}/${name}\` is a disallowed additional property`);
      }
    }
  }
  return out;
}

/** lib/gitlab/ci/config/entry/schemas/imageable/executor_opts.json */
export const EXECUTOR_OPTS: Schema = {
  type: 'object',
  properties: {
    docker: {
      type: 'object',
      properties: { platform: { type: 'string', minLength: 1, maxLength: 64 }, user: { type: 'string', minLength: 1, maxLength: 255 } },
      additionalProperties: false,
    },
    kubernetes: {
      type: 'object',
      properties: { user: { type: ['string', 'integer'], minLength: 1, maxLength: 255 } },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
};

/** lib/gitlab/ci/config/entry/schemas/kubernetes/managed_resources.json */
export const MANAGED_RESOURCES: Schema = {
  type: 'object',
  properties: { enabled: { type: 'boolean' } },
  additionalProperties: false,
};

/** lib/gitlab/ci/config/entry/schemas/kubernetes/dashboard.json */
export const DASHBOARD: Schema = {
  type: 'object',
  properties: { namespace: { type: 'string', minLength: 1, maxLength: 63 }, flux_resource_path: { type: 'string', minLength: 1, maxLength: 255 } },
  required: ['namespace'],
  additionalProperties: false,
};
