/**
 * Helpers for the OpenAPI contract test: both sides (the official OpenAPI description and
 * the project's zod schemas) are reduced to one small structural model, `Shape`, and two
 * shapes are diffed into readable lines such as `Account.note: nullable in spec, not in ours`.
 *
 * Spec side: the YAML is parsed with `yaml`; `$ref`, `allOf`, OpenAPI 3.1 `type: [x, "null"]`,
 * 3.0 `nullable: true` and `null` enum members are resolved here.
 * Our side: `z.toJSONSchema` (zod 4) produces JSON Schema; an `override` hook tags every string
 * node with the wire format it validates (found by probing the validator with sample values,
 * so it does not depend on how the regex or refinement is written) and every node that *is*
 * one of the named schemas (by instance identity), so nested entities are recognised.
 */
import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import * as z from 'zod';

export type Kind = 'object' | 'record' | 'array' | 'string' | 'integer' | 'number' | 'boolean' | 'any' | 'unknown';
export type Format = 'uuid' | 'date' | 'date-time';

export interface Shape {
  kind: Kind;
  nullable: boolean;
  /** Non-null enum values (`""` included). */
  enum?: readonly string[];
  /** uuid / date / date-time on the spec side; the probed format on ours ('date, calendar-unchecked' etc. for near misses). */
  format?: string;
  maxLength?: number;
  properties?: ReadonlyMap<string, Shape>;
  required?: ReadonlySet<string>;
  /** Array items. */
  items?: Shape;
  /** Record (additionalProperties) values. */
  values?: Shape;
  /** Spec: the component schema this node is a `$ref` to. Ours: the spec names our named schema(s) stand for. */
  names?: readonly string[];
  /** Why a node could not be classified (kind 'unknown'). */
  note?: string;
}

type Json = Record<string, unknown>;

