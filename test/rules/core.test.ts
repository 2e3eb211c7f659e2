/**
 * The rules module on its own: the matcher (order, first match per field, every kind of
 * condition), the store on real files (ids, edits, order, the 500 cap, export and import, two
 * identities apart) and the pattern safety check.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compileRules, currentOf, differences, outcomeFor, subjectOf } from '../../src/rules/match.js';
import { checkPattern } from '../../src/rules/safety.js';
import { RULES_MAGIC, RuleStore } from '../../src/rules/store.js';
import { ephemeralKey, Sealer } from '../../src/sync/seal.js';
import { MAX_RULES, type Rule } from '../../src/rules/types.js';
import { ArgumentError } from '../../src/shared/argument-error.js';
import { FileStateStore } from '../../src/storage/file-store.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function fileStore(): { store: FileStateStore; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-rules-'));
  dirs.push(dir);
  return { store: new FileStateStore(dir), dir };
}

const rule = (id: string, match: Rule['match'], set: Rule['set']): Rule => ({ id, match, set, created_at: '2026-01-01T00:00:00.000Z', applied_count: 0 });

describe('matcher', () => {
  const rules = [
    rule('r1', { text: { kind: 'regex', value: '^AMZN MKTP US\\*[A-Z0-9]+$' } }, { payee_name: 'Amazon' }),
    rule('r2', { text: { kind: 'prefix', value: 'shell oil' } }, { payee_name: 'Shell', category_id: 'fuel' }),
    rule('r3', { payee_id: 'p-amazon', direction: 'outflow' }, { category_id: 'shopping', flag_color: 'blue' }),
    rule('r4', { account_id: 'acc-card', amount: { min: -50_000, max: -1 } }, { category_id: 'small', memo: 'small card spend' }),
    rule('r5', { text: { kind: 'exact', value: 'Café  Nero' } }, { approved: true }),
    rule('r6', { text: { kind: 'contains', value: 'netflix' }, direction: 'inflow' }, { memo: 'refund' }),
  ];
  const compiled = compileRules(rules);
  const base = { account_id: 'acc-main', amount: -10_000 };

  it('matches each kind of condition and takes the first rule per field', () => {
    expect(outcomeFor(compiled, { ...base, text: 'AMZN Mktp US*2K4 5L' })).toEqual({}); // a space is not in [A-Z0-9]
    expect(outcomeFor(compiled, { ...base, text: 'amzn mktp us*2K45L', payee_id: 'p-amazon' })).toEqual({
      payee_name: { value: 'Amazon', rule_id: 'r1' },
      category_id: { value: 'shopping', rule_id: 'r3' },
      flag_color: { value: 'blue', rule_id: 'r3' },
    });
    // r2 sets the category before r4 can; r4 still gives its memo.
    expect(outcomeFor(compiled, { account_id: 'acc-card', amount: -4_500, text: 'SHELL OIL 5734' })).toEqual({
      payee_name: { value: 'Shell', rule_id: 'r2' },
      category_id: { value: 'fuel', rule_id: 'r2' },
      memo: { value: 'small card spend', rule_id: 'r4' },
    });
    // Amount bounds are inclusive; outside them nothing.
    expect(outcomeFor(compiled, { account_id: 'acc-card', amount: -50_000 }).memo?.rule_id).toBe('r4');
    expect(outcomeFor(compiled, { account_id: 'acc-card', amount: -50_001 })).toEqual({});
    // Exact folds case, accents and spacing; with no bank text the payee name is the text.
    expect(outcomeFor(compiled, { ...base, payee_name: 'cafe nero' }).approved).toEqual({ value: true, rule_id: 'r5' });
    expect(outcomeFor(compiled, { ...base, text: 'Cafe Nero Ltd' }).approved).toBeUndefined();
    // Direction: an inflow only.
    expect(outcomeFor(compiled, { ...base, text: 'NETFLIX.COM' }).memo).toBeUndefined();
    expect(outcomeFor(compiled, { ...base, amount: 15_990, text: 'NETFLIX.COM' }).memo?.rule_id).toBe('r6');
  });

  it('differences keep only what would change; a transaction becomes a subject by its import text', () => {
    const tx = {
      account_id: 'acc-main',
      amount: -10_000,
      payee_id: 'p1',
      payee_name: 'Amazon',
      import_payee_name_original: 'AMZN MKTP US*ZZ9',
      import_payee_name: 'Amazon',
      category_id: 'shopping',
      approved: false,
    };
    const outcome = outcomeFor(compiled, subjectOf(tx));
    expect(outcome.payee_name?.rule_id).toBe('r1');
    expect(differences(outcome, currentOf(tx))).toEqual({});
    expect(differences(outcome, { ...currentOf(tx), payee_name: 'AMZN' })).toEqual({ payee_name: { value: 'Amazon', rule_id: 'r1' } });
  });

  it('a stored pattern that no longer compiles never matches and is named', () => {
    const c = compileRules([rule('r9', { text: { kind: 'regex', value: '(' } }, { memo: 'x' }), rules[1]!]);
    expect(c.broken).toEqual(['r9']);
    expect(outcomeFor(c, { ...base, text: 'Shell Oil' }).payee_name?.rule_id).toBe('r2');
  });
});

describe('pattern safety', () => {
  it('refuses a runaway pattern, naming the part that runs away', () => {
    expect(() => checkPattern('^(a+)+$')).toThrow(ArgumentError);
    expect(() => checkPattern('^(a+)+$')).toThrow(/"\(a\+\)\+" repeats a repetition/);
    expect(() => checkPattern('(\\w+\\s?)*$')).toThrow(/could run away/);
    expect(() => checkPattern('(x)\\1')).toThrow(/backreference/);
    expect(() => checkPattern('[a-')).toThrow(/not a valid regular expression/);
    expect(() => checkPattern('a'.repeat(201))).toThrow(/at most 200/);
  });

  it('accepts the patterns people write for bank texts', () => {
    for (const p of ['^AMZN MKTP US\\*[A-Z0-9]+$', 'SHELL OIL \\d{4,}', '^(uber|lyft)\\b', 'tesco( stores)? \\d+']) expect(() => checkPattern(p)).not.toThrow();
  });
});

describe('rule store', () => {
  it('creates, edits in place, orders, deletes and counts; ids are never reused', async () => {
    const { store } = fileStore();
    const rules = new RuleStore(store, 'user-a', () => Date.parse('2026-03-01T10:00:00Z'));
    const a = await rules.put('b1', { match: { text: { kind: 'contains', value: 'shell' } }, set: { category_id: 'fuel' } });
    const b = await rules.put('b1', { match: { payee_id: 'p2' }, set: { flag_color: null } });
    expect([a.id, b.id, a.created_at, a.applied_count]).toEqual(['r1', 'r2', '2026-03-01T10:00:00.000Z', 0]);
    await rules.countApplied('b1', { r1: 3, r9: 4 });
    const edited = await rules.put('b1', { id: 'r1', match: { text: { kind: 'prefix', value: 'shell' } }, set: { category_id: 'fuel2' } });
    expect(edited).toMatchObject({ id: 'r1', applied_count: 3, set: { category_id: 'fuel2' } });
    const c = await rules.put('b1', { match: { direction: 'inflow' }, set: { approved: true } }, { position: 1 });
    expect((await rules.list('b1')).map((r) => r.id)).toEqual([c.id, 'r1', 'r2']);
    expect(await rules.remove('b1', 'r2')).toBe(true);
    expect(await rules.remove('b1', 'r2')).toBe(false);
    expect((await rules.put('b1', { match: { payee_id: 'p3' }, set: { memo: 'm' } })).id).toBe('r4');
    await expect(rules.put('b1', { id: 'r2', match: { payee_id: 'p3' }, set: { memo: 'm' } })).rejects.toThrow(/no rule r2/);
    expect(await rules.list('b2')).toEqual([]);
  });

  it('refuses a rule that matches nothing, sets nothing, or holds a runaway pattern, and keeps nothing of it', async () => {
    const { store } = fileStore();
    const rules = new RuleStore(store, 'user-a');
    await expect(rules.put('b1', { match: {}, set: { memo: 'x' } })).rejects.toThrow(/must match something/);
    await expect(rules.put('b1', { match: { payee_id: 'p' }, set: {} })).rejects.toThrow(/must set something/);
    await expect(rules.put('b1', { match: { amount: { min: 5, max: 1 } }, set: { memo: 'x' } })).rejects.toThrow(/min is above max/);
    await expect(rules.put('b1', { match: { text: { kind: 'regex', value: '(a*)*b' } }, set: { memo: 'x' } })).rejects.toThrow(/could run away/);
    expect(await rules.list('b1')).toEqual([]);
  });

  it(`keeps at most ${MAX_RULES} rules per budget`, async () => {
    const { store } = fileStore();
    const rules = new RuleStore(store, 'user-a');
    const many = Array.from({ length: MAX_RULES }, (_, i) => ({ match: { payee_id: `p${i}` }, set: { memo: `m${i}` } }));
    await rules.importJson('b1', JSON.stringify({ rules: many }), 'replace');
    await expect(rules.put('b1', { match: { payee_id: 'one-more' }, set: { memo: 'x' } })).rejects.toThrow(/at most|the most it may have \(500\)/);
    await expect(rules.importJson('b1', [{ match: { payee_id: 'x' }, set: { memo: 'x' } }], 'merge')).rejects.toThrow(/at most 500/);
    expect(await rules.list('b1')).toHaveLength(MAX_RULES);
  });

  it('exports JSON and imports it elsewhere (replace keeps ids; merge edits by id and appends); one bad rule imports none', async () => {
    const { store } = fileStore();
    const rules = new RuleStore(store, 'user-a');
    await rules.put('b1', { match: { text: { kind: 'regex', value: '^SHELL' } }, set: { payee_name: 'Shell' } });
    await rules.put('b1', { match: { payee_id: 'p2' }, set: { category_id: 'c2' } });
    await rules.countApplied('b1', { r2: 2 });
    const json = await rules.exportJson('b1');
    expect(JSON.parse(json).rules).toHaveLength(2);
    expect(await rules.importJson('b2', json, 'replace')).toEqual(await rules.list('b1'));
    const merged = await rules.importJson(
      'b2',
      [
        { id: 'r2', match: { payee_id: 'p2' }, set: { category_id: 'c3' } },
        { match: { direction: 'inflow' }, set: { approved: true } },
      ],
      'merge',
    );
    expect(merged.map((r) => [r.id, r.applied_count])).toEqual([
      ['r1', 0],
      ['r2', 2],
      ['r3', 0],
    ]);
    await expect(
      rules.importJson(
        'b2',
        [
          { match: { payee_id: 'p' }, set: { memo: 'ok' } },
          { match: { text: { kind: 'regex', value: '(x+)+y' } }, set: { memo: 'bad' } },
        ],
        'replace',
      ),
    ).rejects.toThrow(/rule 2: .*could run away/);
    await expect(rules.importJson('b2', '{nope', 'merge')).rejects.toThrow(/not JSON/);
    expect(await rules.list('b2')).toEqual(merged);
  });

  it('keeps each identity and budget in its own value; an unreadable value is reported, never overwritten', async () => {
    const { store, dir } = fileStore();
    const a = new RuleStore(store, 'user-a');
    const b = new RuleStore(store, async () => 'user-b');
    await a.put('b1', { match: { payee_id: 'p' }, set: { memo: 'a' } });
    expect(await b.list('b1')).toEqual([]);
    await b.put('b1', { match: { payee_id: 'p' }, set: { memo: 'b' } });
    expect((await a.list('b1')).map((r) => r.set.memo)).toEqual(['a']);
    const file = join(dir, 'rules', 'user-a', 'b1.json');
    expect(JSON.parse(readFileSync(file, 'utf8')).rules[0].set.memo).toBe('a');
    writeFileSync(file, 'garbage');
    await expect(a.list('b1')).rejects.toThrow(/cannot be read/);
    await expect(a.put('b1', { match: { payee_id: 'q' }, set: { memo: 'x' } })).rejects.toThrow(/cannot be read/);
    expect(readFileSync(file, 'utf8')).toBe('garbage');
  });

  it("sealed with the budget copies' key where the stack gives one: no rule text in the file, and another key cannot open it", async () => {
    const { store, dir } = fileStore();
    const sealed = new RuleStore(store, 'user-a', Date.now, new Sealer(ephemeralKey(), RULES_MAGIC));
    await sealed.put('b1', { match: { text: { kind: 'contains', value: 'secret shop' } }, set: { memo: 'private memo' } });
    await sealed.countApplied('b1', { r1: 2 });
    const bytes = readFileSync(join(dir, 'rules', 'user-a', 'b1.json'));
    expect(bytes.includes('secret shop')).toBe(false);
    expect(bytes.includes('private memo')).toBe(false);
    expect((await sealed.list('b1'))[0]).toMatchObject({ id: 'r1', applied_count: 2, set: { memo: 'private memo' } });
    expect(JSON.parse(await sealed.exportJson('b1')).rules[0].match.text.value).toBe('secret shop');
    const otherKey = new RuleStore(store, 'user-a', Date.now, new Sealer(ephemeralKey(), RULES_MAGIC));
    await expect(otherKey.list('b1')).rejects.toThrow(/cannot be read/);
  });
});
