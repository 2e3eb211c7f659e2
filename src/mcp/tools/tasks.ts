/**
 * The task-shaped tools, declared as a table like the insights: each row is a name, title,
 * description (when to use it, and that it may answer with a preview first), the members of its
 * answer, the kinds of write it makes (whether it takes confirm_token in a mode), and its handler
 * in src/writes/, which holds the schema of its arguments and types itself from it. A handler
 * plans the write over the budget's copy; the write pipeline (src/writes/pipeline/pipeline.ts) runs it.
 * Accounts, categories and payees may be named (../resolve.ts).
 */
import * as z from 'zod';
import { ALERTS } from '../../writes/alerts/alerts-task.js';
import { APPLY_RULES } from '../../writes/rules/apply-rules.js';
import { APPROVE_TRANSACTIONS, RECATEGORIZE_TRANSACTIONS } from '../../writes/bulk/bulk.js';
import { DELETE_TRANSACTIONS } from '../../writes/bulk/bulk-delete.js';
import { FUND_TARGETS } from '../../writes/targets/fund-targets.js';
import { IMPORT_STATEMENT } from '../../writes/statement/import-statement.js';
import { MERGE_PAYEES } from '../../writes/payees/merge-payees.js';
import { MOVE_MONEY } from '../../writes/move/move-money.js';
import type { WriteKind } from '../../writes/pipeline/policy.js';
import { RECONCILE_ACCOUNT } from '../../writes/reconcile/reconcile.js';
import { DELETE_RULE, LIST_RULES, SET_RULE, SUGGEST_RULES } from '../../writes/rules/rule-tasks.js';
import { SPLIT_TRANSACTION } from '../../writes/split/split.js';
import type { Task } from '../../writes/pipeline/task.js';
import { CREATE_TRANSFER } from '../../writes/transfer/transfer.js';
import { LIST_RECENT_CHANGES, UNDO_CHANGE } from '../../writes/undo/undo-task.js';
import { APPLY_REHEARSAL } from '../../writes/rehearsal/apply-rehearsal.js';
import type { McpToolset } from './toolsets.js';
import { everyRow, hasMembers, type Claim } from '../../api/operations/claims.js';

export interface TaskSpec {
  name: string;
  title: string;
  description: string;
  toolset: McpToolset;
  access: 'read' | 'write';
  /** The kinds of write it can make: with the mode, whether it can be held (and takes confirm_token). */
  kinds: WriteKind[];
  /** Removes or overwrites data (annotations). */
  destructive: boolean;
  output: Record<string, z.ZodType>;
  /** The handler, with the schema of its arguments (src/writes/pipeline/task.ts). */
  task: Task;
  /** What the description says of the answer (src/api/operations/claims.ts). */
  claims?: readonly Claim[];
}

const object = z.looseObject({});
const rows = z.array(z.looseObject({}));

