/**
 * A client for the benchmarks, run in a worker thread so that the service under test has the
 * main thread to itself. Two modes:
 *  - load: `concurrency` keep-alive connections asking `url` (or each of `urls` in turn) for `ms`
 *    milliseconds, each reading the whole answer; posts back the number of 200 answers and bytes;
 *  - times: `count` requests one after another; posts back each one's milliseconds and bytes.
 * An answer's bytes are counted as they arrive, not collected (as wrk does): the client copying
 * every answer into one buffer cost as much as the service sending it, and held the rate of large
 * lists below what the service could give. An answer counts as 200 only when all the bytes its
 * content-length announced arrived.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Pool } from 'undici';

const { url, urls = [url], token, concurrency = 1, ms = 0, count = 0 } = workerData;
const paths = urls.map((x) => new URL(x)).map((u) => u.pathname + u.search);
const pool = new Pool(new URL(urls[0]).origin, { connections: concurrency, pipelining: 1 });
let next = 0;
const ask = () =>
  new Promise((resolve, reject) => {
    const path = paths[next++ % paths.length];
    let status = 0;
    let expected = -1;
    let bytes = 0;
    pool.dispatch(
      { method: 'GET', path, headers: { authorization: `Bearer ${token}` } },
      {
        onRequestStart() {},
        onResponseStart(_controller, statusCode, headers) {
          status = statusCode;
          expected = Number(headers['content-length'] ?? -1);
        },
        onResponseData(_controller, chunk) {
          bytes += chunk.length;
        },
        onResponseEnd() {
          resolve({ ok: status === 200 && bytes === expected, bytes });
        },
        onResponseError(_controller, error) {
          reject(error);
        },
      },
    );
  });

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
