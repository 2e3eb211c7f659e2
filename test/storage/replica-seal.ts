/**
 * Opens and seals saved replicas the way src/sync/persist.ts does (AES-256-GCM, the identity and
 * budget as associated data), written out here so that tests can forge a replica that decrypts but
 * is wrong, independently of the code under test. The server saves copies in the columnar form
 * with its schemas' fingerprint in the header and the associated data (`YMCPR4 <shape>\n`, its
 * months written alone, the form's name also in the associated data; opened here with the form's
 * own decoder, which test/sync/saved-form.test.ts checks against the JSON); a forged copy is
 * gzip'd JSON as older versions saved it, sealed without a shape (`YMCPR1\n`) or with one
 * (`YMCPR2 <shape>\n`), so the server checks it entity by entity unless it names its shape, or the
 * columnar form as the previous version saved it (`YMCPR3 <shape>\n`, months that refer back).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { encodeColumnar } from '../../src/sync/columnar-codec.js';
import { decodeColumnar } from '../../src/sync/columnar-reader.js';

const MAGIC = Buffer.from('YMCPR1\n');

function keyOf(keyFile: string): Buffer {
  return Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'base64');
}

/** The version digit and shape a saved copy's header names (undefined: the oldest layout). */
function layoutOf(file: string): { version: string; shape: string } | undefined {
  const m = /^YMCPR([234]) ([0-9a-f]{16})\n/.exec(readFileSync(file).subarray(0, 64).toString('latin1'));
  return m ? { version: m[1]!, shape: m[2]! } : undefined;
}

/** The shape a saved copy's header names (undefined: the oldest layout). */
export function shapeOfReplica(file: string): string | undefined {
  return layoutOf(file)?.shape;
}

/** Whether the server saved it in the columnar form (`YMCPR4`; `YMCPR3` is the previous version's). */
export function isColumnarReplica(file: string): boolean {
  return layoutOf(file)?.version === '4';
}

/** The associated data of a copy of this layout. */
function aadOf(identity: string, budgetId: string, layout: { version: string; shape: string } | undefined): Buffer {
  if (!layout) return Buffer.from(`${identity}/${budgetId}`);
  return Buffer.from(`${identity}/${budgetId}/${layout.shape}${layout.version === '4' ? '/YMCPR4' : ''}`);
}

export function openReplica(file: string, keyFile: string, identity: string, budgetId: string): any {
  const bytes = readFileSync(file);
  const layout = layoutOf(file);
  const shape = layout?.shape;
  const magic = layout ? Buffer.from(`YMCPR${layout.version} ${shape}\n`) : MAGIC;
  const iv = bytes.subarray(magic.length, magic.length + 12);
  const tag = bytes.subarray(magic.length + 12, magic.length + 28);
  const d = createDecipheriv('aes-256-gcm', keyOf(keyFile), iv);
  d.setAAD(aadOf(identity, budgetId, layout));
  d.setAuthTag(tag);
  const plain = Buffer.concat([d.update(bytes.subarray(magic.length + 28)), d.final()]);
  if (layout?.version === '4') return decodeColumnar(brotliDecompressSync(plain), 'months');
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

/** Seals `snapshot` in the columnar form as the previous version did (`YMCPR3`: months that may refer back to the rows before them). */
export function sealColumnarV3(file: string, keyFile: string, identity: string, budgetId: string, snapshot: object, shape: string): void {
  const magic = Buffer.from(`YMCPR3 ${shape}\n`);
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', keyOf(keyFile), iv);
  c.setAAD(aadOf(identity, budgetId, { version: '3', shape }));
  const body = Buffer.concat([c.update(brotliCompressSync(encodeColumnar(snapshot))), c.final()]);
  writeFileSync(file, Buffer.concat([magic, iv, c.getAuthTag(), body]));
}

/** The copy with its header changed to name another version of the form (its associated data left as sealed). */
export function renameForm(file: string, version: string): void {
  const bytes = readFileSync(file);
  bytes.write(version, 'YMCPR'.length, 'latin1');
  writeFileSync(file, bytes);
}
