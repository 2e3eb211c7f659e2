/**
 * Tool schemas as the SDK takes them (Standard Schema with a JSON Schema converter), built from
 * zod with adjustments for hosts:
 *  - one `type` per schema: a nullable field is `anyOf: [{type: T, …}, {type: "null"}]`, never a
 *    type array (`type: [T, "null"]`, which zod writes for one without constraints), since hosts
 *    that map tool schemas onto a single-type dialect (Gemini's function declarations) may reject
 *    those (the MCP Inspector's portability check, docs/tools.md);
 *  - lean: no `$schema` per tool, no ±2^53 bounds on integers (what zod writes for z.int()), no
 *    empty `additionalProperties: {}` (JSON Schema's default), no `propertyNames: {type:
 *    "string"}`, no `required` in output schemas. Every host pays for every byte of tools/list at
 *    the start of each conversation, and these say nothing (or next to nothing);
 *  - validation messages are the project's specific ones ("must be an integer", "unknown field").
 */
import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type * as z from 'zod';
import { describeIssues } from '../../api/issues.js';

type Json = Record<string, unknown>;
type JsonOptions = Parameters<StandardSchemaWithJSON['~standard']['jsonSchema']['input']>[0];

const SAFE = Number.MAX_SAFE_INTEGER;

const LENGTHS = new Set(['maxLength', 'minLength', 'minItems', 'maxItems']);

const empty = (v: unknown) => !!v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0;

/** Keys that say nothing: the dialect on every tool, the safe-integer range, an empty schema, no properties below the root. */
function noise(key: string, value: unknown, depth: number): boolean {
  if (key === '$schema') return true;
  if (key === 'properties' && depth > 0 && empty(value)) return true;
  if ((key === 'minimum' && value === -SAFE) || (key === 'maximum' && value === SAFE)) return true;
  // Lengths and list sizes are checked, with a specific message, not advertised (as guardedString's
  // bounds): the lists' descriptions say "up to 100", and no host acts on a memo's 500 characters.
  if (LENGTHS.has(key) && typeof value === 'number') return true;
  // Property names are strings in JSON anyway.
  if (key === 'propertyNames' && JSON.stringify(value) === '{"type":"string"}') return true;
  // An empty schema allows anything, which is what leaving the keyword out says.
  return (key === 'additionalProperties' || key === 'items') && empty(value);
}

/** The schema with the noise above removed, recursively. */
export function leanSchema(node: unknown, names = false, depth = 0): unknown {
  if (Array.isArray(node)) return node.map((n) => leanSchema(n, false, depth + 1));
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  // The members of `properties` are argument names, never keywords.
  for (const [k, v] of Object.entries(node as Json)) if (names || !noise(k, v, depth)) out[k] = leanSchema(v, !names && k === 'properties', depth + 1);
  return names ? out : singleTypes(out);
}

/** Keywords that describe rather than constrain: they stay beside `anyOf`, not in a branch. */
const ANNOTATIONS = new Set(['description', 'title', 'default', 'examples']);

/**
 * One `type` per schema: `type: [T, "null"]` (what zod writes for a nullable field without
 * constraints) → `anyOf: [{type: T, …}, {type: "null"}]`, T's constraints in its branch; and in
 * every such pair the description beside `anyOf`, where hosts look for it.
 */
function singleTypes(node: Json): Json {
  const type = node.type;
  if (Array.isArray(type)) {
    const out: Json = {};
    const branch: Json = {};
    for (const [k, v] of Object.entries(node)) if (k !== 'type') (ANNOTATIONS.has(k) ? out : branch)[k] = v;
    if (Array.isArray(branch.enum)) branch.enum = branch.enum.filter((v) => v !== null);
    out.anyOf = type.map((t) => (t === 'null' ? { type: t } : { type: t, ...branch }));
    return out;
  }
  const any = node.anyOf;
  if (!Array.isArray(any) || !any.some((b: Json) => b.type === 'null')) return node;
  const out: Json = { ...node };
  out.anyOf = any.map((b: Json) => {
    const kept: Json = {};
    for (const [k, v] of Object.entries(b))
      if (ANNOTATIONS.has(k) && !(k in out)) out[k] = v;
      else kept[k] = v;
    return kept;
  });
  return out;
}

/**
 * An output schema names the answer's members and their types, nothing more: no `required` (the
 * API tools' members are optional anyway; an insight's are always there, which its answer shows).
 */
function outputSchema(node: Json): Json {
  const { required: _drop, ...rest } = node;
  return rest;
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

export function toolSchema<T extends z.ZodType>(schema: T): StandardSchemaWithJSON<z.input<T>, z.output<T>> {
  const cached = wrappers.get(schema);
  if (cached) return cached as StandardSchemaWithJSON<z.input<T>, z.output<T>>;
  const wrapper = wrap(schema);
  wrappers.set(schema, wrapper);
  return wrapper;
}

/**
 * A tool schema whose zod schema is made on first use: `built` answers tools/list (the build's
 * JSON Schemas, for their target), and the zod schema is made when a call's arguments are checked.
 * `make` may load it (a tool listed from the build's file alone: tools/cards.ts); the SDK awaits
 * the check. Another target than the build's is converted from zod, which must be loaded by then.
 */
export function deferredToolSchema(make: () => z.ZodType | Promise<z.ZodType>, io: 'input' | 'output', target: string, built: Json): StandardSchemaWithJSON {
  const json = (options: JsonOptions) => {
    if (options.target === target) return built;
    const schema = make();
    if (schema instanceof Promise) throw new Error(`tool schemas were built for ${target}; ${options.target} needs the tool's definition, not loaded yet`);
    return toolSchema(schema)['~standard'].jsonSchema[io](options);
  };
  const validate = (value: unknown) => {
    const schema = make();
    return schema instanceof Promise ? schema.then((s) => toolSchema(s)['~standard'].validate(value)) : toolSchema(schema)['~standard'].validate(value);
  };
  return { '~standard': { version: 1, vendor: 'zod', validate, jsonSchema: { input: json, output: json } } } as StandardSchemaWithJSON;
}

function wrap<T extends z.ZodType>(schema: T): StandardSchemaWithJSON<z.input<T>, z.output<T>> {
  const std = (schema as unknown as { '~standard': StandardSchemaWithJSON<z.input<T>, z.output<T>>['~standard'] })['~standard'];
  return {
    '~standard': {
      ...std,
      validate: (value: unknown) => {
        // With the input in each issue, so that text given for a number can be read back ("12,50").
        const result = schema.safeParse(value, { reportInput: true });
        if (result.success) return { value: result.data };
        // One issue whose message lists every problem (path: what is wrong; …), so the SDK's
        // "Invalid arguments for tool X:" message reads as the server's own ones do.
        return { issues: [{ message: describeIssues(result.error.issues) }] };
      },
      jsonSchema: {
        input: (options: JsonOptions) => convertOnce(schema, 'input', options, () => leanSchema(std.jsonSchema.input(options)) as Json),
        output: (options: JsonOptions) => convertOnce(schema, 'output', options, () => outputSchema(leanSchema(std.jsonSchema.output(options)) as Json)),
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