export const TASKS: readonly TaskSpec[] = [
  {
    name: 'alerts',
    title: 'Alerts',
    description:
      'Use to see what changed since you last asked: overspending, cards short, bills uncovered, price rises, targets, reconciling due, review queue. Also sets alert settings.',
    toolset: 'alerts',
    access: 'read',
    kinds: [],
    destructive: false,
    output: { alerts: rows },
    task: ALERTS,
  },
  {
    name: 'create_transfer',
    claims: [
      {
        says: 'makes both sides of the transfer once',
        args: { from_account_id: 'Everyday Checking', to_account_id: 'Rainy Day Savings', amount: 1.11 },
        check: hasMembers('transfer'),
      },
    ],
    title: 'Transfer between accounts',
    // That a category is needed only from a budget to a tracking account is said by category_id.
    description: 'Use to move money between two accounts: makes both sides of the transfer once.',
    toolset: 'transactions',
    access: 'write',
    kinds: ['create'],
    destructive: false,
    output: { transfer: object },
    task: CREATE_TRANSFER,
  },
  {
    name: 'move_money',
    title: 'Move money between categories',
    description: 'Use to move assigned money between categories in a month (e.g. to cover overspending).',
    toolset: 'categories',
    access: 'write',
    kinds: ['update', 'overspend'],
    destructive: true,
    output: { from: object, to: object },
    task: MOVE_MONEY,
  },
  {
    name: 'fund_targets',
    title: 'Fund targets',
    description: "Use to fund targets (Auto-Assign) as one change, any month; short of money, in YNAB's order.",
    toolset: 'planning',
    access: 'write',
    // Always previewed first (it may change 60 categories): one undoable change.
    kinds: ['targets'],
    destructive: true,
    output: { month: z.string().optional() },
    task: FUND_TARGETS,
  },
  {
    name: 'approve_transactions',
    title: 'Approve transactions',
    description: 'Use to approve transactions by id or by filter; categories and payees also set those.',
    toolset: 'transactions',
    access: 'write',
    kinds: ['update', 'bulk', 'count', 'filter'],
    destructive: true,
    output: { updated: z.int().optional() },
    task: APPROVE_TRANSACTIONS,
  },
  {
    name: 'recategorize_transactions',
    title: 'Recategorize transactions',
    description: 'Use to set the category of transactions by id or by filter.',
    toolset: 'transactions',
    access: 'write',
    kinds: ['update', 'bulk', 'count', 'filter'],
    destructive: true,
    output: { updated: z.int().optional() },
    task: RECATEGORIZE_TRANSACTIONS,
  },
  {
    name: 'delete_transactions',
    title: 'Delete transactions',
    description: 'Use to delete several transactions by id or by filter, in one change.',
    toolset: 'transactions',
    access: 'write',
    kinds: ['delete', 'count'],
    destructive: true,
    output: { deleted: z.int().optional() },
    task: DELETE_TRANSACTIONS,
  },
  {
    name: 'split_transaction',
    title: 'Split a transaction',
    description: "Use to make a transaction a split or change a split's lines (or total). A split is recreated; the preview says what survives.",
    toolset: 'transactions',
    access: 'write',
    kinds: ['split'],
    destructive: true,
    output: { transaction: object },
    task: SPLIT_TRANSACTION,
  },
  {
    name: 'import_statement',
    title: 'Import a bank statement',
    description: 'Use to import a bank statement file into an account, matching rows YNAB has. path: local servers only.',
    toolset: 'transactions',
    access: 'write',
    kinds: ['statement'],
    destructive: true,
    output: { created: z.int().optional() },
    task: IMPORT_STATEMENT,
  },
  {
    name: 'reconcile_account',
    title: 'Reconcile an account',
    description: 'Use to reconcile an account to a statement; previews the difference and its likely causes.',
    toolset: 'accounts',
    access: 'write',
    kinds: ['statement'],
    destructive: true,
    output: { reconciled: z.int().optional() },
    task: RECONCILE_ACCOUNT,
  },
  {
    name: 'apply_rules',
    title: 'Apply rules',
    description: 'Use to apply the rules to transactions already there (an account, dates, or all), as one change.',
    toolset: 'rules',
    access: 'write',
    kinds: ['rules'],
    destructive: true,
    output: { updated: z.int().optional() },
    task: APPLY_RULES,
  },
  {
    name: 'merge_payees',
    title: 'Merge payees',
    description: 'Use to merge a payee into another: moves its transactions and scheduled ones as one change; the emptied payee stays.',
    toolset: 'payees',
    access: 'write',
    kinds: ['merge'],
    destructive: true,
    output: { moved_transactions: z.int().optional() },
    task: MERGE_PAYEES,
  },
  {
    name: 'list_recent_changes',
    claims: [{ says: 'with change_id for undo_change', check: everyRow('changes', 'with a change_id', (c) => typeof c.change_id === 'string') }],
    title: 'Recent changes',
    description: 'Use to see what this server changed in the budget (the last 100 changes), with change_id for undo_change.',
    toolset: 'changes',
    access: 'read',
    kinds: [],
    destructive: false,
    output: { changes: rows },
    task: LIST_RECENT_CHANGES,
  },
  {
    name: 'undo_change',
    title: 'Undo a change',
    description: "Use to undo a change this server made (change_id from a write's answer or list_recent_changes). Refused if the budget changed since.",
    toolset: 'changes',
    access: 'write',
    kinds: ['undo'],
    destructive: true,
    output: { restored: rows },
    task: UNDO_CHANGE,
  },
  {
    name: 'apply_rehearsal',
    title: 'Apply a rehearsal',
    description: "Use to apply the rehearsal's changes (all, or change_ids) to the real budget as one change. Changes to what YNAB changed since are left out.",
    toolset: 'changes',
    access: 'write',
    kinds: ['rehearsal'],
    destructive: true,
    output: { applies: rows, left_out: rows },
    task: APPLY_REHEARSAL,
  },
  {
    name: 'list_rules',
    claims: [{ says: "the budget's house rules in order", check: hasMembers('rules') }],
    title: 'House rules',
    description: "Use to see the budget's house rules in order (per field the first match wins), as set_rule takes them (rules: import).",
    toolset: 'rules',
    access: 'read',
    kinds: [],
    destructive: false,
    output: { rules: rows },
    task: LIST_RULES,
  },
  {
    name: 'set_rule',
    title: 'Set a house rule',
    description: 'Use to add or edit (id) a rule. Counts transactions it would change.',
    toolset: 'rules',
    access: 'write',
    kinds: [],
    destructive: true,
    output: { rule: object },
    task: SET_RULE,
  },
  {
    name: 'delete_rule',
    title: 'Delete a house rule',
    description: 'Use to delete a house rule by its id (list_rules).',
    toolset: 'rules',
    access: 'write',
    kinds: [],
    destructive: true,
    output: { deleted: z.string().optional() },
    task: DELETE_RULE,
  },
  {
    name: 'suggest_rules',
    claims: [{ says: 'with evidence', check: everyRow('suggestions', 'with evidence', (s) => s.evidence !== undefined) }],
    title: 'Suggest house rules',
    description:
      'Use to find rules the history already follows (a bank text always one payee, a payee always one category), with evidence; set_rule makes one.',
    toolset: 'rules',
    access: 'read',
    kinds: [],
    destructive: false,
    output: { suggestions: rows },
    task: SUGGEST_RULES,
  },
];
