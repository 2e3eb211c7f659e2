/**
 * The connection under the Redis store: one Redis (`redis://`, `rediss://`) or a Redis Cluster
 * (`redis+cluster://host:port,host:port`, `rediss+cluster://…` for TLS), through node-redis's own
 * clients (createClient, createCluster: the cluster client follows MOVED and ASK and rediscovers
 * the slots itself; nothing here shards). The store sends every command with the key it concerns,
 * which the cluster client routes by; SCAN goes to every master, each holding its own slots.
 */
// @redis/client, not the `redis` package: that one also loads the Bloom, JSON, Search and
// TimeSeries modules' commands (about 170 more files), which an instance's start paid 0.2 s of CPU for.
import { createClient, createCluster, RESP_TYPES } from '@redis/client';
import { clusterSeeds } from './redis-url.js';

/** How long one command may take before the store reports Redis as unreachable. */
export const COMMAND_TIMEOUT_MS = 5_000;
const COMMAND_OPTIONS = { timeout: COMMAND_TIMEOUT_MS, typeMapping: { [RESP_TYPES.BLOB_STRING]: Buffer } };

type Args = (string | Buffer)[];

export interface RedisLink {
  /** True for a Redis Cluster: keys are named with hash tags (keys.ts clusterName). */
  readonly cluster: boolean;
  /** Sends a command concerning `key` (its Redis name), to the node that holds it. */
  send<T>(key: string | undefined, readonly: boolean, args: Args): Promise<T>;
  /** One sender per master (one in all for a single Redis): where SCAN must run. */
  masters(): Promise<((args: Args) => Promise<unknown>)[]>;
  close(): Promise<void>;
}

export interface LinkEvents {
  /** Any connection failed (reported once per change of state by the caller). */
  down(e: Error): void;
  /** A connection is (again) ready. */
  up(): void;
}

/** Connects (not yet checked: the store PINGs). `connected()` says whether a first connection was made. */
export async function openLink(url: string, events: LinkEvents, connected: () => boolean): Promise<RedisLink> {
  // At start, a Redis that cannot be reached is a configuration error (said at once); once
  // connected, a lost connection is retried for as long as it takes.
  const socket = {
    connectTimeout: COMMAND_TIMEOUT_MS,
    reconnectStrategy: (retries: number, cause: Error) => (connected() ? Math.min(100 * 2 ** retries, 5_000) : retries >= 2 ? cause : 200),
  };
  const cluster = clusterSeeds(url);
  if (!cluster) {
    // Fail at once while disconnected rather than queue: a caller waiting on a dead Redis would
    // hold an MCP request until its deadline.
    const client = createClient({ url, disableOfflineQueue: true, socket, commandOptions: COMMAND_OPTIONS });
    client.on('error', (e: Error) => events.down(e)).on('ready', () => events.up());
    await connectOrDestroy(client);
    return {
      cluster: false,
      send: async <T>(_key: string | undefined, _readonly: boolean, args: Args) => (await client.sendCommand(args)) as T,
      masters: async () => [(args) => client.sendCommand(args)],
      close: () => client.close().catch(() => client.destroy()),
    };
  }
  const nodeDefaults = { username: cluster.username, password: cluster.password, disableOfflineQueue: true, socket: { ...socket, tls: cluster.tls } };
  const client = createCluster({
    rootNodes: cluster.seeds.map((seed) => ({ url: seed })),
    defaults: nodeDefaults as never,
    commandOptions: COMMAND_OPTIONS,
  });
  client
    .on('error', (e: Error) => events.down(e))
    .on('node-error', (e: Error) => events.down(e))
    .on('node-ready', () => events.up());
  await connectOrDestroy(client);
  return {
    cluster: true,
    send: async <T>(key: string | undefined, readonly: boolean, args: Args) => (await client.sendCommand(key, readonly, args)) as T,
    masters: async () =>
      Promise.all(
        client.masters.map(async (m) => {
          const node = await client.nodeClient(m);
          return (args: Args) => node.sendCommand(args, COMMAND_OPTIONS);
        }),
      ),
    close: () => client.close().catch(() => client.destroy()),
  };
}

/** Connects, or lets go of what a failed connect left behind (sockets, retry timers) before failing. */
async function connectOrDestroy(client: { connect(): Promise<unknown>; destroy(): unknown }): Promise<void> {
  try {
    await client.connect();
  } catch (e) {
    await client.destroy();
    throw e;
  }
}