function isJson(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const SPEC_FORMATS: ReadonlySet<string> = new Set<Format>(['uuid', 'date', 'date-time']);
const SCALARS: ReadonlySet<string> = new Set(['string', 'integer', 'number', 'boolean']);

// ---------------------------------------------------------------------------------------------
// Spec side
// ---------------------------------------------------------------------------------------------

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';
export const HTTP_METHODS: readonly HttpMethod[] = ['get', 'post', 'put', 'patch', 'delete'];

export interface SpecOperation {
  method: HttpMethod;
  path: string;
  operationId: string | undefined;
  /** Names of `in: query` parameters. */
  query: Map<string, Shape>;
  /** Names of `in: path` parameters, in declaration order. */
  pathParams: string[];
  /** 2xx status → response schema (the whole `{data: ...}` envelope), unresolved. */
  success: Map<number, unknown>;
  requestBody: unknown;
}

/** An OpenAPI document with `$ref` resolution and normalisation to {@link Shape}. */
export class Spec {
  readonly doc: Json;

  private constructor(doc: Json) {
    this.doc = doc;
  }

  static load(file: string): Spec {
    const doc: unknown = parse(readFileSync(file, 'utf8'));
    if (!isJson(doc)) throw new Error(`${file}: not a YAML mapping`);
    return new Spec(doc);
  }

  static loadIfPresent(file: string): Spec | undefined {
    return existsSync(file) ? Spec.load(file) : undefined;
  }

  get version(): string {
    const info = this.doc['info'];
    return isJson(info) ? String(info['version']) : '?';
  }

  componentNames(): string[] {
    return Object.keys(this.schemas());
  }

  hasComponent(name: string): boolean {
    return Object.hasOwn(this.schemas(), name);
  }

  /** Shape of `#/components/schemas/<name>`. */
  component(name: string): Shape {
    if (!this.hasComponent(name)) throw new Error(`no component schema ${name}`);
    return this.shape({ $ref: `#/components/schemas/${name}` });
  }

  /** Follows a chain of `$ref`s to the referenced object (any JSON pointer into the document). */
  deref(node: unknown): unknown {
    let current = node;
    for (let hops = 0; isJson(current) && typeof current['$ref'] === 'string'; hops++) {
      if (hops > 32) throw new Error(`$ref loop at ${String(current['$ref'])}`);
      current = this.pointer(current['$ref']);
    }
    return current;
  }

  operations(): SpecOperation[] {
    const paths = this.doc['paths'];
    if (!isJson(paths)) return [];
    const result: SpecOperation[] = [];
    for (const [path, rawItem] of Object.entries(paths)) {
      const item = this.deref(rawItem);
      if (!isJson(item)) continue;
      const shared = Array.isArray(item['parameters']) ? item['parameters'] : [];
      for (const method of HTTP_METHODS) {
        const op = item[method];
        if (!isJson(op)) continue;
        const params = [...shared, ...(Array.isArray(op['parameters']) ? op['parameters'] : [])].map((p) => this.deref(p)).filter(isJson);
        const query = new Map<string, Shape>();
        for (const p of params.filter((p) => p['in'] === 'query')) query.set(String(p['name']), this.shape(p['schema'] ?? {}));
        const success = new Map<number, unknown>();
        const responses = op['responses'];
        if (isJson(responses)) {
          for (const [code, rawResponse] of Object.entries(responses)) {
            const status = Number(code);
            if (!(status >= 200 && status < 300)) continue;
            const response = this.deref(rawResponse);
            success.set(status, isJson(response) ? jsonContentSchema(response['content']) : undefined);
          }
        }
        const body = this.deref(op['requestBody']);
        result.push({
          method,
          path,
          operationId: typeof op['operationId'] === 'string' ? op['operationId'] : undefined,
          query,
          pathParams: params.filter((p) => p['in'] === 'path').map((p) => String(p['name'])),
          success,
          requestBody: isJson(body) ? jsonContentSchema(body['content']) : undefined,
        });
      }
    }
    return result;
  }

  /** Normalises an OpenAPI schema object (3.0 or 3.1 flavour) to a {@link Shape}. */
  shape(node: unknown, seen: readonly string[] = []): Shape {
    if (node === true || (isJson(node) && Object.keys(node).length === 0)) return { kind: 'any', nullable: false };
    if (!isJson(node)) return { kind: 'unknown', nullable: false, note: `not a schema: ${JSON.stringify(node)}` };

    const ref = node['$ref'];
    if (typeof ref === 'string') {
      if (seen.includes(ref)) return { kind: 'unknown', nullable: false, note: `recursive $ref ${ref}` };
      const target = this.shape(this.pointer(ref), [...seen, ref]);
      const name = ref.startsWith('#/components/schemas/') ? ref.slice('#/components/schemas/'.length) : undefined;
      return {
        ...target,
        nullable: target.nullable || ownNullable(node),
        ...(name === undefined ? {} : { names: [name] }),
      };
    }

    const allOf = node['allOf'];
    if (Array.isArray(allOf)) {
      const members = allOf.map((m) => this.shape(m, seen));
      const rest = { ...node };
      delete rest['allOf'];
      const own = Object.keys(rest).some((k) => k === 'properties' || k === 'required' || k === 'items' || k === 'enum') ? [this.shape(rest, seen)] : [];
      const merged = mergeAll([...members, ...own]);
      const single = allOf.length === 1 && own.length === 0 ? members[0] : undefined;
      return {
        ...merged,
        nullable: merged.nullable || ownNullable(node),
        ...(single?.names ? { names: single.names } : {}),
      };
    }
    if (Array.isArray(node['anyOf']) || Array.isArray(node['oneOf'])) {
      const options = ((node['anyOf'] ?? node['oneOf']) as unknown[]).map((o) => this.shape(o, seen));
      const nonNull = options.filter((o) => o.kind !== 'unknown' || o.note !== 'null');
      if (nonNull.length === 1 && nonNull[0]) return { ...nonNull[0], nullable: true };
      return { kind: 'unknown', nullable: false, note: 'anyOf/oneOf' };
    }

    const types = Array.isArray(node['type']) ? node['type'].map(String) : node['type'] === undefined ? [] : [String(node['type'])];
    const rawEnum = Array.isArray(node['enum']) ? node['enum'] : undefined;
    const nullable = types.includes('null') || ownNullable(node) || (rawEnum?.includes(null) ?? false);
    const nonNullTypes = types.filter((t) => t !== 'null');
    if (types.length > 0 && nonNullTypes.length === 0) return { kind: 'unknown', nullable: true, note: 'null' };
    if (nonNullTypes.length > 1) return { kind: 'unknown', nullable, note: `type ${JSON.stringify(types)}` };

    let kind: Kind;
    const declared = nonNullTypes[0];
    if (declared === undefined) {
      kind = isJson(node['properties']) || Array.isArray(node['required']) ? 'object' : rawEnum ? 'string' : 'any';
    } else if (declared === 'object' || declared === 'array' || SCALARS.has(declared)) {
      kind = declared as Kind;
    } else {
      return { kind: 'unknown', nullable, note: `type ${declared}` };
    }
    const shape: Shape = { kind, nullable };
    if (rawEnum) shape.enum = rawEnum.filter((v) => v !== null).map(String);
    if (kind === 'string') {
      if (typeof node['format'] === 'string' && SPEC_FORMATS.has(node['format'])) shape.format = node['format'];
      if (typeof node['maxLength'] === 'number') shape.maxLength = node['maxLength'];
    }
    if (kind === 'array') shape.items = this.shape(node['items'] ?? {}, seen);
    if (kind === 'object') {
      const props = isJson(node['properties']) ? node['properties'] : undefined;
      const extra = node['additionalProperties'];
      if (!props && isJson(extra)) {
        shape.kind = 'record';
        shape.values = this.shape(extra, seen);
      } else {
        shape.properties = new Map(Object.entries(props ?? {}).map(([k, v]) => [k, this.shape(v, seen)]));
        shape.required = new Set(Array.isArray(node['required']) ? node['required'].map(String) : []);
      }
    }
    return shape;
  }

  private schemas(): Json {
    const components = this.doc['components'];
    const schemas = isJson(components) ? components['schemas'] : undefined;
    return isJson(schemas) ? schemas : {};
  }

  private pointer(ref: string): unknown {
    if (!ref.startsWith('#/')) throw new Error(`external $ref not supported: ${ref}`);
    let current: unknown = this.doc;
    for (const raw of ref.slice(2).split('/')) {
      const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
      if (!isJson(current) || !Object.hasOwn(current, key)) throw new Error(`unresolvable $ref ${ref}`);
      current = current[key];
    }
    return current;
  }
}

function ownNullable(node: Json): boolean {
  return node['nullable'] === true;
}

function jsonContentSchema(content: unknown): unknown {
  if (!isJson(content)) return undefined;
  const media = content['application/json'];
  return isJson(media) ? media['schema'] : undefined;
}

/** `allOf` of object fragments: properties and required sets are united. */
function mergeAll(members: Shape[]): Shape {
  const nonAny = members.filter((m) => m.kind !== 'any');
  if (nonAny.length === 0) return { kind: 'any', nullable: false };
  if (nonAny.every((m) => m.kind === 'object')) {
    const properties = new Map<string, Shape>();
    const required = new Set<string>();
    for (const m of nonAny) {
      for (const [k, v] of m.properties ?? []) properties.set(k, v);
      for (const r of m.required ?? []) required.add(r);
    }
    // allOf is a conjunction: the result admits null only if every member does.
    return { kind: 'object', nullable: nonAny.every((m) => m.nullable), properties, required };
  }
  if (nonAny.length === 1 && nonAny[0]) return { ...nonAny[0], names: undefined };
  return { kind: 'unknown', nullable: false, note: `allOf of ${nonAny.map((m) => m.kind).join(', ')}` };
}

// ---------------------------------------------------------------------------------------------
// Our side
// ---------------------------------------------------------------------------------------------

const FORMAT_KEY = 'x-contract-format';
const NAMES_KEY = 'x-contract-names';

/** Sample values that exactly one of the spec's string formats accepts. */
const FORMAT_SAMPLES: Readonly<Record<Format, string>> = {
  uuid: '3fa85f64-5717-4562-b3fc-2c963f66afa6',
  date: '2024-02-29',
  'date-time': '2024-02-29T12:34:56.789Z',
};
/** Values no formatted string accepts; a validator accepting either is a plain string. */
const PLAIN_SAMPLES = ['x', 'definitely not a formatted value'];

/**
 * The wire format a string validator enforces, found by probing it: undefined for a plain
 * string, `uuid` / `date` / `date-time` when it accepts exactly that sample, and a descriptive
 * non-spec label otherwise (so a weaker or unrecognised validator shows up as a format mismatch).
 */
export function probeStringFormat(schema: z.core.$ZodType): string | undefined {
  const accepts = (value: string): boolean => z.safeParse(schema, value).success;
  if (PLAIN_SAMPLES.some(accepts)) return undefined;
  const accepted = (Object.keys(FORMAT_SAMPLES) as Format[]).filter((f) => accepts(FORMAT_SAMPLES[f]));
  if (accepted.length !== 1) return `pattern(accepts: ${accepted.join(', ') || 'none of uuid/date/date-time'})`;
  const format = accepted[0] as Format;
  // The spec's `date` is an RFC 3339 full-date: a day that exists on the calendar.
  if (format === 'date' && (accepts('2023-02-29') || accepts('2024-04-31'))) return 'date, calendar-unchecked';
  if (format === 'date-time' && accepts('2024-02-30T12:00:00Z')) return 'date-time, calendar-unchecked';
  return format;
}

/** Our named schemas (by instance) → the spec component names they stand for. */
export type NameIndex = ReadonlyMap<z.core.$ZodType, readonly string[]>;

export function nameIndex(pairs: Iterable<readonly [z.core.$ZodType, string]>): NameIndex {
  const index = new Map<z.core.$ZodType, string[]>();
  for (const [schema, name] of pairs) {
    const names = index.get(schema) ?? [];
    if (!names.includes(name)) names.push(name);
    index.set(schema, names);
  }
  return index;
}

/** JSON Schema of one of our zod schemas, tagged with probed formats and named-schema identities. */
export function ourJsonSchema(schema: z.ZodType, io: 'input' | 'output', names: NameIndex): Json {
  return z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    override: (ctx) => {
      const js = ctx.jsonSchema as Json;
      if (ctx.zodSchema._zod.def.type === 'string') {
        const format = probeStringFormat(ctx.zodSchema);
        if (format !== undefined) js[FORMAT_KEY] = format;
      }
      const named = names.get(ctx.zodSchema);
      if (named) js[NAMES_KEY] = named;
    },
  }) as Json;
}

