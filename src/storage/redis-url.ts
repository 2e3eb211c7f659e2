/**
 * Redis URLs, read without loading the Redis client (the hosted options check them before
 * anything starts): a single Redis is `redis://` or `rediss://`; a Redis Cluster is
 * `redis+cluster://[user:password@]host:port,host:port` (`rediss+cluster://` for TLS), its hosts
 * the seeds from which node-redis discovers the whole cluster.
 */

export interface ClusterUrl {
  tls: boolean;
  username?: string;
  password?: string;
  /** redis://host:port (or rediss://) per seed, without credentials. */
  seeds: string[];
}

/** The seeds of a cluster URL, or undefined for a single Redis URL. Throws on a malformed one. */
export function clusterSeeds(url: string): ClusterUrl | undefined {
  const m = /^(rediss?)\+cluster:\/\/(?:([^@/]*)@)?([^/?#@]+)(?:\/(\d*))?$/.exec(url);
  if (!m) {
    if (/^rediss?\+cluster:/.test(url)) throw new TypeError('expected redis+cluster://host:port,host:port (or rediss+cluster://…)');
    return undefined;
  }
  const [, scheme, userinfo, hosts, db] = m;
  if (db && db !== '0') throw new TypeError(`a Redis Cluster has only database 0, not ${db}`);
  const seeds = hosts!.split(',').map((h) => {
    const seed = new URL(`${scheme}://${h}`);
    if (!seed.hostname || (seed.pathname !== '' && seed.pathname !== '/') || h.includes('@')) throw new TypeError(`not a host:port: ${JSON.stringify(h)}`);
    return `${scheme}://${seed.host}`;
  });
  const [user, ...pass] = userinfo ? userinfo.split(':') : [];
  return {
    tls: scheme === 'rediss',
    username: user ? decodeURIComponent(user) : undefined,
    password: pass.length ? decodeURIComponent(pass.join(':')) : undefined,
    seeds,
  };
}

/** A Redis URL (single or cluster) as it may be shown: without user name and password. */
export function redisLocation(url: string): string {
  try {
    const cluster = clusterSeeds(url);
    if (cluster) return `${cluster.tls ? 'rediss' : 'redis'}+cluster://${cluster.seeds.map((s) => new URL(s).host).join(',')}`;
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString().replace(/\/$/, '');
  } catch {
    return 'redis (unparseable URL)';
  }
}

/** A cluster URL from its parts (credentials percent-encoded). */
export function clusterUrl(c: ClusterUrl): string {
  const auth = c.username || c.password ? `${encodeURIComponent(c.username ?? '')}${c.password ? `:${encodeURIComponent(c.password)}` : ''}@` : '';
  return `${c.tls ? 'rediss' : 'redis'}+cluster://${auth}${c.seeds.map((s) => new URL(s).host).join(',')}`;
}
