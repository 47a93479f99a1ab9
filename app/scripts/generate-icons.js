// Draws Rideport's icons with no dependencies and no network (issue 7: "icons in all sizes"): a bike
// wheel on a rounded square for the app, and a wheel with a state mark for each tray state. Writes
//   app/build/icons/<N>x<N>.png  N = 16 32 48 64 128 256 512 1024   (Linux, electron-builder)
//   app/build/icon.png (1024), app/build/icon.icns (macOS), app/build/icon.ico (Windows)
//   app/static/tray/tray-<state>.png (16 px) and tray-<state>@2x.png (32 px), packaged with the app
// ICNS and ICO hold PNG images, which both formats allow (ICNS types icp4…ic14; ICO since Vista).
// Run: node app/scripts/generate-icons.js   (the output is committed; run again after a change here)
/* global Buffer, console */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

const appFolder = join(dirname(fileURLToPath(import.meta.url)), '..');

// --- PNG ---------------------------------------------------------------------------------------------

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = crcTable[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** An RGBA image (Uint8Array, size*size*4) as PNG bytes. */
function encodePng(size, rgba) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // RGBA
  const rows = Buffer.alloc((size * 4 + 1) * size);
  for (let y = 0; y < size; y++) {
    rows[y * (size * 4 + 1)] = 0; // filter: none
    Buffer.from(rgba.buffer, rgba.byteOffset + y * size * 4, size * 4).copy(rows, y * (size * 4 + 1) + 1);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

// --- Drawing: shapes in a unit square (0…1), antialiased by 4×4 supersampling --------------------------

function draw(size, layers) {
  const rgba = new Uint8Array(size * size * 4);
  const samples = 4;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      let [r, g, b, a] = [0, 0, 0, 0];
      for (const layer of layers) {
        let covered = 0;
        for (let sy = 0; sy < samples; sy++) {
          for (let sx = 0; sx < samples; sx++) {
            const u = (x + (sx + 0.5) / samples) / size;
            const v = (y + (sy + 0.5) / samples) / size;
            if (layer.inside(u, v)) covered++;
          }
        }
        const alpha = (covered / (samples * samples)) * (layer.color[3] ?? 1);
        // "over" compositing, straight alpha
        const outA = alpha + a * (1 - alpha);
        if (outA > 0) {
          r = (layer.color[0] * alpha + r * a * (1 - alpha)) / outA;
          g = (layer.color[1] * alpha + g * a * (1 - alpha)) / outA;
          b = (layer.color[2] * alpha + b * a * (1 - alpha)) / outA;
        }
        a = outA;
      }
      const at = (y * size + x) * 4;
      rgba[at] = Math.round(r);
      rgba[at + 1] = Math.round(g);
      rgba[at + 2] = Math.round(b);
      rgba[at + 3] = Math.round(a * 255);
    }
  }
  return rgba;
}

