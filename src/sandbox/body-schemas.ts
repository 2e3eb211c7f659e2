/**
 * The schemas the sandbox parses request bodies with. The real service ignores fields it does not
 * define (the description says so for updateMonthCategory: "any other fields specified will be
 * ignored"), and clients count on it: bank2ynab sends `category` with every transaction, and a
 * client that sends back what it read sends `activity` or `date_first`. So by default the sandbox
 * parses with a stripping copy of each body schema: unknown fields, at any depth, are dropped,
 * while a defined field of the wrong type or out of its limits is still a 400.
 *
 * The shared schemas (api/schemas/bodies.ts) stay strict: the client and the MCP tools build
 * their arguments from them, and a typo there must stay an error. `--strict` serves them as they
 * are, for client authors who want an unknown field refused with a 400 naming it.
 */
import type * as z from 'zod';

/** Schema types that hold no object, so nothing in them needs stripping. */
const LEAVES = new Set(['string', 'number', 'boolean', 'enum', 'literal', 'null']);

/** A copy of `schema` whose objects drop unknown keys instead of refusing them; checks and messages are kept. */
export function stripping(schema: z.ZodType): z.ZodType {
  const def = (schema as unknown as { _zod: { def: Record<string, any> } })._zod.def;
  const clone = (changes: Record<string, unknown>) => (schema as unknown as { clone(def: unknown): z.ZodType }).clone({ ...def, ...changes });
  switch (def.type) {
    case 'object': {
      const shape: Record<string, z.ZodType> = {};
      for (const [key, value] of Object.entries(def.shape as Record<string, z.ZodType>)) shape[key] = stripping(value);
      return clone({ shape, catchall: undefined });
    }
    case 'optional':
    case 'nullable':
      return clone({ innerType: stripping(def.innerType) });
    case 'array':
      return clone({ element: stripping(def.element) });
    default:
      // A new kind of container in a body schema must be handled above, not passed strict.
      if (!LEAVES.has(def.type)) throw new Error(`sandbox: cannot derive a stripping body schema for a ${String(def.type)} schema`);
      return schema;
  }
}

const lenient = new WeakMap<z.ZodType, z.ZodType>();

/** The schema a request body is parsed with: the operation's `body`, stripping unknown fields, or as it is when strict. */
export function requestBodySchema(body: z.ZodType, strict: boolean): z.ZodType {
  if (strict) return body;
  let schema = lenient.get(body);
  if (!schema) lenient.set(body, (schema = stripping(body)));
  return schema;
}
