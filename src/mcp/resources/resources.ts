/**
 * Resources: the budget list, each budget's overview, its collections and entities, and the
 * server's status, as JSON. A budget resource is the answer of the read tool it mirrors, built by
 * the same code (resource-read.ts, loaded with the first read → tool-answer.ts: service → output
 * builder), compact, and its text is the tool's text (budget text inside the same per-answer
 * boundary), so `ynab://budgets/{id}/accounts` is exactly what `list_accounts` says. Lists offer
 * one URI per budget for collections and the default budget's entities by name; completions turn
 * a typed name into an id.
 */
import {
  McpServer,
  ResourceNotFoundError,
  ResourceTemplate,
  UriTemplate,
  type CompleteResourceTemplateCallback,
  type ListResourcesResult,
  type Variables,
} from '@modelcontextprotocol/server';
import { bestEffort, budgetEntries, completionValues, entityEntries, matching, replicaOf, type EntityType, type Entry } from '../resolve/catalog.js';
import { ANSWER_MIME_TYPE as MIME } from '../output/untrusted.js';
import type { ServerState } from '../state/state.js';
import { toolCards } from '../tools/cards.js';

/** Reading a resource answers it as its tool does: that code loads with the first read, not at start. */
const reading = () => import('./resource-read.js');

/** A template mirrors a tool this server defines (a typo in the table fails at start, not at the first read). */
function checkTool(state: ServerState, name: string): void {
  if (!toolCards(state.config.writes).some((t) => t.name === name)) throw new Error(`resources: no tool named ${name}`);
}

const UNITS = "Amounts are milliunits (1000 = one unit) with the amount formatted in the budget's currency.";

interface TemplateSpec {
  name: string;
  /** Below ynab://budgets/{budget_id}. */
  path: string;
  tool: string;
  title: string;
  description: string;
  /** What resources/list shows: one URI per budget (a collection) or the default budget's entities. */
  list: 'per_budget' | EntityType;
  /** The entity type whose ids complete each variable besides budget_id. */
  complete?: Record<string, EntityType>;
}

const TEMPLATES: TemplateSpec[] = [
  {
    name: 'budget',
    path: '',
    tool: 'get_budget',
    title: 'Budget overview',
    description: `One budget: name, currency, months covered, how many of each thing it holds, and its accounts. ${UNITS}`,
    list: 'per_budget',
  },
  {
    name: 'accounts',
    path: '/accounts',
    tool: 'list_accounts',
    title: 'Accounts',
    description: `A budget's accounts with balances. ${UNITS}`,
    list: 'per_budget',
  },
  {
    name: 'account',
    path: '/accounts/{account_id}',
    tool: 'get_account',
    title: 'Account',
    description: `One account with its balances. ${UNITS}`,
    list: 'account',
    complete: { account_id: 'account' },
  },
  {
    name: 'categories',
    path: '/categories',
    tool: 'list_categories',
    title: 'Categories',
    description: `A budget's category groups and categories for the current month: assigned, activity, available, goals. ${UNITS}`,
    list: 'per_budget',
  },
  {
    name: 'category',
    path: '/categories/{category_id}',
    tool: 'get_category',
    title: 'Category',
    description: `One category for the current month, with its goal. ${UNITS}`,
    list: 'category',
    complete: { category_id: 'category' },
  },
  {
    name: 'months',
    path: '/months',
    tool: 'list_months',
    title: 'Months',
    description: `A budget's months: income, assigned, activity, Ready to Assign. ${UNITS}`,
    list: 'per_budget',
  },
  {
    name: 'month',
    path: '/months/{month}',
    tool: 'get_month',
    title: 'Month',
    description: `One month (YYYY-MM-01 or "current") with every category's figures. ${UNITS}`,
    list: 'month',
    complete: { month: 'month' },
  },
  { name: 'payees', path: '/payees', tool: 'list_payees', title: 'Payees', description: "A budget's payees, transfer payees included.", list: 'per_budget' },
  {
    name: 'payee',
    path: '/payees/{payee_id}',
    tool: 'get_payee',
    title: 'Payee',
    description: 'One payee: its name and, for a transfer payee, the account it transfers to.',
    list: 'payee',
    complete: { payee_id: 'payee' },
  },
  {
    name: 'scheduled_transactions',
    path: '/scheduled_transactions',
    tool: 'list_scheduled_transactions',
    title: 'Scheduled transactions',
    description: `A budget's scheduled (recurring) transactions. ${UNITS}`,
    list: 'per_budget',
  },
  {
    name: 'scheduled_transaction',
    path: '/scheduled_transactions/{scheduled_transaction_id}',
    tool: 'get_scheduled_transaction',
    title: 'Scheduled transaction',
    description: `One scheduled transaction. ${UNITS}`,
    list: 'scheduled_transaction',
    complete: { scheduled_transaction_id: 'scheduled_transaction' },
  },
  {
    name: 'rules',
    path: '/rules',
    tool: 'list_rules',
    title: 'House rules',
    description: "A budget's house rules in order, as JSON that set_rule imports (rules), with the names of the ids they hold.",
    list: 'per_budget',
  },
  {
    name: 'month_transactions',
    path: '/months/{month}/transactions',
    tool: 'list_month_transactions',
    title: 'Transactions of a month',
    description: `Transactions dated in one month (YYYY-MM-01 or "current"), with count and totals. ${UNITS}`,
    list: 'per_budget',
    complete: { month: 'month' },
  },
];