export function ourShape(schema: z.ZodType, io: 'input' | 'output', names: NameIndex): Shape {
  const root = ourJsonSchema(schema, io, names);
  return jsonSchemaShape(root, root);
}

/**
 * Normalises the JSON Schema zod emits (draft 2020-12) to a {@link Shape}. Local `$ref`s (zod
 * extracts schemas registered with an id, and cycles, into `$defs`) are resolved against `root`.
 */
export function jsonSchemaShape(node: unknown, root: unknown = node, seen: readonly string[] = []): Shape {
  const shapeOf = (child: unknown): Shape => jsonSchemaShape(child, root, seen);
  if (isJson(node) && typeof node['$ref'] === 'string' && node['$ref'].startsWith('#')) {
    const ref = node['$ref'];
    if (seen.includes(ref)) return { kind: 'unknown', nullable: false, note: `recursive $ref ${ref}` };
    let target: unknown = root;
    for (const key of ref.slice(1).split('/').filter(Boolean)) target = isJson(target) ? target[key] : undefined;
    const { $ref: _ignored, ...siblings } = node;
    return jsonSchemaShape(isJson(target) ? { ...target, ...siblings } : target, root, [...seen, ref]);
  }
  if (node === true) return { kind: 'any', nullable: false };
  if (!isJson(node)) return { kind: 'unknown', nullable: false, note: `not a schema: ${JSON.stringify(node)}` };
  const names = Array.isArray(node[NAMES_KEY]) ? (node[NAMES_KEY] as string[]) : undefined;
  const withNames = (s: Shape): Shape => (names ? { ...s, names: [...(s.names ?? []), ...names] } : s);

  if (Array.isArray(node['anyOf'])) {
    const options = node['anyOf'];
    const isNull = (o: unknown): boolean => isJson(o) && o['type'] === 'null' && Object.keys(o).length === 1;
    const rest = options.filter((o) => !isNull(o));
    if (rest.length === 1) {
      const inner = shapeOf(rest[0]);
      return withNames({ ...inner, nullable: inner.nullable || rest.length < options.length });
    }
    return withNames({ kind: 'unknown', nullable: options.some(isNull), note: `anyOf with ${rest.length} non-null branches` });
  }
  if (Array.isArray(node['allOf']) || Array.isArray(node['oneOf']) || typeof node['$ref'] === 'string') {
    return withNames({ kind: 'unknown', nullable: false, note: 'allOf/oneOf/external $ref in our JSON Schema' });
  }

  const types = Array.isArray(node['type']) ? node['type'].map(String) : node['type'] === undefined ? [] : [String(node['type'])];
  const rawEnum = Array.isArray(node['enum']) ? node['enum'] : 'const' in node ? [node['const']] : undefined;
  const nullable = types.includes('null') || (rawEnum?.includes(null) ?? false);
  const nonNullTypes = types.filter((t) => t !== 'null');
  if (nonNullTypes.length > 1) return withNames({ kind: 'unknown', nullable, note: `type ${JSON.stringify(types)}` });
  const declared = nonNullTypes[0];
  if (declared === undefined && !rawEnum) {
    const meaningful = Object.keys(node).filter((k) => k !== '$schema' && k !== NAMES_KEY && k !== FORMAT_KEY);
    return withNames(meaningful.length === 0 ? { kind: 'any', nullable } : { kind: 'unknown', nullable, note: `keys ${meaningful.join(', ')}` });
  }
  const kind: Kind =
    declared === undefined ? 'string' : declared === 'object' || declared === 'array' || SCALARS.has(declared) ? (declared as Kind) : 'unknown';
  const shape: Shape = { kind, nullable };
  if (kind === 'unknown') shape.note = `type ${String(declared)}`;
  if (rawEnum) shape.enum = rawEnum.filter((v) => v !== null).map(String);
  if (kind === 'string') {
    if (typeof node[FORMAT_KEY] === 'string') shape.format = node[FORMAT_KEY];
    if (typeof node['maxLength'] === 'number') shape.maxLength = node['maxLength'];
  }
  if (kind === 'array') shape.items = shapeOf(node['items'] ?? true);
  if (kind === 'object') {
    const props = isJson(node['properties']) ? node['properties'] : undefined;
    const extra = node['additionalProperties'];
    if (!props && isJson(extra)) {
      shape.kind = 'record';
      shape.values = shapeOf(extra);
    } else {
      shape.properties = new Map(Object.entries(props ?? {}).map(([k, v]) => [k, shapeOf(v)]));
      shape.required = new Set(Array.isArray(node['required']) ? node['required'].map(String) : []);
    }
  }
  return withNames(shape);
}

