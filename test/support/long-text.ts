import { once } from 'node:events';
import { createGzip } from 'node:zlib';

/**
 * Ride files with huge text in them (issue 17: "a GPX `<name>` of 200 MB (a 195 KB `.gpx.gz`)"),
 * gzipped as they are generated, a megabyte at a time, so a test never holds the text itself.
 */

const MEGABYTE = 1 << 20;

/** A GPX of a short ride whose track `<name>` holds `megabytes` MB of `x`, gzipped (200 MB → about 200 KB). */
export async function gpxGzWithLongName(megabytes: number): Promise<Uint8Array> {
  return gzipParts([
    '<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="Long name test" ' +
      'xmlns="http://www.topografix.com/GPX/1/1"><trk><name>',
    { repeat: 'x'.repeat(MEGABYTE), times: megabytes },
    `</name><type>cycling</type><trkseg>${shortRidePoints()}</trkseg></trk></gpx>\n`,
  ]);
}

/** Ten points a second apart, near Zürich, on 2024-06-01 from 08:00:00 UTC. */
function shortRidePoints(): string {
  let points = '';
  for (let i = 0; i < 10; i++) {
    points +=
      `<trkpt lat="${(47.37 + i * 1e-4).toFixed(5)}" lon="${(8.54 + i * 1e-4).toFixed(5)}">` +
      `<ele>408</ele><time>2024-06-01T08:00:${String(i).padStart(2, '0')}Z</time></trkpt>`;
  }
  return points;
}

type Part = string | { repeat: string; times: number };

async function gzipParts(parts: readonly Part[]): Promise<Uint8Array> {
  const gzip = createGzip({ level: 9 });
  const chunks: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => chunks.push(chunk));
  const write = async (text: string): Promise<void> => {
    if (!gzip.write(text)) await once(gzip, 'drain');
  };
  for (const part of parts) {
    if (typeof part === 'string') await write(part);
    else for (let i = 0; i < part.times; i++) await write(part.repeat);
  }
  gzip.end();
  await once(gzip, 'end');
  return new Uint8Array(Buffer.concat(chunks));
}
