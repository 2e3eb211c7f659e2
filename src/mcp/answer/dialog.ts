/**
 * The protocol side of confirming a held write in the client's dialog (the decision to ask is
 * the gate's: src/writes/pipeline/gate.ts). Where the client declared form elicitation (and --elicitation
 * is on), the gate's question is asked through the SDK's multi-round-trip `inputRequired` (it
 * serves both protocol eras; the confirm token rides along as the request state); the answer
 * comes back as the call's ConfirmInput. An accepted dialog applies the change with that token;
 * a declined or cancelled one (or a client that cannot ask) leaves the preview and its token, so
 * the token path always works. A 2025-era client is asked by us (withDialog), not by the SDK's
 * shim, with a bounded wait: a dialog that fails, or hangs past --elicitation-timeout, ends in
 * the preview and a fresh token instead of an error.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  inputRequired,
  inputResponse,
  isInputRequiredResult,
  type ElicitRequestFormParams,
  type InputRequiredResult,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { Ask, ConfirmInput } from '../../writes/pipeline/gate.js';
import { dialogText } from '../../writes/pipeline/plan.js';
import { escapeControls } from '../output/sanitize.js';

/** The key of the dialog's answer in a multi-round-trip retry. */
const KEY = 'confirm';

/** What the client declared it can do, as far as elicitation goes. */
type Declared = { elicitation?: { form?: unknown } & Record<string, unknown> } | undefined;

/** What a tool handler's context says about confirming (the dialog's answer on re-entry, whether the client can be asked). */
export function confirmInput(ctx: ServerContext | undefined, token: string | undefined, declared: () => unknown, enabled: boolean): ConfirmInput {
  if (!ctx) return { token, canAsk: false };
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const caps = (envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? declared()) as Declared;
  // A 2025-era client that declares `elicitation: {}` supports forms (the mode came later).
  const canAsk = enabled && !!caps?.elicitation && (caps.elicitation.form !== undefined || Object.keys(caps.elicitation).length === 0);
  const answered = inputResponse(ctx.mcpReq.inputResponses, KEY);
  if (answered.kind !== 'elicit') return { token, canAsk };
  const state = ctx.mcpReq.requestState<string>();
  return {
    token,
    canAsk,
    dialog: {
      confirmed: answered.action === 'accept' && answered.content?.[KEY] === true,
      action: answered.action === 'accept' ? 'not confirmed' : answered.action,
      token: typeof state === 'string' ? state : undefined,
    },
  };
}

/** The gate's question as the client's dialog: budget text escaped line by line (the dialog's own line breaks stay). */
export function askUser(ask: Ask): InputRequiredResult {
  return inputRequired({
    inputRequests: {
      [KEY]: inputRequired.elicit({
        mode: 'form',
        message: dialogText(ask.question, escapeControls),
        requestedSchema: { type: 'object', properties: { [KEY]: { type: 'boolean', title: 'Apply this change', default: false } }, required: [KEY] },
      }),
    },
    requestState: ask.token,
  });
}

/**
 * Runs a tool, and where it asks for the user's confirmation on a 2025-era request (no envelope:
 * the client was told about the dialog at initialize), asks the client itself and runs the tool
 * again with the answer, as the SDK's shim would, but with a bounded wait and no error: a dialog
 * that throws, or stays unanswered for `timeoutMs`, is a dialog that failed, and the tool answers
 * with its preview and a confirm_token (the token path always works).
 */
export async function withDialog<R>(
  ctx: ServerContext | undefined,
  input: ConfirmInput,
  timeoutMs: number,
  run: (input: ConfirmInput) => Promise<R | InputRequiredResult>,
): Promise<R | InputRequiredResult> {
  const first = await run(input);
  if (!ctx || !isInputRequiredResult(first)) return first;
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  if (envelope?.[CLIENT_CAPABILITIES_META_KEY] !== undefined) return first; // 2026 era: the client drives the rounds
  const asked = first.inputRequests?.[KEY] as { params?: ElicitRequestFormParams } | undefined;
  const token = typeof first.requestState === 'string' ? first.requestState : undefined;
  if (!asked?.params) return first;
  let dialog: ConfirmInput['dialog'];
  try {
    const answer = await ctx.mcpReq.elicitInput(asked.params, { timeout: timeoutMs, signal: ctx.mcpReq.signal });
    dialog = {
      confirmed: answer.action === 'accept' && answer.content?.[KEY] === true,
      action: answer.action === 'accept' ? 'not confirmed' : answer.action,
      token,
    };
  } catch (e) {
    if (ctx.mcpReq.signal.aborted) throw e; // the call itself was cancelled
    const why = e instanceof Error ? e.message : String(e);
    dialog = {
      confirmed: false,
      action: 'failed',
      // What the client said goes into the preview's notice: escaped like budget text.
      failed: escapeControls(/timed? ?out/i.test(why) ? `no answer within ${Number((timeoutMs / 1000).toFixed(1))} s` : why.slice(0, 200)),
    };
  }
  return run({ ...input, dialog });
}
