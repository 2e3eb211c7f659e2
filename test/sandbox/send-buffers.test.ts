/**
 * Large answers are copied into buffers the sandbox lends and takes back once the answer has
 * been written (send-buffers.ts). A buffer given out again too early would put one answer's bytes
 * into another's. A reader that stops reading holds an answer in the service (behind a pipelined
 * export larger than the socket's buffers) while other large answers go out; it must still get
 * exactly its own bytes (the test fails when a buffer is taken back as soon as it is handed to
 * node:http, before it is written).
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinsBetter, SendBuffers } from '../../src/sandbox/send-buffers.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';

const pieces = (n: number, size: number, fill: (i: number) => number) => Array.from({ length: n }, (_, i) => Buffer.alloc(size, fill(i)));

describe('SendBuffers', () => {
  it('joins pieces in order, lends a buffer until it is released, then lends it again', () => {
    const buffers = new SendBuffers();
    const a = pieces(100, 1_000, (i) => i);
    const first = buffers.join(a, 100_000);
    expect(first.bytes.equals(Buffer.concat(a))).toBe(true);
    // Not yet released: a second answer gets other memory.
    const second = buffers.join(
      pieces(100, 1_000, () => 7),
      100_000,
    );
    expect(second.bytes.buffer).not.toBe(first.bytes.buffer);
    expect(first.bytes.equals(Buffer.concat(a))).toBe(true);
    first.release();
    first.release(); // twice is once
    expect(buffers.kept).toBe(1);
    const third = buffers.join(
      pieces(90, 1_000, () => 9),
      90_000,
    );
    expect(third.bytes.buffer).toBe(first.bytes.buffer);
    expect(third.bytes.length).toBe(90_000);
    expect(third.bytes.every((x) => x === 9)).toBe(true);
    expect(buffers.kept).toBe(0);
  });

  it('lends buffers by size class, and keeps a bounded amount free', () => {
    const buffers = new SendBuffers();
    const small = buffers.join(
      pieces(3, 10, (i) => i + 1),
      30,
    );
    expect([...small.bytes]).toEqual([...Array(10).fill(1), ...Array(10).fill(2), ...Array(10).fill(3)]);
    small.release();
    // A small free buffer is not lent for a large answer.
    const large = buffers.join(
      pieces(2, 50_000, () => 5),
      100_000,
    );
    expect(large.bytes.buffer).not.toBe(small.bytes.buffer);
    expect(buffers.kept).toBe(1);
    const lent = Array.from({ length: 40 }, () =>
      buffers.join(
        pieces(1, 1_048_576, () => 1),
        1_048_576,
      ),
    );
    for (const x of lent) x.release();
    // 32 MB of free buffers at most: the 4 kB one and 31 of 1 MB.
    expect(buffers.kept).toBe(32);
  });
});

describe('joinsBetter', () => {
  it('copies many small pieces, and writes large pieces and answers over 4 MB as they are', () => {
    expect(joinsBetter(970, 814_119)).toBe(true); // rows encoded one by one
    expect(joinsBetter(63, 814_119)).toBe(false); // a month of days
    expect(joinsBetter(6_000, 5 * 1024 * 1024)).toBe(false); // too large to copy
  });
});

describe('lent buffers over real HTTP', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await testSandbox({ transactions: 12_000 });
  });
  afterAll(() => sb.close());

  /**
   * GETs pipelined on one raw socket that stops reading once the first answer has begun to
   * arrive, until `resume`: the answers after the first wait in the service meanwhile (an answer
   * larger than the socket's buffers holds up the ones behind it). `bodies`: each answer's body.
   */
  function slowGets(paths: string[]): { started: Promise<void>; resume(): void; bodies: Promise<Buffer[]> } {
    const url = new URL(sb.baseUrl);
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    let started!: () => void;
    const startedP = new Promise<void>((r) => (started = r));
    socket.on('connect', () => {
      for (const [i, path] of paths.entries()) {
        const close = i === paths.length - 1 ? 'Connection: close\r\n' : '';
        socket.write(`GET ${url.pathname}${path} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${sb.accessToken}\r\n${close}\r\n`);
      }
    });
    socket.on('data', (c) => {
      chunks.push(c);
      if (chunks.length === 1) {
        socket.pause();
        started();
      }
    });
    const bodies = new Promise<Buffer[]>((resolve, reject) => {
      socket.on('error', reject);
      socket.on('end', () => {
        let all = Buffer.concat(chunks);
        const out: Buffer[] = [];
        while (all.length) {
          const head = all.indexOf('\r\n\r\n');
          const length = Number(/content-length: (\d+)/i.exec(all.subarray(0, head).toString())?.[1]);
          out.push(all.subarray(head + 4, head + 4 + length));
          all = all.subarray(head + 4 + length);
        }
        resolve(out);
      });
    });
    return { started: startedP, resume: () => socket.resume(), bodies };
  }

  const monthsAgo = (n: number) => new Date(Date.now() - n * 30.5 * 86_400_000).toISOString().slice(0, 10);
  const get = async (path: string) =>
    Buffer.from(await (await fetch(`${sb.baseUrl}${path}`, { headers: { authorization: `Bearer ${sb.accessToken}` } })).arrayBuffer());

  it('an answer held up behind a slow reader is exactly its own, while other large answers go out', async () => {
    const budget = (await sb.get('/budgets')).body.data.budgets[0].id;
    const accounts = (await sb.get(`/budgets/${budget}/accounts`)).body.data.accounts;
    // A delta list: details written one by one, so many small pieces, copied into a lent buffer.
    const all = `/budgets/${budget}/transactions?since_date=${monthsAgo(8)}&last_knowledge_of_server=1`;
    const expected = await get(all);
    // Large, and small enough to be copied into a lent buffer (4 MB at most).
    expect(expected.length).toBeGreaterThan(2 * 1024 * 1024);
    expect(expected.length).toBeLessThan(4 * 1024 * 1024);
    // Other answers that take lent buffers too (over 64 kB).
    const others: string[] = [];
    for (const a of accounts) {
      const path = `/budgets/${budget}/accounts/${a.id}/transactions?since_date=${monthsAgo(8)}&last_knowledge_of_server=1`;
      if ((await get(path)).length > 64 * 1024) others.push(path);
    }
    expect(others.length).toBeGreaterThanOrEqual(2);
    // The export (over 4 MB: sent as it is, and more than the socket's buffers take) holds the
    // list behind it in the service, in its lent buffer, until the reader reads again.
    const exported = await get(`/budgets/${budget}`);
    expect(exported.length).toBeGreaterThan(6_000_000);
    const slow = slowGets([`/budgets/${budget}`, all]);
    await slow.started;
    // Answers of other sizes meanwhile, and another list of the held one's size class (2-4 MB)
    // with other bytes: a buffer taken back too early is lent to it and overwritten.
    const sameClass = `/budgets/${budget}/transactions?since_date=${monthsAgo(7)}&last_knowledge_of_server=1`;
    const sameClassBytes = await get(sameClass);
    expect(sameClassBytes.length).toBeGreaterThan(2 * 1024 * 1024);
    expect(expected.length).toBeGreaterThan(sameClassBytes.length);
    const meanwhile = [sameClass, ...others];
    await Promise.all(Array.from({ length: 20 }, (_, i) => get(meanwhile[i % meanwhile.length]!)));
    slow.resume();
    const [first, second] = await slow.bodies;
    expect(first!.equals(exported)).toBe(true);
    expect(second!.equals(expected)).toBe(true);
  });
});
