/**
 * Draws assets/icon.png, the bundle's icon (a white "Y" on a green rounded square), with no image
 * tool: pixels by distance to shapes (anti-aliased edges), written as a PNG with node's zlib.
 * Run `npx tsx scripts/make-icon.ts` after changing it; the PNG is committed.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';

/** Claude Desktop's recommended size; the shapes below are drawn on a 256 grid and scaled. */
const SIZE = 512;
const S = SIZE / 256;
const GREEN = [0x2e, 0x7d, 0x5b];

/** 0..1 coverage of a pixel whose center is `d` inside (negative) or outside an edge. */
const cover = (d: number) => Math.min(1, Math.max(0, 0.5 - d));

function roundedSquare(x: number, y: number, inset: number, radius: number): number {
  const c = SIZE / 2;
  const half = c - inset - radius;
  const dx = Math.max(Math.abs(x - c) - half, 0);
  const dy = Math.max(Math.abs(y - c) - half, 0);
  return Math.hypot(dx, dy) - radius;
}

function segment(x: number, y: number, [ax, ay]: number[], [bx, by]: number[], width: number): number {
  const t = Math.max(0, Math.min(1, ((x - ax!) * (bx! - ax!) + (y - ay!) * (by! - ay!)) / ((bx! - ax!) ** 2 + (by! - ay!) ** 2)));
  return Math.hypot(x - (ax! + t * (bx! - ax!)), y - (ay! + t * (by! - ay!))) - width / 2;
}

const Y_STROKES: [number[], number[]][] = [
  [
    [80, 66],
    [128, 132],
  ],
  [
    [176, 66],
    [128, 132],
  ],
  [
    [128, 132],
    [128, 194],
  ],
];

const rows: Buffer[] = [];
for (let y = 0; y < SIZE; y++) {
  const row = Buffer.alloc(1 + SIZE * 4); // filter byte 0, then RGBA
  for (let x = 0; x < SIZE; x++) {
    const px = x + 0.5;
    const py = y + 0.5;
    const bg = cover(roundedSquare(px, py, 8 * S, 44 * S));
    const fg = Math.max(
      ...Y_STROKES.map(([a, b]) =>
        cover(
          segment(
            px,
            py,
            a.map((v) => v * S),
            b.map((v) => v * S),
            26 * S,
          ),
        ),
      ),
    );
    const o = 1 + x * 4;
    for (let i = 0; i < 3; i++) row[o + i] = Math.round(GREEN[i]! * (1 - fg) + 255 * fg);
    row[o + 3] = Math.round(255 * bg);
  }
  rows.push(row);
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const out = Buffer.alloc(8 + data.length + 4);
  out.writeUInt32BE(data.length, 0);
  body.copy(out, 4);
  out.writeUInt32BE(crc32(body), 8 + data.length);
  return out;
}

const header = Buffer.alloc(13);
header.writeUInt32BE(SIZE, 0);
header.writeUInt32BE(SIZE, 4);
header[8] = 8; // bit depth
header[9] = 6; // RGBA
const png = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  chunk('IHDR', header),
  chunk('IDAT', deflateSync(Buffer.concat(rows), { level: 9 })),
  chunk('IEND', Buffer.alloc(0)),
]);
writeFileSync(join(import.meta.dirname, '..', 'assets', 'icon.png'), png);
process.stderr.write(`assets/icon.png: ${SIZE}x${SIZE}, ${png.length} bytes\n`);
