/**
 * Contract test: the project's zod schemas and operations table against the official OpenAPI
 * description (/plans era) and the last /budgets-era one, both carried by the repository in
 * test/fixtures/ynab-api/ (see the README there for where they come from), so that a clone
 * anywhere checks the contract.
 *
 * Every failure is a list of lines naming the schema (or operation) and field, e.g.
 * `Account.note: nullable in spec, not in ours`.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { OPERATIONS, type Operation } from '../../src/api/operations/index.js';
import * as B from '../../src/api/schemas/bodies.js';
import * as C from '../../src/api/schemas/common.js';
import * as E from '../../src/api/schemas/entities.js';
import * as R from '../../src/api/schemas/responses.js';
import { diffShapes, nameIndex, ourShape, type Shape, Spec } from './openapi-shapes.js';
import { legacyDiff, operationDiff, operationKey, setDiff, specPath } from './operation-diff.js';

/** Repository-relative, as the suites name them. */
const SPEC = 'test/fixtures/ynab-api/openapi.yaml';
const LEGACY_SPEC = 'test/fixtures/ynab-api/openapi-1.76.0-budgets.yaml';
const SPEC_FILE = fileURLToPath(new URL(`../../${SPEC}`, import.meta.url));
const LEGACY_SPEC_FILE = fileURLToPath(new URL(`../../${LEGACY_SPEC}`, import.meta.url));

let specCache: Spec | undefined;
let legacyCache: Spec | undefined;
/** Loaded on first use, inside tests only: a file that cannot be read fails its tests, not the whole file's collection. */
const spec = (): Spec => (specCache ??= Spec.load(SPEC_FILE));
const legacySpec = (): Spec => (legacyCache ??= Spec.load(LEGACY_SPEC_FILE));

// ---------------------------------------------------------------------------------------------
// Which of our schemas stands for which component schema of the spec
// ---------------------------------------------------------------------------------------------

/** Our response entities (entities.ts, plus the two format objects of common.ts) → spec component. */
const ENTITIES: readonly (readonly [string, z.ZodType, string])[] = [
  ['User', E.User, 'User'],
  ['AccountBase', E.AccountBase, 'AccountBase'],
  ['Account', E.Account, 'Account'],
  ['CategoryGroup', E.CategoryGroup, 'CategoryGroup'],
  ['CategoryBase', E.CategoryBase, 'CategoryBase'],
  ['Category', E.Category, 'Category'],
  ['CategoryGroupWithCategories', E.CategoryGroupWithCategories, 'CategoryGroupWithCategories'],
  ['Payee', E.Payee, 'Payee'],
  ['PayeeLocation', E.PayeeLocation, 'PayeeLocation'],
  ['MonthSummaryBase', E.MonthSummaryBase, 'MonthSummaryBase'],
  ['MonthSummary', E.MonthSummary, 'MonthSummary'],
  ['MonthDetailBase', E.MonthDetailBase, 'MonthDetailBase'],
  ['MonthDetail', E.MonthDetail, 'MonthDetail'],
  ['TransactionSummaryBase', E.TransactionSummaryBase, 'TransactionSummaryBase'],
  ['TransactionSummary', E.TransactionSummary, 'TransactionSummary'],
  ['TransactionDetail', E.TransactionDetail, 'TransactionDetail'],
  ['HybridTransaction', E.HybridTransaction, 'HybridTransaction'],
  ['SubTransactionBase', E.SubTransactionBase, 'SubTransactionBase'],
  ['SubTransaction', E.SubTransaction, 'SubTransaction'],
  ['ScheduledTransactionSummaryBase', E.ScheduledTransactionSummaryBase, 'ScheduledTransactionSummaryBase'],
  ['ScheduledTransactionSummary', E.ScheduledTransactionSummary, 'ScheduledTransactionSummary'],
  ['ScheduledTransactionDetail', E.ScheduledTransactionDetail, 'ScheduledTransactionDetail'],
  ['ScheduledSubTransactionBase', E.ScheduledSubTransactionBase, 'ScheduledSubTransactionBase'],
  ['ScheduledSubTransaction', E.ScheduledSubTransaction, 'ScheduledSubTransaction'],
  ['MoneyMovementBase', E.MoneyMovementBase, 'MoneyMovementBase'],
  ['MoneyMovement', E.MoneyMovement, 'MoneyMovement'],
  ['MoneyMovementGroup', E.MoneyMovementGroup, 'MoneyMovementGroup'],
  ['BudgetSummary', E.BudgetSummary, 'PlanSummary'],
  ['BudgetDetail', E.BudgetDetail, 'PlanDetail'],
  ['BudgetSettings', E.BudgetSettings, 'PlanSettings'],
  ['CurrencyFormat', C.CurrencyFormat, 'CurrencyFormat'],
  ['DateFormat', C.DateFormat, 'DateFormat'],
];

