/**
 * Opens and seals saved replicas the way src/sync/persist.ts does (AES-256-GCM, gzip'd JSON, the
 * identity and budget as associated data), written out here so that tests can forge a replica
 * that decrypts but is wrong, independently of the code under test. The server saves copies with
 * its schemas' fingerprint in the header and the associated data (`YMCPR2 <shape>\n`); a forged
 * copy is sealed without one (`YMCPR1\n`, as older versions saved), or with another shape, so the
 * server checks it entity by entity.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';

const MAGIC = Buffer.from('YMCPR1\n');

function keyOf(keyFile: string): Buffer {
  return Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'base64');
}

/** The shape a saved copy's header names (undefined: the older layout). */
export function shapeOfReplica(file: string): string | undefined {
  return /^YMCPR2 ([0-9a-f]{16})\n/.exec(readFileSync(file).subarray(0, 64).toString('latin1'))?.[1];
}

export function openReplica(file: string, keyFile: string, identity: string, budgetId: string): any {
  const bytes = readFileSync(file);
  const shape = shapeOfReplica(file);
  const magic = shape ? Buffer.from(`YMCPR2 ${shape}\n`) : MAGIC;
  const iv = bytes.subarray(magic.length, magic.length + 12);
  const tag = bytes.subarray(magic.length + 12, magic.length + 28);
  const d = createDecipheriv('aes-256-gcm', keyOf(keyFile), iv);
  d.setAAD(Buffer.from(shape ? `${identity}/${budgetId}/${shape}` : `${identity}/${budgetId}`));
  d.setAuthTag(tag);
  return JSON.parse(gunzipSync(Buffer.concat([d.update(bytes.subarray(magic.length + 28)), d.final()])).toString('utf8'));
}

/** Seals `snapshot` as an older version did (no shape), or naming `shape`. */
export function sealReplica(file: string, keyFile: string, identity: string, budgetId: string, snapshot: unknown, shape?: string): void {
  const magic = shape ? Buffer.from(`YMCPR2 ${shape}\n`) : MAGIC;
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', keyOf(keyFile), iv);
  c.setAAD(Buffer.from(shape ? `${identity}/${budgetId}/${shape}` : `${identity}/${budgetId}`));
  const body = Buffer.concat([c.update(gzipSync(Buffer.from(JSON.stringify(snapshot)))), c.final()]);
  writeFileSync(file, Buffer.concat([magic, iv, c.getAuthTag(), body]));
}
