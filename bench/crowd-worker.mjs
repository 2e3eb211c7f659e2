/**
 * The crowd's load generator (bench/hosted-crowd.ts): a child process holding some of the users'
 * MCP clients, so that the clients' CPU is spread over processes of their own and no one event
 * loop queues a hundred users' calls (in the bench's own process, with the balancer, that loop
 * was part of the tail). Plain Node, no loader: what the clients cost is the client library's.
 * Messages from the parent:
 *  - connect { mcpUrl, users: [{ token, calls: [[name, args], ...] }] }: every user's client
 *    connected (initialize) with their bearer token; answers { type: 'connected' };
 *  - go: every user makes their calls, one after another, all users at once; answers { type:
 *    'done', latencies, first, errors, cpuMicros, trace } and closes the clients;
 *  - exit.
 * A generator that has run a crowd is "warmed" (its clients' code compiled hot); a fresh one is cold.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

let users = [];

async function connect({ mcpUrl, users: wanted }) {
  users = await Promise.all(
    wanted.map(async ({ token, calls }, n) => {
      const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
      const client = new Client({ name: `crowd ${process.pid} ${n}`, version: '1.0.0' });
      await client.connect(transport);
      return { client, calls };
    }),
  );
  process.send({ type: 'connected' });
}

async function go() {
  const latencies = [];
  const first = [];
  const errors = [];
  const trace = [];
  const cpu0 = process.cpuUsage();
  const startedAt = Date.now();
  await Promise.all(
    users.map(async ({ client, calls }, u) => {
      for (let i = 0; i < calls.length; i++) {
        const [name, args] = calls[i];
        const t0 = performance.now();
        const offset = Date.now() - startedAt;
        const res = await client.callTool({ name, arguments: args }).catch((e) => ({ isError: true, content: [{ text: e.message }] }));
        const took = performance.now() - t0;
        latencies.push(took);
        if (i === 0) first.push(took);
        trace.push([u, i, name, offset, Math.round(took)]);
        if (res.isError) errors.push(`${name}: ${String(res.content?.[0]?.text ?? '').slice(0, 160)}`);
      }
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  await Promise.all(users.map(({ client }) => client.close().catch(() => undefined)));
  users = [];
  process.send({ type: 'done', latencies, first, errors, cpuMicros: cpu.user + cpu.system, startedAt, trace });
}

process.on('message', (m) => {
  if (m.type === 'connect') void connect(m).catch((e) => process.send({ type: 'failed', error: String(e?.stack ?? e) }));
  else if (m.type === 'go') void go().catch((e) => process.send({ type: 'failed', error: String(e?.stack ?? e) }));
  else if (m.type === 'exit') process.exit(0);
});