/** Enum / map schemas of common.ts that the spec names as components. */
const COMMON_COMPONENTS: readonly (readonly [string, z.ZodType, string])[] = [
  ['AccountType', C.AccountType, 'AccountType'],
  ['SaveAccountType', C.SaveAccountType, 'SaveAccountType'],
  ['TransactionClearedStatus', C.TransactionClearedStatus, 'TransactionClearedStatus'],
  ['TransactionFlagColor', C.TransactionFlagColor, 'TransactionFlagColor'],
  ['ScheduledTransactionFrequency', C.ScheduledTransactionFrequency, 'ScheduledTransactionFrequency'],
  ['LoanAccountPeriodicValue', C.LoanAccountPeriodicValue, 'LoanAccountPeriodicValue'],
];

/** Every zod schema exported by bodies.ts → the spec component of the same name. */
const BODIES: readonly (readonly [string, z.ZodType, string])[] = Object.entries(B as Record<string, unknown>).flatMap(([name, value]) =>
  value instanceof z.ZodType ? [[name, value, name] as const] : [],
);

/**
 * Spec components with no counterpart above, and why. A component the spec adds later and
 * nobody classifies fails the coverage test.
 */
const NOT_MAPPED: Readonly<Record<string, string>> = {
  ErrorResponse: 'error bodies are built in errors.ts, not by a zod schema',
  ErrorDetail: 'error bodies are built in errors.ts, not by a zod schema',
  TransactionFlagName: 'a nullable string; compared where it is used (flag_name)',
  BulkResponse: 'deprecated, unlisted POST /transactions/bulk; not implemented',
  BulkTransactions: 'deprecated, unlisted POST /transactions/bulk; not implemented',
};
const isResponseEnvelope = (name: string): boolean => name.endsWith('Response') && name !== 'ErrorResponse';

const NAMES = nameIndex([...ENTITIES, ...COMMON_COMPONENTS, ...BODIES].map(([, schema, specName]) => [schema, specName] as const));

const ops: readonly Operation[] = OPERATIONS;
const operation = (id: string): Operation => {
  const op = ops.find((o) => o.id === id);
  if (!op) throw new Error(`no operation ${id}`);
  return op;
};

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

describe(`OpenAPI contract: ${SPEC}`, () => {
  describe('coverage of the mapping tables', () => {
    it('maps every zod schema exported by entities.ts', () => {
      const mapped = new Set<unknown>(ENTITIES.map(([, schema]) => schema));
      const unmapped = Object.entries(E)
        .filter(([, v]) => v instanceof z.ZodType && !mapped.has(v))
        .map(([name]) => `entities.ts ${name}: not mapped to a spec component`);
      expect(unmapped).toEqual([]);
    });

    it('maps to component schemas that exist, and classifies every component of the spec', () => {
      const s = spec();
      const mapped = new Set([...ENTITIES, ...COMMON_COMPONENTS, ...BODIES].map(([, , specName]) => specName));
      const lines = [
        ...[...mapped].filter((n) => !s.hasComponent(n)).map((n) => `${n}: mapped, but no such component schema in spec ${s.version}`),
        ...s
          .componentNames()
          .filter((n) => !mapped.has(n) && !isResponseEnvelope(n) && !(n in NOT_MAPPED))
          .map((n) => `${n}: component schema of spec ${s.version} with no counterpart in ours (map it or list it in NOT_MAPPED)`),
      ];
      expect(lines).toEqual([]);
    });
  });

  describe('entities (response schemas)', () => {
    it.each(ENTITIES.map(([name, schema, specName]) => ({ name, schema, specName })))('$name ↔ components.schemas.$specName', ({ name, schema, specName }) => {
      const diff = diffShapes(spec().component(specName), ourShape(schema, 'output', NAMES), name, { mode: 'response' });
      expect(diff).toEqual([]);
    });

    it.each(COMMON_COMPONENTS.map(([name, schema, specName]) => ({ name, schema, specName })))(
      'common.ts $name ↔ components.schemas.$specName',
      ({ name, schema, specName }) => {
        const s = spec().component(specName);
        const ours = ourShape(schema, 'output', NAMES);
        const diff = diffShapes(s, ours, name, { mode: 'response' });
        if (s.nullable !== ours.nullable)
          diff.push(`${name}: ${s.nullable ? 'nullable' : 'not nullable'} in spec, ${ours.nullable ? 'nullable' : 'not nullable'} in ours`);
        expect(diff).toEqual([]);
      },
    );
  });

  describe('request bodies', () => {
    it.each(BODIES.map(([name, schema, specName]) => ({ name, schema, specName })))(
      '$name ↔ components.schemas.$specName (names, types, enums, formats, maxLength)',
      ({ name, schema, specName }) => {
        const diff = diffShapes(spec().component(specName), ourShape(schema, 'input', NAMES), name, { mode: 'body' });
        expect(diff).toEqual([]);
      },
    );
  });

  describe('operations (/plans era)', () => {
    it('has the same 44 operations as the spec', () => {
      const all = spec().operations();
      const ours = new Set(ops.map((op) => operationKey(op.method, specPath(op, 'plans'))));
      const theirs = new Set(all.map((o) => operationKey(o.method, o.path)));
      const lines = [
        ...setDiff('operation', theirs, ours),
        ...(new Set(ops.map((o) => o.id)).size === ops.length ? [] : ['ours: operation ids are not unique']),
      ];
      expect(lines).toEqual([]);
      expect(ops).toHaveLength(44);
      expect(all).toHaveLength(44);
    });

    it.each(ops.map((op) => ({ id: op.id, op })))('$id', ({ op }) => {
      expect(operationDiff(spec(), op, NAMES)).toEqual([]);
    });
  });

  describe(`/budgets era: ${LEGACY_SPEC}`, () => {
    it('every operation of the /budgets-era spec is one of ours', () => {
      const legacyOps = legacySpec().operations();
      const ours = new Set(ops.map((op) => operationKey(op.method, specPath(op, 'budgets'))));
      const missing = legacyOps
        .map((o) => operationKey(o.method, o.path))
        .filter((key) => !ours.has(key))
        .map((key) => `${key}: in spec ${legacySpec().version}, not in ours`);
      expect(missing).toEqual([]);
      expect(legacyOps.length).toBeGreaterThan(0);
    });

    it.each(ops.map((op) => ({ id: op.id, op })))('$id: legacy operationId, member names, status, query and entities', ({ op }) => {
      expect(legacyDiff(legacySpec(), op, NAMES)).toEqual([]);
    });
  });
});

