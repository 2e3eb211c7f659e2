/**
 * The streaming JSON parser gives exactly what JSON.parse gives, however the text is cut into
 * pieces, and refuses exactly what JSON.parse refuses.
 */
import { describe, expect, it } from 'vitest';
import { JsonStreamParser } from '../../src/api/json-stream.js';

function parseInPieces(text: string, cuts: number[]): unknown {
  const p = new JsonStreamParser();
  let at = 0;
  for (const cut of [...cuts, text.length]) {
    p.write(text.slice(at, cut));
    at = cut;
  }
  return p.end();
}

const DOCS = [
  '{}',
  '[]',
  '0',
  '-12.5e3',
  'true',
  'null',
  '"a \\"quoted\\" \\\\ string \\u00e9 \\n"',
  '  {"a" : 1 , "b":[ 1, 2 ,{"c":"}]"},[3,[4]],"x\\\\"] , "d":{"e":null,"f":[]}} ',
  '{"data":{"budget":{"id":"b","transactions":[{"id":"t1","memo":"a \\\\\\"b","amount":-1000},{"id":"t2","memo":null}],"months":[]},"server_knowledge":42}}',
  '[[1,2],[],{},{"a":[{"b":{}}]},"s",5,false]',
  '{"__proto__":{"polluted":true},"x":{"__proto__":1}}',
  '{"emoji":"😀 €","k😀":"v"}',
  '[1e400, -0, 0.1]',
  // Bulk parsing cuts at the last "},{": inside a string, in a nested array, between mixed elements.
  '[{"a":"x},{y"},{"b":"},{"}]',
  '[{"c":[{"x":1},{"y":2}]},{"d":[{"e":[{},{}]},{}]},{"f":3}]',
  '[{"a":1},5,"},{",{"b":2},[{"c":1},{"d":2}],{"e":3}]',
  '{"x":[{"a":1},{"b":2}],"y":[{"c":"},{"},{"d":4}]}',
];

const BAD = [
  '',
  ' ',
  '{',
  '[',
  '{"a"}',
  '{"a":}',
  '{"a":1,}',
  '[1,]',
  '[1 2]',
  '{"a":1 "b":2}',
  'tru',
  'nul',
  '01',
  '{} {}',
  '[{"a":1}',
  '{"a":[{"b":1}x]}',
  '"unterminated',
  '{a:1}',
  '[{]}',
  "{'a':1}",
  '[-]',
];

describe('JsonStreamParser', () => {
  it('equals JSON.parse for whole texts and for every two-piece and every one-character split', () => {
    for (const doc of DOCS) {
      const expected = JSON.parse(doc);
      expect(parseInPieces(doc, []), doc).toEqual(expected);
      for (let i = 0; i <= doc.length; i++) expect(parseInPieces(doc, [i]), `${doc} cut at ${i}`).toEqual(expected);
      expect(parseInPieces(doc, [...doc].map((_, i) => i + 1).slice(0, -1)), `${doc} char by char`).toEqual(expected);
    }
  });

  it('keeps "__proto__" as an own property, as JSON.parse does', () => {
    const v = parseInPieces('{"__proto__":{"polluted":true}}', [5]) as Record<string, unknown>;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(Object.keys(v)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses what JSON.parse refuses, whole and split', () => {
    for (const doc of BAD) {
      expect(() => JSON.parse(doc), doc).toThrow(SyntaxError);
      expect(() => parseInPieces(doc, []), doc).toThrow(SyntaxError);
      for (let i = 0; i <= doc.length; i++) expect(() => parseInPieces(doc, [i]), `${doc} cut at ${i}`).toThrow(SyntaxError);
    }
  });

  it("gives the same value when the rows' repeated fields are shared as they are parsed (ParserOptions.share)", () => {
    const rows = Array.from({ length: 5_000 }, (_, i) => ({
      id: `t${i}`,
      account_id: `a${i % 3}`,
      payee_id: i % 5 ? `p${i % 7}` : null,
      date: '2026-11-26',
      amount: i % 4 ? -i : { nested: `a${i % 3}` },
      __proto__: i % 2 ? 'own' : undefined,
    }));
    const share = new Set(['account_id', 'payee_id', 'date', 'amount', '__proto__', 'missing']);
    for (const doc of [...DOCS, JSON.stringify({ data: { transactions: rows, more: [[{ account_id: 'x' }], 'a0', 5] } })]) {
      const p = new JsonStreamParser({ share });
      for (let i = 0; i < doc.length; i += 4096) p.write(doc.slice(i, i + 4096));
      expect(p.end(), doc.slice(0, 80)).toEqual(JSON.parse(doc));
    }
  });

  it('parses a large export in 64 kB pieces to the same value', () => {
    const doc = JSON.stringify({
      data: {
        budget: {
          id: 'b',
          transactions: Array.from({ length: 20_000 }, (_, i) => ({
            id: `t${i}`,
            amount: -i * 10,
            memo: i % 7 ? null : `memo "${i}" \\ }] },{"id":"t${i}"}`,
            deleted: false,
          })),
          months: Array.from({ length: 24 }, (_, m) => ({
            month: `2025-${m}`,
            categories: Array.from({ length: 50 }, (_, c) => ({ id: `c${c}`, balance: c })),
          })),
        },
        server_knowledge: 7,
      },
    });
    const cuts: number[] = [];
    for (let i = 65_536; i < doc.length; i += 65_536) cuts.push(i);
    expect(parseInPieces(doc, cuts)).toEqual(JSON.parse(doc));
  });
});
