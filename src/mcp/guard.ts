/**
 * The gate every write passes, API tools and task tools alike: given the plan of the write
 * (src/writes/plan.ts) and the call's confirm_token, it lets the write through, or answers
 * with a preview and a confirm_token (nothing changed), or asks the user directly.
 *  - With a confirm_token: the token must match this tool, these arguments, this budget and the
 *    entities as they are now (read fresh); else the call is refused saying why (confirm-tokens.ts).
 *  - Without one, when the mode and the kind of write call for confirmation (policy.ts): a
 *    write that would update or delete what the budget does not hold is refused (checks.ts);
 *    else a token is issued and the preview answered. Where the client declared form elicitation (and
 *    --elicitation is on), the user is asked in the client's dialog instead, through the SDK's
 *    multi-round-trip `inputRequired` (it serves both protocol eras; the token rides along as
 *    the request state). An accepted dialog applies the change with that token; a declined or
 *    cancelled one (or a client that cannot ask) leaves the preview and its token, so the
 *    token path always works. A 2025-era client is asked by us (withDialog), not by the SDK's
 *    shim, with a bounded wait: a dialog that fails, or hangs past --elicitation-timeout, ends
 *    in the preview and a fresh token instead of an error.
 * After a write is applied, what it did is journaled for undo (undo-journal.ts).
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
import { checkTargets } from '../writes/checks.js';
import { describeEntity, shownBy, type Shown } from '../writes/entities.js';
import { dialogText, previewAnswer, type Draft, type Plan } from '../writes/plan.js';
import { mustConfirm } from '../writes/policy.js';
import { escapeControls } from './output/sanitize.js';
import type { ServerState } from './state.js';
import type { BudgetReplica } from '../sync/replica.js';

/** How the request reached the tool, as far as confirming goes. */
export interface ConfirmInput {
  /** confirm_token as the caller gave it. */
  token?: string;
  /** The client declared form elicitation on this request or connection (and --elicitation is on). */
  canAsk: boolean;
  /**
   * Re-entry after the client's dialog: what the user answered, and the token the dialog was for;
   * `failed` when the dialog could not be shown or answered (the user said nothing).
   */
  dialog?: { confirmed: boolean; action: string; token?: string; failed?: string };
}

export const NO_CONFIRM: ConfirmInput = { canAsk: false };

/** The key of the dialog's answer in a multi-round-trip retry. */
const KEY = 'confirm';

/** What a tool handler's context says about confirming (the dialog's answer on re-entry, whether the client can be asked). */
export function confirmInput(ctx: ServerContext | undefined, token: string | undefined, declared: () => unknown, enabled: boolean): ConfirmInput {
  if (!ctx) return { token, canAsk: false };
  const envelope = ctx.mcpReq.envelope as Record<string, any> | undefined;
  const caps = (envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? declared()) as { elicitation?: { form?: unknown } & Record<string, unknown> } | undefined;
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
      failed: /timed? ?out/i.test(why) ? `no answer within ${Number((timeoutMs / 1000).toFixed(1))} s` : why.slice(0, 200),
    };
  }
  return run({ ...input, dialog });
}

export type Gate = { go: true } | { answer: Record<string, unknown> } | { input: InputRequiredResult };

/**
 * Decides whether the planned write goes ahead now. `replica`: the budget's copy the plan was
 * made from (read nearly now when the write can be held).
 */
export async function gate(state: ServerState, plan: Plan, input: ConfirmInput, replica: BudgetReplica): Promise<Gate> {
  const stack = await state.ready();
  const shown = shownBy(replica);
  const binding = { tool: plan.tool, budgetId: plan.budgetId, args: plan.args, entities: plan.entities };
  const token = input.token ?? (input.dialog?.confirmed ? input.dialog.token : undefined);
  if (token) {
    await stack.confirmTokens.redeem(token, binding, shown);
    return { go: true };
  }
  if (!mustConfirm(state.config.writes, plan.kinds)) return { go: true };
  // A preview is of something: no token for an update or delete of what the budget does not hold.
  checkTargets(plan.entities, replica);
  const issued = await stack.confirmTokens.issue(binding);
  if (input.canAsk && !input.dialog) {
    // Budget text is escaped line by line; the dialog's own line breaks stay.
    const message = dialogText({ ...plan, summary: escapeControls(plan.summary) }, (e) =>
      escapeControls(describeEntity(e.kind, e.id, e.before ?? e.after, shown)),
    );
    return {
      input: inputRequired({
        inputRequests: {
          [KEY]: inputRequired.elicit({
            mode: 'form',
            message,
            requestedSchema: { type: 'object', properties: { [KEY]: { type: 'boolean', title: 'Apply this change', default: false } }, required: [KEY] },
          }),
        },
        requestState: issued.token,
      }),
    };
  }
  const dialog = input.dialog;
  return {
    answer: previewAnswer(plan, shown, {
      mode: state.config.writes,
      token: issued.token,
      expiresAt: issued.expiresAt,
      ...(dialog?.failed !== undefined ? { dialogFailed: escapeControls(dialog.failed) } : dialog ? { declined: dialog.action } : {}),
    }),
  };
}

/** Records an applied change in the undo journal; its id for the answer, or a notice when it could not be recorded. */
export async function recordChange(state: ServerState, budgetId: string, tool: string, draft: Draft): Promise<{ change_id?: string; notice?: string }> {
  if (!draft.entities.length) return {};
  try {
    const stack = await state.ready();
    const record = await stack.changes.append(budgetId, { tool, ...draft });
    return { change_id: record.id };
  } catch (e) {
    return { notice: `The change was made, but it could not be recorded for undo (${(e as Error).message}).` };
  }
}

export type { Shown };
