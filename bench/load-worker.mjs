/**
 * A client for the benchmarks, run in a worker thread so that the service under test has the
 * main thread to itself. Two modes:
 *  - load: `concurrency` keep-alive connections asking `url` for `ms` milliseconds, each reading
 *    the whole answer; posts back the number of 200 answers and bytes;
 *  - times: `count` requests one after another; posts back each one's milliseconds and bytes.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Pool } from 'undici';

const { url, token, concurrency = 1, ms = 0, count = 0 } = workerData;
const u = new URL(url);
const pool = new Pool(u.origin, { connections: concurrency, pipelining: 1 });
const path = u.pathname + u.search;
const ask = async () => {
  const res = await pool.request({ method: 'GET', path, headers: { authorization: `Bearer ${token}` } });
  const body = await res.body.arrayBuffer();
  return { ok: res.statusCode === 200, bytes: body.byteLength };
};

if (count) {
  const times = [];
  let bytes = 0;
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const r = await ask();
    if (!r.ok) throw new Error(`${url}: not 200`);
    times.push(performance.now() - started);
    bytes = r.bytes;
  }
  await pool.close();
  parentPort.postMessage({ times, bytes });
} else {
  let done = 0;
  let bytes = 0;
  let failed = 0;
  const until = performance.now() + ms;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const r = await ask();
        if (r.ok) {
          done += 1;
          bytes += r.bytes;
        } else failed += 1;
      }
    }),
  );
  await pool.close();
  parentPort.postMessage({ done, bytes, failed });
}
