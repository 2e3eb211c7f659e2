/**
 * The tools as a server offers them, one card each: what tools/list shows of a tool in the form a
 * `--writes` mode offers it, and the way to its definition. A bundled server whose tool file is the
 * one its own build wrote (../tool-schemas-file.ts) makes the cards from that file alone: the
 * definitions, and the computations and write pipeline behind them, load with the first call, or
 * while the host is idle after connecting (ServerState.warmUp), not before the first tools/list.
 * Loading them was most of what was left of the cold start (bench: footprint). Anywhere else (run
 * from src/, a file changed after the build), the definitions are loaded here and the cards are
 * made from them, their schemas converted where the file has no entry that fits (../tool-schemas.ts).
 */
import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { Access } from '../../api/operations/types.js';
import { canHold, type WriteKind, type WriteMode } from '../../writes/pipeline/policy.js';
import { deferredToolSchema } from './schema.js';
import { builtTools, JSON_SCHEMA_TARGET, type ToolSchemaEntry } from './tool-schemas-file.js';
import type { McpToolset } from './toolsets.js';
import type { ToolAnnotations, ToolDefinition } from './definitions.js';

export interface ToolCard {
  name: string;
  title: string;
  description: string;
  toolset: McpToolset;
  access: Access;
  kind: ToolDefinition['kind'];
  kinds: readonly WriteKind[];
  annotations: ToolAnnotations;
  /** The schemas as the SDK takes them: JSON Schemas for tools/list, zod (made on first use) for checking a call. */
  schemas(): { input: StandardSchemaWithJSON; output: StandardSchemaWithJSON };
  /** The tool's definition in this form. */
  definition(): Promise<ToolDefinition>;
}

/** The definitions (and what answers them): loaded with the first call, or while the host is idle. */
export const loadDefinitions = () => import('./definitions.js');

/** A card from the build's entry for this form of the tool; the definition loads when first asked for. */
function builtCard(name: string, entry: ToolSchemaEntry, mode: WriteMode): ToolCard {
  let def: Promise<ToolDefinition> | undefined;
  const definition = () =>
    (def ??= loadDefinitions().then(({ TOOL_DEFINITIONS, withConfirm }) => {
      const base = TOOL_DEFINITIONS.find((d) => d.name === name);
      if (!base) throw new Error(`the tool file lists ${name}, which this build does not define`);
      return withConfirm(base, mode);
    }));
  let schemas: ReturnType<ToolCard['schemas']> | undefined;
  return {
    name,
    title: entry.title,
    description: entry.description,
    toolset: entry.toolset,
    access: entry.access,
    kind: entry.kind,
    kinds: entry.kinds,
    annotations: entry.annotations,
    definition,
    schemas: () =>
      (schemas ??= {
        input: deferredToolSchema(async () => (await definition()).input, 'input', JSON_SCHEMA_TARGET, entry.input),
        output: deferredToolSchema(async () => (await definition()).output, 'output', JSON_SCHEMA_TARGET, entry.output),
      }),
  };
}

/** Every tool in the form `mode` offers, from the build's file alone. */
function builtCards(tools: Record<string, ToolSchemaEntry[]>, mode: WriteMode): ToolCard[] {
  return Object.entries(tools).map(([name, forms]) => {
    const plain = forms.find((f) => f.form === 'plain')!;
    // As withConfirm decides: a write the mode can hold is offered with confirm_token.
    const held = plain.access === 'write' && canHold(mode, plain.kinds);
    return builtCard(name, (held && forms.find((f) => f.form === 'confirm')) || plain, mode);
  });
}

/** What making cards from the definitions needs, loaded only where the build's file cannot serve. */
async function definitionSource() {
  const [{ TOOL_DEFINITIONS, withConfirm }, { sdkSchemas }] = await Promise.all([loadDefinitions(), import('./tool-schemas.js')]);
  return (mode: WriteMode): ToolCard[] =>
    TOOL_DEFINITIONS.map((base) => {
      const def = withConfirm(base, mode);
      let schemas: ReturnType<ToolCard['schemas']> | undefined;
      const { name, title, description, toolset, access, kind, kinds, annotations } = def;
      return { name, title, description, toolset, access, kind, kinds, annotations, schemas: () => (schemas ??= sdkSchemas(def)), definition: async () => def };
    });
}

const built = builtTools();
const fromDefinitions = built?.trusted ? undefined : await definitionSource();

const BY_MODE = new Map<WriteMode, readonly ToolCard[]>();

/** Every tool, in the form `mode` offers it (in the definitions' order), made once per mode. */
export function toolCards(mode: WriteMode): readonly ToolCard[] {
  let cards = BY_MODE.get(mode);
  if (!cards) BY_MODE.set(mode, (cards = fromDefinitions ? fromDefinitions(mode) : builtCards(built!.tools, mode)));
  return cards;
}