/**
 * The comparer itself must see drift: copies of real schemas with one deliberate change each
 * are diffed against the spec, and the expected line must come out. (src/ is not touched.)
 */
describe('OpenAPI contract: the comparer detects drift', () => {
  const account = (): Shape => spec().component('Account');
  const check = (specName: string, schema: z.ZodType, mode: 'response' | 'body' = 'response'): string[] =>
    diffShapes(spec().component(specName), ourShape(schema, mode === 'body' ? 'input' : 'output', NAMES), specName, { mode });

  it('reports a property that lost its nullability, became required, or went missing', () => {
    const drifted = E.Account.extend({ note: z.string().optional(), closed: z.boolean().optional() }).omit({ deleted: true });
    expect(diffShapes(account(), ourShape(drifted, 'output', NAMES), 'Account', { mode: 'response' })).toEqual([
      'Account.deleted: in spec, missing from ours',
      'Account.closed: required in spec, optional in ours',
      'Account.note: nullable in spec, not in ours',
    ]);
  });

  it('reports extra properties, type changes and lost formats', () => {
    const drifted = E.Account.extend({ balance: z.number(), id: z.string(), nickname: z.string().optional() });
    expect(check('Account', drifted)).toEqual([
      'Account.nickname: in ours, not in spec',
      'Account.id: format uuid in spec, none (plain string) in ours',
      'Account.balance: type is integer in spec, number in ours',
    ]);
  });

  it('tells a calendar-checked date from a bare YYYY-MM-DD pattern, and date from date-time', () => {
    const drifted = E.MoneyMovementGroup.extend({
      month: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
      group_created_at: C.IsoDate,
    });
    expect(check('MoneyMovementGroup', drifted)).toEqual([
      'MoneyMovementGroup.group_created_at: format date-time in spec, date in ours',
      'MoneyMovementGroup.month: format date in spec, date, calendar-unchecked in ours',
    ]);
  });

  it('reports enum drift, including the empty flag colour', () => {
    const drifted = E.TransactionSummaryBase.extend({
      flag_color: z.enum(['red', 'orange', 'yellow', 'green', 'blue', 'purple']).nullable().optional(),
    });
    expect(check('TransactionSummaryBase', drifted)).toEqual([
      'TransactionSummaryBase.flag_color: enum is ["red", "orange", "yellow", "green", "blue", "purple", ""] in spec, ["red", "orange", "yellow", "green", "blue", "purple"] in ours',
    ]);
  });

  it('recurses into nested arrays and notices the wrong item schema', () => {
    const wrongItem = E.BudgetDetail.extend({ accounts: z.array(E.Account).optional() });
    expect(check('PlanDetail', wrongItem)).toEqual(['PlanDetail.accounts[]: is AccountBase in spec, ours is the schema mapped to Account']);
    const driftedInline = E.TransactionDetail.extend({ subtransactions: z.array(E.SubTransaction.extend({ memo: z.string() })) });
    expect(check('TransactionDetail', driftedInline)).toEqual([
      'TransactionDetail.subtransactions[].memo: optional in spec, required in ours',
      'TransactionDetail.subtransactions[].memo: nullable in spec, not in ours',
    ]);
  });

  it('checks documented maxLength and property names of bodies, but not required-ness', () => {
    const drifted = B.SaveSubTransaction.extend({ memo: z.string().max(400).nullable().optional(), payee_id: C.Uuid, note: z.string().optional() });
    expect(check('SaveSubTransaction', drifted, 'body')).toEqual([
      'SaveSubTransaction.note: in ours, not in spec',
      'SaveSubTransaction.memo: maxLength 500 in spec, 400 in ours',
    ]);
  });

  it('reports operation drift: query parameters, status, data members, body members, item schemas', () => {
    const s = spec();
    const getAccounts = operation('getAccounts');
    expect(operationDiff(s, { ...getAccounts, query: ['since_date'], data: R.AccountData }, NAMES)).toEqual([
      'getAccounts (GET /plans/{plan_id}/accounts) query parameter: "last_knowledge_of_server" in spec, missing from ours',
      'getAccounts (GET /plans/{plan_id}/accounts) query parameter: "since_date" in ours, not in spec',
      'getAccounts.data.accounts: in spec, missing from ours',
      'getAccounts.data.server_knowledge: in spec, missing from ours',
      'getAccounts.data.account: in ours, not in spec',
      'getAccounts (GET /plans/{plan_id}/accounts): member accounts is not a member of our data schema',
    ]);
    const createAccount = operation('createAccount');
    expect(operationDiff(s, { ...createAccount, id: 'addAccount', status: 200, body: B.PostPayeeWrapper, bodyMembers: ['payee'] }, NAMES)).toEqual([
      'addAccount (POST /plans/{plan_id}/accounts): operationId is createAccount in spec, addAccount in ours',
      'addAccount (POST /plans/{plan_id}/accounts): success status is 201 in spec, 200 in ours',
      'addAccount (POST /plans/{plan_id}/accounts) bodyMembers: "account" in spec, missing from ours',
      'addAccount (POST /plans/{plan_id}/accounts) bodyMembers: "payee" in ours, not in spec',
      'addAccount.body.account: in spec, missing from ours',
      'addAccount.body.payee: in ours, not in spec',
    ]);
    const getTransactions = operation('getTransactions');
    expect(operationDiff(s, { ...getTransactions, data: R.HybridTransactionsData }, NAMES)).toEqual([
      'getTransactions.data.transactions[]: is TransactionDetail in spec, ours is the schema mapped to HybridTransaction',
      'getTransactions.data.server_knowledge: required in spec, optional in ours',
    ]);
    expect(operationDiff(s, { ...getTransactions, path: '/transaction' }, NAMES)).toEqual([
      `getTransactions (GET /plans/{plan_id}/transaction): no such operation in spec ${s.version}`,
    ]);
  });
});

