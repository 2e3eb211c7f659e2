/**
 * Opens and seals saved replicas the way src/sync/persist.ts does (AES-256-GCM, the identity and
 * budget as associated data), written out here so that tests can forge a replica that decrypts but
 * is wrong, independently of the code under test. The server saves copies in the columnar form
 * with its schemas' fingerprint in the header and the associated data (`YMCPR3 <shape>\n`; opened
 * here with the form's own decoder, which test/sync/saved-form.test.ts checks against the JSON); a
 * forged copy is gzip'd JSON as older versions saved it, sealed without a shape (`YMCPR1\n`) or
 * with one (`YMCPR2 <shape>\n`), so the server checks it entity by entity unless it names its shape.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { decodeColumnar } from '../../src/sync/columnar-reader.js';

const MAGIC = Buffer.from('YMCPR1\n');

function keyOf(keyFile: string): Buffer {
  return Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'base64');
}

/** The version digit and shape a saved copy's header names (undefined: the oldest layout). */
function layoutOf(file: string): { version: string; shape: string } | undefined {
  const m = /^YMCPR([23]) ([0-9a-f]{16})\n/.exec(readFileSync(file).subarray(0, 64).toString('latin1'));
  return m ? { version: m[1]!, shape: m[2]! } : undefined;
}

/** The shape a saved copy's header names (undefined: the oldest layout). */
export function shapeOfReplica(file: string): string | undefined {
  return layoutOf(file)?.shape;
}

/** Whether the server saved it in the columnar form (`YMCPR3`). */
export function isColumnarReplica(file: string): boolean {
  return layoutOf(file)?.version === '3';
}

export function openReplica(file: string, keyFile: string, identity: string, budgetId: string): any {
  const bytes = readFileSync(file);
  const layout = layoutOf(file);
  const shape = layout?.shape;
  const magic = layout ? Buffer.from(`YMCPR${layout.version} ${shape}\n`) : MAGIC;
  const iv = bytes.subarray(magic.length, magic.length + 12);
  const tag = bytes.subarray(magic.length + 12, magic.length + 28);
  const d = createDecipheriv('aes-256-gcm', keyOf(keyFile), iv);
  d.setAAD(Buffer.from(shape ? `${identity}/${budgetId}/${shape}` : `${identity}/${budgetId}`));
  d.setAuthTag(tag);
  const plain = Buffer.concat([d.update(bytes.subarray(magic.length + 28)), d.final()]);
  if (layout?.version === '3') return decodeColumnar(brotliDecompressSync(plain));
  return JSON.parse(gunzipSync(plain).toString('utf8'));
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