// ---------------------------------------------------------------------------------------------
// Diff
// ---------------------------------------------------------------------------------------------

export interface DiffOptions {
  /**
   * `response`: everything must agree (properties, required, nullability, types, enums, formats).
   * `body`: our request bodies are deliberately stricter, so required-ness and spec-side
   * nullability are not compared; property names, types, enums, formats and every maxLength
   * the spec documents are, and ours must not accept null where the spec does not.
   */
  mode: 'response' | 'body';
}

const describeEnum = (values: readonly string[] | undefined): string =>
  values === undefined ? 'no enum' : `[${values.map((v) => JSON.stringify(v)).join(', ')}]`;

function describeKind(s: Shape): string {
  return s.kind === 'unknown' ? `unknown (${s.note ?? '?'})` : s.kind;
}

/**
 * Lines describing every difference between the spec's shape and ours, each prefixed by
 * `path` (e.g. `Account.note: nullable in spec, not in ours`). Below the top level, a node the
 * spec declares as a `$ref` to component X and ours implements with the schema mapped to X is
 * not descended into: that pair is compared in its own right.
 */
export function diffShapes(spec: Shape, ours: Shape, path: string, options: DiffOptions): string[] {
  const out: string[] = [];
  walk(spec, ours, path, true);
  return out;

  function walk(s: Shape, o: Shape, at: string, top: boolean): void {
    if (!top) {
      if (s.nullable && !o.nullable && options.mode === 'response') out.push(`${at}: nullable in spec, not in ours`);
      if (!s.nullable && o.nullable) out.push(`${at}: nullable in ours, not in spec`);
      const specName = s.names?.[0];
      if (specName !== undefined && o.names !== undefined) {
        if (o.names.includes(specName)) return;
        out.push(`${at}: is ${specName} in spec, ours is the schema mapped to ${o.names.join(' / ')}`);
        return;
      }
    }
    if (s.kind === 'unknown' || o.kind === 'unknown' || s.kind !== o.kind) {
      if (s.kind !== o.kind || s.kind === 'unknown') out.push(`${at}: type is ${describeKind(s)} in spec, ${describeKind(o)} in ours`);
      return;
    }
    if (s.enum !== undefined || o.enum !== undefined) {
      const specValues = new Set(s.enum ?? []);
      const ourValues = new Set(o.enum ?? []);
      const missing = [...specValues].filter((v) => !ourValues.has(v));
      const extra = [...ourValues].filter((v) => !specValues.has(v));
      if (s.enum === undefined || o.enum === undefined || missing.length > 0 || extra.length > 0) {
        out.push(`${at}: enum is ${describeEnum(s.enum)} in spec, ${describeEnum(o.enum)} in ours`);
      }
    }
    if (s.kind === 'string' && s.format !== o.format) {
      out.push(`${at}: format ${s.format ?? 'none (plain string)'} in spec, ${o.format ?? 'none (plain string)'} in ours`);
    }
    if (options.mode === 'body' && s.maxLength !== undefined && s.maxLength !== o.maxLength) {
      out.push(`${at}: maxLength ${s.maxLength} in spec, ${o.maxLength ?? 'none'} in ours`);
    }
    if (s.kind === 'array' && s.items && o.items) walk(s.items, o.items, `${at}[]`, false);
    if (s.kind === 'record' && s.values && o.values) walk(s.values, o.values, `${at}{}`, false);
    if (s.kind === 'object') {
      const sp = s.properties ?? new Map<string, Shape>();
      const op = o.properties ?? new Map<string, Shape>();
      const sr = s.required ?? new Set<string>();
      const or = o.required ?? new Set<string>();
      for (const key of sp.keys()) if (!op.has(key)) out.push(`${at}.${key}: in spec, missing from ours`);
      for (const key of op.keys()) if (!sp.has(key)) out.push(`${at}.${key}: in ours, not in spec`);
      for (const [key, specProp] of sp) {
        const ourProp = op.get(key);
        if (!ourProp) continue;
        if (options.mode === 'response' && sr.has(key) !== or.has(key)) {
          out.push(`${at}.${key}: ${sr.has(key) ? 'required' : 'optional'} in spec, ${or.has(key) ? 'required' : 'optional'} in ours`);
        }
        walk(specProp, ourProp, `${at}.${key}`, false);
      }
      if (options.mode === 'response') {
        // required names that are not properties (a typo in either side's required list)
        for (const key of sr) if (!sp.has(key)) out.push(`${at}.${key}: required in spec but not a spec property`);
        for (const key of or) if (!op.has(key)) out.push(`${at}.${key}: required in ours but not one of our properties`);
      }
    }
  }
}