describe('OpenAPI contract: the /budgets-era comparer detects drift', () => {
  it('reports a wrong legacy operationId, a missing member rename and a stray legacyId', () => {
    const s = legacySpec();
    const getPlans = operation('getPlans');
    expect(legacyDiff(s, { ...getPlans, legacyId: undefined, legacyMembers: { plans: 'budgets' } })).toEqual([
      `getPlans (GET /budgets): operationId is getBudgets in spec ${s.version}, getPlans in ours (legacyId ?? id)`,
      'getPlans (GET /budgets) data member: "default_budget" in spec, missing from ours',
      'getPlans (GET /budgets) data member: "default_plan" in ours, not in spec',
    ]);
    expect(legacyDiff(s, { ...operation('createPayee'), legacyId: 'createBudgetPayee' })).toEqual([
      `createPayee (POST /budgets/{budget_id}/payees): has legacyId createBudgetPayee, but is not an operation of spec ${s.version}`,
    ]);
  });

  it("reports an era's status, query parameters or listed entity that the table does not declare", () => {
    const s = legacySpec();
    const { legacy: _patch, ...patch } = operation('updateTransactions');
    expect(legacyDiff(s, patch, NAMES)).toEqual([
      `updateTransactions (PATCH /budgets/{budget_id}/transactions): success status is 209 in spec ${s.version}, 200 in ours (legacy.status ?? status)`,
    ]);
    const { legacy: _month, ...month } = operation('getTransactionsByMonth');
    expect(legacyDiff(s, month, NAMES)).toEqual([
      'getTransactionsByMonth (GET /budgets/{budget_id}/months/{month}/transactions) query parameter: "until_date" in ours, not in spec',
      `getTransactionsByMonth (GET /budgets/{budget_id}/months/{month}/transactions) data.transactions: is HybridTransaction in spec ${s.version}, TransactionDetail in ours (legacy.data ?? data)`,
    ]);
  });
});
