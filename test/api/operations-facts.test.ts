/**
 * The facts on the operation rows (src/api/operations/types.ts) agree with each other and with
 * the rows' schemas, and no code outside the table decides by an operation's id.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import type * as z from 'zod';
import { OPERATIONS, type Operation, type OperationId } from '../../src/api/operations/index.js';
import { createKindOf } from '../../src/sync/create-match.js';
import { REPLICA_OPERATIONS } from '../../src/sync/replica-reads.js';
import { REPO_ROOT } from '../helpers/cli.js';

const ops: readonly Operation[] = OPERATIONS;
const reads = ops.filter((op) => op.access === 'read');
const writes = ops.filter((op) => op.access === 'write');

/** What a schema is under optional and nullable. */
function typeOf(s: z.ZodType | undefined): { type?: string; element?: z.ZodType; shape?: Record<string, z.ZodType> } {
  let d = (s as unknown as { def?: { type: string; innerType?: z.ZodType; element?: z.ZodType; shape?: Record<string, z.ZodType> } } | undefined)?.def;
  while (d && (d.type === 'optional' || d.type === 'nullable')) d = (d.innerType as unknown as { def: typeof d }).def;
  return { type: d?.type, element: d?.element, shape: d?.shape };
}

const ids = (list: readonly Operation[]) => list.map((op) => op.id).sort();

