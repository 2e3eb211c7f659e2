/**
 * The gate every write passes, API tools and task tools alike: given the plan of the write
 * (plan.ts) and how the call confirms it, it lets the write through, or answers with a preview
 * and a confirm_token (nothing changed), or asks for the user's answer in the client's dialog.
 *  - With a confirm_token (or a dialog the user accepted): the token must match this tool, these
 *    arguments, this budget and the entities as they are now (read fresh: reads.ts 'confirm');
 *    else the call is refused saying why (confirm-tokens.ts).
 *  - Without one, when the mode and the kind of write call for confirmation (policy.ts): a
 *    write that would update or delete what the budget does not hold is refused (checks.ts);
 *    else a token is issued, and the client is asked when it can be (the dialog itself is the
 *    protocol's business: src/mcp/answer/dialog.ts), or the preview answered. A declined, cancelled or
 *    failed dialog answers with the preview and its token, so the token path always works.
 * The decision says nothing of the protocol: mcp/ turns `ask` into the client's dialog.
 */
import type { BudgetReplica } from '../../sync/replica.js';
import { checkTargets } from './checks.js';
import type { ConfirmTokens } from './confirm-tokens.js';
import { describeEntity, shownBy } from './entities.js';
import { dialogQuestion, previewAnswer, type Plan, type Question } from './plan.js';
import { mustConfirm, type WriteMode } from './policy.js';

/** How the call confirms a write, as far as the gate cares. */
export interface ConfirmInput {
  /** confirm_token as the caller gave it. */
  token?: string;
  /** The client can be asked in a dialog (it declared form elicitation, and --elicitation is on). */
  canAsk: boolean;
  /**
   * Re-entry after the client's dialog: what the user answered, and the token the dialog was for;
   * `failed` (escaped for showing) when the dialog could not be shown or answered (the user said nothing).
   */
  dialog?: { confirmed: boolean; action: string; token?: string; failed?: string };
}

export const NO_CONFIRM: ConfirmInput = { canAsk: false };

/** Whether the call confirms a write already previewed (a token, or the client's dialog answered). */
export function confirming(input: ConfirmInput): boolean {
  return !!input.token || !!input.dialog;
}

/** The client's dialog to show: the question, and the token an accepted answer applies the change with. */
export interface Ask {
  token: string;
  question: Question;
}

export type Decision = { go: true } | { stop: Record<string, unknown> } | { ask: Ask };

/**
 * Decides whether the planned write goes ahead now. `replica`: the budget's copy the plan was
 * made from (read nearly now when the write can be held).
 */
export async function gate(tokens: ConfirmTokens, mode: WriteMode, plan: Plan, input: ConfirmInput, replica: BudgetReplica): Promise<Decision> {
  const shown = shownBy(replica);
  const binding = { tool: plan.tool, budgetId: plan.budgetId, args: plan.args, entities: plan.entities };
  const token = input.token ?? (input.dialog?.confirmed ? input.dialog.token : undefined);
  if (token) {
    await tokens.redeem(token, binding, shown);
    return { go: true };
  }
  if (!mustConfirm(mode, plan.kinds)) return { go: true };
  // A preview is of something: no token for an update or delete of what the budget does not hold.
  checkTargets(plan.entities, replica);
  const issued = await tokens.issue(binding);
  if (input.canAsk && !input.dialog) {
    return { ask: { token: issued.token, question: dialogQuestion(plan, (e) => describeEntity(e.kind, e.id, e.before ?? e.after, shown)) } };
  }
  const dialog = input.dialog;
  return {
    stop: previewAnswer(plan, shown, {
      mode,
      token: issued.token,
      expiresAt: issued.expiresAt,
      ...(dialog?.failed !== undefined ? { dialogFailed: dialog.failed } : dialog ? { declined: dialog.action } : {}),
    }),
  };
}
