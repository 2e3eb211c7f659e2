/**
 * The Lua scripts of the Redis store (redis-store.ts), each touching one key: the compare-and-set
 * of `update` and the lease of `withLock`, with their SHA-1 for EVALSHA.
 */
import { createHash } from 'node:crypto';

/** Writes ARGV[2] (or deletes when ARGV[3] is 'del') only if the value's digest is still ARGV[1] ('' = absent). */
export const CAS_SCRIPT = `
local cur = redis.call('GET', KEYS[1])
local digest = ''
if cur then digest = redis.sha1hex(cur) end
if digest ~= ARGV[1] then return 0 end
if ARGV[3] == 'del' then
  redis.call('DEL', KEYS[1])
elseif ARGV[4] ~= '' then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[4])
else
  redis.call('SET', KEYS[1], ARGV[2])
end
return 1`;

/** Renews (ARGV[2] = ms) or releases (ARGV[2] = 'release') a lease, only if it is still ours (ARGV[1]). */
export const LEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == 'release' then return redis.call('DEL', KEYS[1]) end
return redis.call('PEXPIRE', KEYS[1], ARGV[2])`;

export const sha1 = (text: string | Uint8Array) => createHash('sha1').update(text).digest('hex');
export const CAS_SHA = sha1(CAS_SCRIPT);
export const LEASE_SHA = sha1(LEASE_SCRIPT);