describe('operation facts', () => {
  it('every write says what it makes and no read does; every read says where it is answered and no write does', () => {
    expect(writes.filter((op) => !op.write).map((op) => op.id)).toEqual([]);
    expect(reads.filter((op) => op.write !== undefined).map((op) => op.id)).toEqual([]);
    expect(reads.filter((op) => !op.read).map((op) => op.id)).toEqual([]);
    expect(writes.filter((op) => op.read !== undefined).map((op) => op.id)).toEqual([]);
    expect(writes.every((op) => op.method !== 'GET') && reads.every((op) => op.method === 'GET')).toBe(true);
  });

  it('every read the replica answers is a read of one budget, and they are the ones the replica serves', () => {
    const replica = reads.filter((op) => op.read?.replica);
    expect(replica.filter((op) => op.scope !== 'budget').map((op) => op.id)).toEqual([]);
    expect(ids(replica)).toEqual([...REPLICA_OPERATIONS].sort());
    expect(replica).toHaveLength(22);
    // Outside the budget export: the user, the budget list, money movements.
    expect(ids(reads.filter((op) => !op.read?.replica))).toEqual(
      ['getMoneyMovementGroups', 'getMoneyMovementGroupsByMonth', 'getMoneyMovements', 'getMoneyMovementsByMonth', 'getPlans', 'getUser'].sort(),
    );
  });

  it("a read's cache class follows its scope: the user, the budget list, one budget", () => {
    const expected = { root: 'user', list: 'budgets', budget: 'budget' } as const;
    expect(reads.filter((op) => op.read?.cache !== expected[op.scope]).map((op) => op.id)).toEqual([]);
  });

  it('how a write is made exactly once agrees with what it makes', () => {
    const allowed: Record<string, readonly string[]> = {
      create: ['identity', 'identity-list'],
      import: ['resend'],
      update: ['compare', 'resend'],
      delete: ['gone'],
    };
    expect(writes.filter((op) => !allowed[op.write!.makes]!.includes(op.write!.exactlyOnce)).map((op) => op.id)).toEqual([]);
    // Compared after a lost answer: exactly the updates of transactions.
    expect(ids(writes.filter((op) => op.write!.exactlyOnce === 'compare'))).toEqual(
      ids(writes.filter((op) => op.write!.makes === 'update' && op.output.kind === 'transaction')),
    );
    // Several creates in one request: the body is offered as a list.
    expect(ids(writes.filter((op) => op.write!.exactlyOnce === 'identity-list'))).toEqual(
      ids(writes.filter((op) => op.write!.makes === 'create' && op.bodyArgs?.kind === 'list')),
    );
    // A delete is found gone by the one id of its path, and answered as its member.
    for (const op of writes.filter((o) => o.write!.exactlyOnce === 'gone')) {
      expect(op.params, op.id).toHaveLength(1);
      expect(op.params[0], op.id).toBe(`${op.member}_id`);
    }
  });

  it('every create recognised by identity has its kind in the create records, and no other write has one', () => {
    for (const op of writes) {
      const identity = op.write!.exactlyOnce === 'identity' || op.write!.exactlyOnce === 'identity-list';
      if (identity) expect(() => createKindOf(op.id as OperationId), op.id).not.toThrow();
      else expect(() => createKindOf(op.id as OperationId), op.id).toThrow(/not a create recognised by identity/);
    }
  });

  it('batches, duplicate guards and follow-ups sit on the writes they are for', () => {
    for (const op of writes) {
      const w = op.write!;
      if (w.batch) expect(w.makes === 'update' && op.bodyArgs?.kind === 'list', op.id).toBe(true);
      if (w.duplicateGuard) expect(w.makes === 'create' && op.output.kind === 'transaction', op.id).toBe(true);
      // An import answers with the transactions it made, read back once merged.
      expect(w.followUp === 'imported-transactions', op.id).toBe(w.makes === 'import');
      expect(op.output.member === 'transactions', op.id).toBe(w.makes === 'import');
      if (w.followUp === 'ready-to-assign') expect(w.makes === 'update' && op.params.includes('month'), op.id).toBe(true);
    }
    expect(reads.filter((op) => op.output.member !== undefined).map((op) => op.id)).toEqual([]);
  });

  it('the output facts agree with the `data` schema: a list where the member is an array, a nested list where it holds one', () => {
    for (const op of ops) {
      const out = op.output;
      const member = typeOf(op.data.shape[op.member] as z.ZodType);
      expect(out.list === true, `${op.id} list`).toBe(member.type === 'array');
      if (out.nestedList) {
        expect(member.type, op.id).toBe('object');
        expect(typeOf(member.shape![out.nestedList]).type, op.id).toBe('array');
      }
      const transactions = out.kind === 'transaction' || out.kind === 'hybrid_transaction';
      // Totals for every list of transactions the answer lists as they are (an import's are read back, ids first).
      expect(out.totals === 'transactions', `${op.id} totals`).toBe(transactions && out.list === true && out.member === undefined);
      if (out.categories === 'month') expect(out.nestedList, op.id).toBe('categories');
      if (out.categories === 'groups') expect(out.kind === 'category_group' && out.list, op.id).toBe(true);
      if (out.plain) expect(op.access === 'read' && !out.list && !out.nestedList, op.id).toBe(true);
    }
  });

  it('the request facts agree with the parameters and the body', () => {
    for (const op of ops) {
      expect(op.delta, op.id).toBe(op.query.includes('last_knowledge_of_server'));
      if (op.sinceDateDefault === false) expect(op.query.includes('since_date') && op.params.includes('month'), op.id).toBe(true);
      const how = op.bodyArgs;
      if (how) expect(op.body && op.bodyMembers?.length, op.id).toBeTruthy();
      if (how?.kind === 'list') {
        expect(op.bodyMembers, op.id).toContain(how.member);
        expect(typeOf(typeOf(op.body).shape![how.member]).type, op.id).toBe('array');
      }
      if (how?.kind === 'partial') expect(op.method, op.id).toBe('PUT');
    }
  });
});

/** Every .ts file below `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('no decisions by operation id', () => {
  it('no code outside the operations table compares an operation id with a name (the sandbox has its own handlers)', () => {
    const src = join(REPO_ROOT, 'src');
    const found: string[] = [];
    for (const file of sources(src)) {
      const at = relative(src, file).split('\\').join('/');
      if (at.startsWith('sandbox/') || at.startsWith('api/operations/')) continue;
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (/(===|!==)\s*'(get|create|update|delete|import)[A-Z]\w*'/.test(line) || /'(get|create|update|delete|import)[A-Z]\w*'\s*(===|!==)/.test(line))
            found.push(`src/${at}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found).toEqual([]);
  });
});