const ring = (cx, cy, outer, inner) => (u, v) => {
  const d = Math.hypot(u - cx, v - cy);
  return d <= outer && d >= inner;
};
const disc = (cx, cy, radius) => (u, v) => Math.hypot(u - cx, v - cy) <= radius;
const segment = (x1, y1, x2, y2, width) => (u, v) => {
  const dx = x2 - x1;
  const dy = y2 - y1;
  const t = Math.max(0, Math.min(1, ((u - x1) * dx + (v - y1) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(u - (x1 + t * dx), v - (y1 + t * dy)) <= width / 2;
};
const roundedSquare = (inset, radius) => (u, v) => {
  const qx = Math.max(Math.abs(u - 0.5) - (0.5 - inset - radius), 0);
  const qy = Math.max(Math.abs(v - 0.5) - (0.5 - inset - radius), 0);
  return Math.hypot(qx, qy) <= radius;
};
/** The points inside any of `shapes`. */
const union =
  (...shapes) =>
  (u, v) =>
    shapes.some((shape) => shape(u, v));

/** A wheel: rim, hub and spokes, centred at (cx, cy). Fewer spokes at small sizes stay legible. */
function wheel(cx, cy, radius, spokes, stroke) {
  const parts = [ring(cx, cy, radius, radius - stroke), disc(cx, cy, stroke * 0.9)];
  for (let i = 0; i < spokes; i++) {
    const angle = (i / spokes) * Math.PI * 2 + Math.PI / spokes;
    parts.push(
      segment(
        cx,
        cy,
        cx + Math.cos(angle) * (radius - stroke / 2),
        cy + Math.sin(angle) * (radius - stroke / 2),
        stroke * 0.45,
      ),
    );
  }
  return union(...parts);
}

const TEAL = [18, 122, 110];
const WHITE = [255, 255, 255];
const ORANGE = [226, 120, 20];
const BLUE = [36, 110, 200];
const GREY = [110, 118, 125];
const DARK = [40, 46, 52];

function appIcon(size) {
  const spokes = size <= 32 ? 4 : size <= 64 ? 6 : 12;
  return draw(size, [
    { inside: roundedSquare(0.04, 0.2), color: TEAL },
    { inside: wheel(0.5, 0.5, 0.33, spokes, size <= 32 ? 0.1 : 0.06), color: WHITE },
    // the route: a line leaving the wheel towards the top right
    { inside: segment(0.62, 0.38, 0.86, 0.14, size <= 32 ? 0.1 : 0.06), color: WHITE },
  ]);
}

/** Tray icons: the wheel, with a mark in the bottom right saying the state. */
function trayIcon(size, state) {
  const color = { idle: DARK, syncing: BLUE, attention: ORANGE, paused: GREY, offline: GREY }[state];
  const stroke = 0.13;
  const layers = [
    { inside: wheel(0.42, 0.42, 0.38, 4, stroke), color: [...color, state === 'offline' ? 0.6 : 1] },
  ];
  const badge = { cx: 0.76, cy: 0.76, r: 0.24 };
  if (state === 'syncing') {
    layers.push({ inside: disc(badge.cx, badge.cy, badge.r), color: BLUE });
    layers.push({
      inside: union(
        segment(0.76, 0.64, 0.76, 0.88, 0.09),
        segment(0.66, 0.78, 0.76, 0.88, 0.09),
        segment(0.86, 0.78, 0.76, 0.88, 0.09),
      ),
      color: WHITE,
    });
  } else if (state === 'attention') {
    layers.push({ inside: disc(badge.cx, badge.cy, badge.r), color: ORANGE });
    layers.push({
      inside: union(segment(0.76, 0.63, 0.76, 0.8, 0.09), disc(0.76, 0.89, 0.05)),
      color: WHITE,
    });
  } else if (state === 'paused') {
    layers.push({ inside: disc(badge.cx, badge.cy, badge.r), color: GREY });
    layers.push({
      inside: union(segment(0.71, 0.67, 0.71, 0.85, 0.07), segment(0.81, 0.67, 0.81, 0.85, 0.07)),
      color: WHITE,
    });
  } else if (state === 'offline') {
    layers.push({ inside: segment(0.1, 0.1, 0.9, 0.9, 0.1), color: DARK });
  }
  return draw(size, layers);
}

// --- ICNS and ICO containers of PNGs -----------------------------------------------------------------

function icns(pngBySize) {
  // Apple's icon types that hold PNG data, by pixel size (Retina types for the same sizes too).
  const types = [
    ['icp4', 16],
    ['icp5', 32],
    ['ic11', 32],
    ['icp6', 64],
    ['ic12', 64],
    ['ic07', 128],
    ['ic08', 256],
    ['ic13', 256],
    ['ic09', 512],
    ['ic14', 512],
    ['ic10', 1024],
  ];
  const entries = types.map(([type, size]) => {
    const png = pngBySize.get(size);
    const header = Buffer.alloc(8);
    header.write(type, 0, 'ascii');
    header.writeUInt32BE(png.length + 8, 4);
    return Buffer.concat([header, png]);
  });
  const header = Buffer.alloc(8);
  header.write('icns', 0, 'ascii');
  header.writeUInt32BE(8 + entries.reduce((sum, entry) => sum + entry.length, 0), 4);
  return Buffer.concat([header, ...entries]);
}

function ico(pngBySize) {
  const sizes = [16, 32, 48, 64, 128, 256];
  const header = Buffer.alloc(6);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2); // icon
  header.writeUInt16LE(sizes.length, 4);
  let offset = 6 + 16 * sizes.length;
  const directory = [];
  for (const size of sizes) {
    const entry = Buffer.alloc(16);
    entry[0] = size === 256 ? 0 : size; // 0 means 256
    entry[1] = size === 256 ? 0 : size;
    entry[2] = 0; // no palette
    entry[3] = 0;
    entry.writeUInt16LE(1, 4); // colour planes
    entry.writeUInt16LE(32, 6); // bits per pixel
    entry.writeUInt32LE(pngBySize.get(size).length, 8);
    entry.writeUInt32LE(offset, 12);
    offset += pngBySize.get(size).length;
    directory.push(entry);
  }
  return Buffer.concat([header, ...directory, ...sizes.map((size) => pngBySize.get(size))]);
}

// --- Output -----------------------------------------------------------------------------------------

function write(path, bytes) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, bytes);
  console.log(`wrote ${path} (${bytes.length} bytes)`);
}

const appSizes = [16, 32, 48, 64, 128, 256, 512, 1024];
const pngBySize = new Map(appSizes.map((size) => [size, encodePng(size, appIcon(size))]));
for (const [size, png] of pngBySize) write(join(appFolder, 'build', 'icons', `${size}x${size}.png`), png);
write(join(appFolder, 'build', 'icon.png'), pngBySize.get(1024));
write(join(appFolder, 'build', 'icon.icns'), icns(pngBySize));
write(join(appFolder, 'build', 'icon.ico'), ico(pngBySize));
for (const state of ['idle', 'syncing', 'attention', 'paused', 'offline']) {
  write(join(appFolder, 'static', 'tray', `tray-${state}.png`), encodePng(16, trayIcon(16, state)));
  write(join(appFolder, 'static', 'tray', `tray-${state}@2x.png`), encodePng(32, trayIcon(32, state)));
}
