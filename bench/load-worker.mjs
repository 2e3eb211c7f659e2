/**
 * A load generator for the benchmarks, run in a worker thread so that the service under test has
 * the main thread to itself: `concurrency` keep-alive connections asking `url` for `ms`
 * milliseconds, each reading the whole answer. Posts back the number of 200 answers and bytes.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Pool } from 'undici';

const { url, token, concurrency, ms } = workerData;
const u = new URL(url);
const pool = new Pool(u.origin, { connections: concurrency, pipelining: 1 });
const path = u.pathname + u.search;
let done = 0;
let bytes = 0;
let failed = 0;
const until = performance.now() + ms;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (performance.now() < until) {
      const res = await pool.request({ method: 'GET', path, headers: { authorization: `Bearer ${token}` } });
      const body = await res.body.arrayBuffer();
      if (res.statusCode === 200) {
        done += 1;
        bytes += body.byteLength;
      } else failed += 1;
    }
  }),
);
await pool.close();
parentPort.postMessage({ done, bytes, failed });
