/**
 * Tool schemas as the SDK takes them (Standard Schema with a JSON Schema converter), built from
 * zod with adjustments for hosts:
 *  - nullable fields are advertised as `type: [T, "null"]` rather than `anyOf`, which some
 *    clients cannot read (no anyOf/oneOf anywhere in input schemas);
 *  - lean: no `$schema` per tool, no ±2^53 bounds on integers (what zod writes for z.int()), no
 *    empty `additionalProperties: {}` (JSON Schema's default). Every host pays for every byte of
 *    tools/list at the start of each conversation, and these say nothing;
 *  - validation messages are the project's specific ones ("must be an integer", "unknown field").
 */
import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type * as z from 'zod';
import { describeIssues } from '../api/issues.js';

type Json = Record<string, unknown>;
type JsonOptions = Parameters<StandardSchemaWithJSON['~standard']['jsonSchema']['input']>[0];

const SAFE = Number.MAX_SAFE_INTEGER;

const empty = (v: unknown) => !!v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0;

/** Keys that say nothing: the dialect on every tool, the safe-integer range, an empty schema, no properties below the root. */
function noise(key: string, value: unknown, depth: number): boolean {
  if (key === '$schema') return true;
  if (key === 'properties' && depth > 0 && empty(value)) return true;
  if ((key === 'minimum' && value === -SAFE) || (key === 'maximum' && value === SAFE)) return true;
  // An empty schema allows anything, which is what leaving the keyword out says.
  return (key === 'additionalProperties' || key === 'items') && empty(value);
}

/** `anyOf: [X, {type: "null"}]` → X with `type: [X.type, "null"]`, recursively; noise removed. */
export function flattenNullable(node: unknown, names = false, depth = 0): unknown {
  if (Array.isArray(node)) return node.map((n) => flattenNullable(n, false, depth + 1));
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  // The members of `properties` are argument names, never keywords.
  for (const [k, v] of Object.entries(node as Json)) if (names || !noise(k, v, depth)) out[k] = flattenNullable(v, !names && k === 'properties', depth + 1);
  const any = out.anyOf as Json[] | undefined;
  if (Array.isArray(any) && any.length === 2) {
    const nullIndex = any.findIndex((s) => s.type === 'null' && Object.keys(s).length === 1);
    const other = any[1 - nullIndex];
    if (nullIndex !== -1 && other && typeof other.type === 'string' && !other.anyOf && !other.oneOf) {
      const { anyOf: _drop, ...rest } = out;
      const merged: Json = { ...other, ...rest, type: [other.type, 'null'] };
      if (Array.isArray(other.enum) && !other.enum.includes(null)) merged.enum = [...other.enum, null];
      return merged;
    }
  }
  return out;
}

/** Tool schemas never change: one wrapper per schema, and each JSON Schema converted once. */
const wrappers = new WeakMap<z.ZodType, unknown>();
/** The JSON Schemas of each schema, by direction and target: converted, or given (precomputed). */
const converted = new WeakMap<z.ZodType, Record<'input' | 'output', Map<string, Json>>>();

function jsonSchemas(schema: z.ZodType): Record<'input' | 'output', Map<string, Json>> {
  let maps = converted.get(schema);
  if (!maps) converted.set(schema, (maps = { input: new Map(), output: new Map() }));
  return maps;
}

/**
 * Gives a schema's JSON Schema for one direction and target instead of converting it (the build
 * converts every tool's once, see tool-schemas.ts; zod's conversion is most of a cold start).
 */
export function provideJsonSchema(schema: z.ZodType, io: 'input' | 'output', target: string, json: Json): void {
  jsonSchemas(schema)[io].set(target, json);
}

export function toolSchema<T extends z.ZodType>(schema: T): StandardSchemaWithJSON<z.input<T>, z.output<T>> {
  const cached = wrappers.get(schema);
  if (cached) return cached as StandardSchemaWithJSON<z.input<T>, z.output<T>>;
  const wrapper = wrap(schema);
  wrappers.set(schema, wrapper);
  return wrapper;
}

function wrap<T extends z.ZodType>(schema: T): StandardSchemaWithJSON<z.input<T>, z.output<T>> {
  const std = (schema as unknown as { '~standard': StandardSchemaWithJSON<z.input<T>, z.output<T>>['~standard'] })['~standard'];
  return {
    '~standard': {
      ...std,
      validate: (value: unknown) => {
        const result = schema.safeParse(value);
        if (result.success) return { value: result.data };
        // One issue whose message lists every problem (path: what is wrong; …), so the SDK's
        // "Invalid arguments for tool X:" message reads as the server's own ones do.
        return { issues: [{ message: describeIssues(result.error.issues) }] };
      },
      jsonSchema: {
        input: (options: JsonOptions) => convertOnce(schema, 'input', options, () => flattenNullable(std.jsonSchema.input(options)) as Json),
        output: (options: JsonOptions) => convertOnce(schema, 'output', options, () => flattenNullable(std.jsonSchema.output(options)) as Json),
      },
    },
  } as StandardSchemaWithJSON<z.input<T>, z.output<T>>;
}

function convertOnce(schema: z.ZodType, io: 'input' | 'output', options: { target: string }, convert: () => Json): Json {
  const done = jsonSchemas(schema)[io];
  let value = done.get(options.target);
  if (!value) done.set(options.target, (value = convert()));
  return value;
}
