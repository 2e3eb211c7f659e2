/**
 * A tool call, from the card the server registered to the answer: the tool's definition, the
 * client's confirmation dialog where a held write can ask (../dialog.ts), and the answer (run.ts)
 * with what a view needs beside it. Loaded with the first call (or while the host is idle after
 * connecting), not at start: it imports the definitions and everything that answers them.
 */
import type { CallToolResult, InputRequiredResult, ServerContext } from '@modelcontextprotocol/server';
import { confirmInput, withDialog } from '../answer/dialog.js';
import type { ServerState } from '../state/state.js';
import { showsViews, type Declared } from '../views/register.js';
import { viewOf } from '../views/table.js';
import { viewMeta } from '../views/view-meta.js';
import type { ToolCard } from './cards.js';
import { undoStateOf } from './rehearsal-undo.js';
import { runTool } from './run.js';

export interface CallContext {
  state: ServerState;
  /** What a 2025-era client declared at this instance's initialize (for the dialog). */
  initialized: () => unknown;
  /** The same, or what the session id vouches for (for views). */
  declared: Declared;
  /** The tools offered with it (a view offers drill-downs only into those). */
  offered: readonly { name: string }[];
  /** The client asking, for the alerts it pulls (../pull-alerts.ts). */
  caller: (ctx: ServerContext) => string;
}

export async function callTool(
  card: ToolCard,
  args: Record<string, unknown>,
  ctx: ServerContext,
  call: CallContext,
): Promise<CallToolResult | InputRequiredResult> {
  // serve --rehearse: undo_change of the apply runs on the real budget (rehearsal-undo.ts).
  const state = card.name === 'undo_change' && call.state.applyState ? await undoStateOf(call.state, args) : call.state;
  const { config } = state;
  const def = await card.definition();
  const view = viewOf(def.name);
  return withDialog(
    ctx,
    confirmInput(ctx, args.confirm_token as string | undefined, call.initialized, config.elicitation),
    config.elicitationTimeoutMs,
    (confirm) =>
      runTool(def, args, state, {
        confirm,
        caller: call.caller(ctx),
        ...(view && showsViews(call.declared, ctx) ? { resultMeta: (answer) => viewMeta(answer, call.offered) } : {}),
      }),
  );
}
