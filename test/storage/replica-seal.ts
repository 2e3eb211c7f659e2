/**
 * Opens and seals saved replicas the way src/sync/persist.ts does (AES-256-GCM, gzip'd JSON, the
 * identity and budget as associated data), written out here so that tests can forge a replica
 * that decrypts but is wrong, independently of the code under test.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';

const MAGIC = Buffer.from('YMCPR1\n');

function keyOf(keyFile: string): Buffer {
  return Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'base64');
}

export function openReplica(file: string, keyFile: string, identity: string, budgetId: string): any {
  const bytes = readFileSync(file);
  const iv = bytes.subarray(MAGIC.length, MAGIC.length + 12);
  const tag = bytes.subarray(MAGIC.length + 12, MAGIC.length + 28);
  const d = createDecipheriv('aes-256-gcm', keyOf(keyFile), iv);
  d.setAAD(Buffer.from(`${identity}/${budgetId}`));
  d.setAuthTag(tag);
  return JSON.parse(gunzipSync(Buffer.concat([d.update(bytes.subarray(MAGIC.length + 28)), d.final()])).toString('utf8'));
}

export function sealReplica(file: string, keyFile: string, identity: string, budgetId: string, snapshot: unknown): void {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', keyOf(keyFile), iv);
  c.setAAD(Buffer.from(`${identity}/${budgetId}`));
  const body = Buffer.concat([c.update(gzipSync(Buffer.from(JSON.stringify(snapshot)))), c.final()]);
  writeFileSync(file, Buffer.concat([MAGIC, iv, c.getAuthTag(), body]));
}
