/**
 * `rehearsal_changes`'s answer (rehearsal-changes.ts registers the tool): loaded at its first call,
 * so a server that starts answers tools/list without the write pipeline's modules (cold start).
 */
import { formatMilliunits } from '../../api/money.js';
import { latestMonthOf } from '../../insights/core/ready-to-assign.js';
import { shownBy } from '../../writes/pipeline/entities.js';
import { rehearsalChanges, rehearsalTotals } from '../../writes/rehearsal/changes.js';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { describeError } from '../answer/errors.js';
import { escapeText, sanitize } from '../output/sanitize.js';
import { answerText, USER_DATA_NOTICE } from '../output/untrusted.js';
import { rehearsalNotice, type RehearsalCopy } from '../state/config.js';
import type { ServerState } from '../state/state.js';

/** The answer: the rows, the totals, Ready to Assign before (as copied) and after (now). */
export async function changesAnswer(state: ServerState, copy: RehearsalCopy): Promise<Record<string, unknown>> {
  const stack = await state.ready();
  const { replica } = await stack.service.replicas.fresh(copy.budget.id);
  const records = await stack.changes.recent(copy.budget.id);
  const format = replica.summary.currency_format ?? null;
  const money = (amount: number) => ({ amount, amount_formatted: formatMilliunits(amount, format) });
  const totals = rehearsalTotals(records);
  const latest = latestMonthOf(replica.months);
  const after = latest ? replica.months.get(latest)!.to_be_budgeted : copy.ready_to_assign.amount;
  return {
    rehearsal: rehearsalNotice(copy),
    changes: rehearsalChanges(records, shownBy(replica)),
    totals: {
      transactions_created: totals.transactions_created,
      transactions_changed: totals.transactions_changed,
      transactions_deleted: totals.transactions_deleted,
      assigned_by_month: totals.assigned_by_month.map((m) => ({ month: m.month.slice(0, 7), ...money(m.assigned) })),
      ready_to_assign_before: { month: copy.ready_to_assign.month.slice(0, 7), ...money(copy.ready_to_assign.amount) },
      ready_to_assign_after: { month: (latest ?? copy.ready_to_assign.month).slice(0, 7), ...money(after) },
    },
    // The rehearsal's journal keeps its last REHEARSAL_MAX_CHANGES (writes/rehearsal/changes.ts): an older one is not listed.
    ...(records.length >= stack.changes.max
      ? {
          notices: [
            `Only the last ${stack.changes.max} changes are kept in the journal; earlier ones are not listed, and apply_rehearsal refuses this rehearsal.`,
          ],
        }
      : {}),
    data_notice: USER_DATA_NOTICE,
  };
}

/** The tool's result: the answer, or its error in the tool's words. */
export async function changesResult(state: ServerState, copy: RehearsalCopy): Promise<CallToolResult> {
  try {
    const structured = sanitize(await changesAnswer(state, copy), (text) => text);
    return { content: [{ type: 'text', text: answerText(structured) }], structuredContent: structured };
  } catch (e) {
    return { content: [{ type: 'text', text: escapeText(describeError(e, 'rehearsal_changes', false)) }], isError: true };
  }
}
