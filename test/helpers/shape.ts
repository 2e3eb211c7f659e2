/**
 * Exact shape checks with the project's own zod schemas: the value parses, every field the
 * schema declares is present (null for no value, never omitted, optional ones included), and
 * there are no fields the schema does not declare.
 */
import * as z from 'zod';

function unwrap(schema: z.ZodType): z.ZodType {
  let s: any = schema;
  for (;;) {
    const t = s?.def?.type;
    if (t === 'optional' || t === 'nullable' || t === 'default' || t === 'readonly') s = s.def.innerType;
    else if (t === 'pipe') s = s.def.in;
    else return s;
  }
}

/** Lists every place where `value` does not have exactly the fields `schema` declares. */
export function shapeProblems(schema: z.ZodType, value: unknown, path = '$', out: string[] = []): string[] {
  const s: any = unwrap(schema);
  const type = s?.def?.type;
  if (value === null || value === undefined) return out;
  if (type === 'object') {
    if (typeof value !== 'object' || Array.isArray(value)) {
      out.push(`${path}: expected an object`);
      return out;
    }
    const shape = s.shape as Record<string, z.ZodType>;
    const v = value as Record<string, unknown>;
    for (const key of Object.keys(shape)) {
      if (!(key in v)) out.push(`${path}.${key}: missing`);
      else shapeProblems(shape[key]!, v[key], `${path}.${key}`, out);
    }
    const isRecord = s.def.catchall && s.def.catchall.def?.type !== 'never' && s.def.catchall.def?.type !== 'unknown';
    if (!isRecord) for (const key of Object.keys(v)) if (!(key in shape)) out.push(`${path}.${key}: not in the schema`);
  } else if (type === 'array' && Array.isArray(value)) {
    value.forEach((item, i) => shapeProblems(s.def.element, item, `${path}[${i}]`, out));
  }
  return out;
}

/** Parses with the schema and checks the exact shape; returns problems (empty when exact). */
export function exactShape(schema: z.ZodType, value: unknown): string[] {
  const parsed = schema.safeParse(value);
  const problems = parsed.success ? [] : parsed.error.issues.slice(0, 10).map((i) => `$.${i.path.join('.')}: ${i.message}`);
  return [...problems, ...shapeProblems(schema, value)].slice(0, 20);
}
