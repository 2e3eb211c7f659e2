/**
 * The tools' JSON Schemas, converted from zod at build time. Converting 44 input and 44 output
 * schemas took most of the server's cold start; `npm run build` writes them to
 * dist/mcp/tool-schemas.json (scripts/tool-schemas.mjs) and the server hands them to the SDK
 * instead of converting (schema.ts provideJsonSchema). Each entry carries a signature of its tool
 * (name, title, description, argument and output member names): an entry that no longer matches
 * the tool, from a build that skipped the step, is not used and the tool is converted at run time
 * as before. Run from src/ (tests), there is no file and everything is converted at run time.
 */
import { readFileSync } from 'node:fs';
import { provideJsonSchema, toolSchema } from './schema.js';
import type { ToolDefinition } from './tools/definitions.js';

/** The JSON Schema draft the SDK converts to (its JSON_SCHEMA_CONVERSION_TARGET). */
export const JSON_SCHEMA_TARGET = 'draft-2020-12';

type Json = Record<string, unknown>;

export interface ToolSchemaEntry {
  signature: string;
  input: Json;
  output: Json;
}

export function signatureOf(def: ToolDefinition): string {
  return JSON.stringify([def.name, def.title, def.description, Object.keys(def.input.shape), Object.keys(def.output.shape)]);
}

/** Converts every tool's schemas, as tools/list would (for the build step and its test). */
export function convertToolSchemas(defs: readonly ToolDefinition[]): Record<string, ToolSchemaEntry> {
  const out: Record<string, ToolSchemaEntry> = {};
  for (const def of defs) {
    out[def.name] = {
      signature: signatureOf(def),
      input: toolSchema(def.input)['~standard'].jsonSchema.input({ target: JSON_SCHEMA_TARGET }),
      output: toolSchema(def.output)['~standard'].jsonSchema.output({ target: JSON_SCHEMA_TARGET }),
    };
  }
  return out;
}

let built: Record<string, ToolSchemaEntry> | null | undefined;

function builtSchemas(): Record<string, ToolSchemaEntry> | null {
  if (built === undefined) {
    try {
      built = JSON.parse(readFileSync(new URL('./tool-schemas.json', import.meta.url), 'utf8')) as Record<string, ToolSchemaEntry>;
    } catch {
      built = null;
    }
  }
  return built;
}

/** Gives the SDK a tool's build-time JSON Schemas, when the build made them for this very tool. */
export function useBuiltSchemas(def: ToolDefinition): void {
  const all = builtSchemas();
  if (!all || !Object.hasOwn(all, def.name) || all[def.name]!.signature !== signatureOf(def)) return;
  const entry = all[def.name]!;
  provideJsonSchema(def.input, 'input', JSON_SCHEMA_TARGET, entry.input);
  provideJsonSchema(def.output, 'output', JSON_SCHEMA_TARGET, entry.output);
}
