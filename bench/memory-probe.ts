/**
 * By hand (issue 61 item 1): the memory bench's 100,000-transaction run once, with the server's
 * resident set sampled every 5 ms, so a lever's effect on the peak can be placed in time (the
 * export read, the save, the scan). `npx tsx bench/memory-probe.ts [transactions]`
 * with a built dist; MEMPROBE_MARKS=1 prints the server's stderr too.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { STEPS } from './memory.bench.js';
import { CLI, initialize, memoryOf, requireBuild, serveEnv, startSandboxProcess, startStdio } from './processes.js';

const n = Number(process.argv[2] ?? 100_000);

async function main(): Promise<void> {
  requireBuild();
  const sandbox = await startSandboxProcess(['--transactions', String(n)]);
  const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-probe-'));
  const env = serveEnv(sandbox, dir);
  // startStdio runs `node CLI`; node flags go in front of the script.
  const server = startStdio(CLI, ['serve'], env);
  const t0 = Date.now();
  const samples: [number, number][] = [];
  const marks: [number, string][] = [];
  const timer = setInterval(() => {
    try {
      samples.push([Date.now() - t0, memoryOf(server.child.pid!).rss / 2 ** 20]);
    } catch {
      // exited
    }
  }, 5);
  try {
    await initialize(server);
    await server.request('tools/list');
    marks.push([Date.now() - t0, 'ready']);
    for (const [name, args] of STEPS) {
      const r = await server.request('tools/call', { name, arguments: args });
      if (r.isError) throw new Error(r.content?.[0]?.text);
      marks.push([Date.now() - t0, name]);
    }
    await new Promise((r) => setTimeout(r, 6_000));
    const now = memoryOf(server.child.pid!);
    const [hwm, rss] = [now.peak! / 2 ** 20, now.rss / 2 ** 20];
    // utime and stime, in clock ticks (100 a second on Linux).
    const stat = readFileSync(`/proc/${server.child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    const cpuMs = (Number(stat[11]) + Number(stat[12])) * 10;
    clearInterval(timer);
    const peakAt = samples.reduce((a, b) => (b[1] > a[1] ? b : a), [0, 0]);
    console.log(
      `VmHWM ${hwm.toFixed(1)} MB, settled RSS ${rss.toFixed(1)} MB, sampled peak ${peakAt[1].toFixed(1)} MB at ${peakAt[0]} ms, load ${loadavg()[0]!.toFixed(1)}, server CPU ${cpuMs} ms, first answer ${marks[1]![0] - marks[0]![0]} ms`,
    );
    console.log(`marks: ${marks.map(([t, m]) => `${m}@${t}`).join(' ')}`);
    // The curve, every 100 ms.
    const step: string[] = [];
    for (let t = 0, i = 0; i < samples.length; t += 100) {
      let max = 0;
      while (i < samples.length && samples[i]![0] < t + 100) max = Math.max(max, samples[i++]![1]);
      if (max) step.push(`${t}:${max.toFixed(0)}`);
    }
    console.log(step.join(' '));
    if (process.env.MEMPROBE_MARKS) console.log(server.stderr());
  } finally {
    clearInterval(timer);
    await server.stop();
    await sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
