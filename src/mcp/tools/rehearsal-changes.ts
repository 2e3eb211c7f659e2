/**
 * `rehearsal_changes` (docs/rehearsal.md): what a rehearsal changed, in one answer. Registered only
 * when the server rehearses (`serve --rehearse`), so it costs the default tools/list nothing. Its
 * rows and totals come from the rehearsal's undo journal (writes/rehearsal/changes.ts, which
 * applying a rehearsal reads too); Ready to Assign after, from the copy as it is now.
 */
import type { CallToolResult, McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import type { RehearsalCopy } from '../state/config.js';
import type { ServerState } from '../state/state.js';
import { toolSchema } from './schema.js';

export const REHEARSAL_CHANGES = 'rehearsal_changes';

const DESCRIPTION =
  'Use to list what this rehearsal changed, oldest first (undone changes left out): each change with its tool, words, entities before and after, change_id; then totals.';

export function registerRehearsalChanges(server: McpServer, state: ServerState, copy: RehearsalCopy): void {
  server.registerTool(
    REHEARSAL_CHANGES,
    { title: 'Rehearsal changes', description: DESCRIPTION, inputSchema: toolSchema(z.strictObject({})), annotations: { readOnlyHint: true } },
    // The answer (and the error path's modules) load at the first call: see rehearsal-changes-answer.ts.
    async (): Promise<CallToolResult> => (await import('./rehearsal-changes-answer.js')).changesResult(state, copy),
  );
}