function decode(value: string | string[] | undefined, uri: string, name: string): string {
  const raw = Array.isArray(value) ? value.join(',') : (value ?? '');
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new ResourceNotFoundError(uri, `Resource not found: ${uri} (${name} is not validly encoded)`);
  }
}

export function completeBudget(state: ServerState): CompleteResourceTemplateCallback {
  return (value) => bestEffort(state, 'completing budget_id', [], async () => completionValues(matching(await budgetEntries(state), value).map((e) => e.id)));
}

function completeEntity(state: ServerState, type: EntityType): CompleteResourceTemplateCallback {
  return (value, context) =>
    bestEffort(state, `completing ${type} ids`, [], async () =>
      completionValues(matching(entityEntries(await replicaOf(state, context?.arguments?.budget_id), type), value).map((e) => e.id)),
    );
}

function titled(title: string, e: Entry): string {
  return `${title}: ${e.label}${e.detail ? ` (${e.detail})` : ''}`;
}

function listOf(state: ServerState, spec: TemplateSpec, uriTemplate: UriTemplate): () => Promise<ListResourcesResult> {
  const expand = (vars: Record<string, string>) => uriTemplate.expand(vars);
  if (spec.list === 'per_budget') {
    return () =>
      bestEffort(state, `listing ${spec.name} resources`, { resources: [] }, async () => ({
        resources: (await budgetEntries(state))
          .filter((b) => b.id !== 'last-used')
          .map((b) => ({
            uri: expand({ budget_id: b.id, month: 'current' }),
            name: `${b.label}: ${spec.title.toLowerCase()}${spec.path.includes('{month}') ? ' (current month)' : ''}`,
            title: `${spec.title}${spec.path.includes('{month}') ? ' (current month)' : ''} — ${b.label}`,
            mimeType: MIME,
          })),
      }));
  }
  const type = spec.list;
  // An entity template has one variable besides budget_id: the one its ids complete.
  const variable = Object.keys(spec.complete ?? {})[0]!;
  return () =>
    bestEffort(state, `listing ${spec.name} resources`, { resources: [] }, async () => {
      const replica = await replicaOf(state, undefined);
      return {
        resources: entityEntries(replica, type)
          .filter((e) => e.id !== 'current')
          .map((e) => ({ uri: expand({ budget_id: replica.summary.id, [variable]: e.id }), name: e.label, title: titled(spec.title, e), mimeType: MIME })),
      };
    });
}

/** Each state's templates, made once: Streamable HTTP registers them on every request. */
const MADE = new WeakMap<ServerState, Map<string, ResourceTemplate>>();

function templateOf(state: ServerState, spec: TemplateSpec): ResourceTemplate {
  let made = MADE.get(state);
  if (!made) MADE.set(state, (made = new Map()));
  let template = made.get(spec.name);
  if (!template) {
    const complete: Record<string, CompleteResourceTemplateCallback> = { budget_id: completeBudget(state) };
    for (const [variable, type] of Object.entries(spec.complete ?? {})) complete[variable] = completeEntity(state, type);
    const uriTemplate = new UriTemplate(`ynab://budgets/{budget_id}${spec.path}`);
    made.set(spec.name, (template = new ResourceTemplate(uriTemplate, { list: listOf(state, spec, uriTemplate), complete })));
  }
  return template;
}

function registerTemplate(server: McpServer, state: ServerState, spec: TemplateSpec): void {
  checkTool(state, spec.tool);
  const template = templateOf(state, spec);
  const uriTemplate = template.uriTemplate;
  server.registerResource(spec.name, template, { title: spec.title, description: spec.description, mimeType: MIME }, async (uri: URL, vars: Variables) => {
    const args: Record<string, unknown> = {};
    for (const name of uriTemplate.variableNames) args[name] = decode(vars[name], uri.href, name);
    return (await reading()).readAsTool(state, uri.href, spec.tool, args);
  });
}

export function registerResources(server: McpServer, state: ServerState): void {
  server.registerResource(
    'budgets',
    'ynab://budgets',
    {
      title: 'Budgets',
      description: 'The budgets this token can see: id, name, months covered, currency. Each has ynab://budgets/{budget_id} and its collections.',
      mimeType: MIME,
    },
    async (uri) => (await reading()).readAsTool(state, uri.href, 'list_budgets', {}),
  );
  server.registerResource(
    'status',
    'ynab://status',
    {
      title: 'Server status',
      description:
        'Requests left in the hourly YNAB limit and when the next is possible (UTC), how fresh each budget copy is, where the token came from (never the token), read-only state, toolsets, default budget.',
      mimeType: MIME,
    },
    async (uri) => (await reading()).readStatus(state, uri.href),
  );
  for (const spec of TEMPLATES) registerTemplate(server, state, spec);
}
