/**
 * Conversion benchmark (`npm run bench:convert`, issue 3): FIT → GPX on the largest corpus files, ours
 * against the obvious ways, measured in the same run, in MB of FIT input per second.
 *
 * - ours: `gpxChunks(parseRideFile(bytes))`, every chunk encoded and written to /dev/null (what
 *   `rideport convert --to gpx` does, without the disk).
 * - ffp+gpx-builder: fit-file-parser 6.1.2 records → gpx-builder 6.0.0 StravaBuilder points (hr, cad,
 *   atemp, power) → `buildGPX`, each used as its README shows.
 * - gpsbabel: `gpsbabel -i garmin_fit -f <file> -o gpx -F -` in a child process per run (its process
 *   start is part of its time, as it is for anyone who runs it; the file is written once, untimed).
 *
 * Target: ours ≥ 30 MB/s of input. Skips (exit 0) when the corpus is absent. Not part of `npm test`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CORPUS_DIR, CORPUS_SKIP_REASON, corpusAvailable } from '../test/support/corpus.js';
import { formatTable } from './table.js';
import { measure, median, type Contender } from './timing.js';

const TARGET_MBPS = 30;
const MB = 1e6;
const FILES = [
  'muktihari-fit__big_activity.fit',
  'fitparse__activity-large-fenxi2-multisport.fit',
  'fitparse__2019-02-17-062644-ELEMNT-297E-195-0.fit',
  'fitparse__garmin-edge-500-activity.fit',
];

type Convert = (bytes: Buffer) => unknown;

interface Converter {
  label: string;
  load(): Promise<Convert | null>;
}

const ours: Converter = {
  label: 'ours',
  async load() {
    const { gpxChunks, parseRideFile } = await import('@rideport/ridefile');
    const devNull = openSync('/dev/null', 'w');
    return (bytes) => {
      let written = 0;
      for (const chunk of gpxChunks(parseRideFile(bytes))) written += writeSync(devNull, chunk);
      return written;
    };
  },
};

interface FfpRecord {
  timestamp?: Date;
  position_lat?: number;
  position_long?: number;
  altitude?: number;
  heart_rate?: number;
  cadence?: number;
  power?: number;
  temperature?: number;
}

const ffpGpxBuilder: Converter = {
  label: 'ffp+gpx-builder',
  async load() {
    const { default: FitParser } = await import('fit-file-parser');
    const { buildGPX, StravaBuilder } = await import('gpx-builder');
    const { Point } = StravaBuilder.MODELS;
    return (bytes) => {
      let records: FfpRecord[] = [];
      let failure: string | undefined;
      new FitParser({ force: true, mode: 'list' }).parse(bytes as Buffer<ArrayBuffer>, (error, data) => {
        failure = error;
        records = (data as { records?: FfpRecord[] } | undefined)?.records ?? [];
      });
      if (failure !== undefined) throw new Error(failure);
      const points = records
        .filter((record) => record.position_lat !== undefined && record.position_long !== undefined)
        .map(
          (record) =>
            new Point(record.position_lat!, record.position_long!, {
              ...(record.altitude === undefined ? {} : { ele: record.altitude }),
              ...(record.timestamp === undefined ? {} : { time: record.timestamp }),
              ...(record.heart_rate === undefined ? {} : { hr: record.heart_rate }),
              ...(record.cadence === undefined ? {} : { cad: record.cadence }),
              ...(record.power === undefined ? {} : { power: record.power }),
              ...(record.temperature === undefined ? {} : { atemp: record.temperature }),
            }),
        );
      const builder = new StravaBuilder();
      builder.setSegmentPoints(points);
      return buildGPX(builder.toObject()).length;
    };
  },
};

const gpsbabel: Converter = {
  label: 'gpsbabel',
  load() {
    if (spawnSync('gpsbabel', ['-V']).status !== 0) return Promise.resolve(null);
    // Its FIT reader cannot read a pipe: the bytes go through a temporary file (written outside the timing).
    const directory = mkdtempSync(join(tmpdir(), 'rideport-bench-'));
    process.on('exit', () => {
      rmSync(directory, { recursive: true, force: true });
    });
    const written = new Map<Buffer, string>();
    return Promise.resolve((bytes: Buffer) => {
      let path = written.get(bytes);
      if (path === undefined) {
        path = join(directory, `${written.size}.fit`);
        writeFileSync(path, bytes);
        written.set(bytes, path);
      }
      const run = spawnSync('gpsbabel', ['-i', 'garmin_fit', '-f', path, '-o', 'gpx', '-F', '-'], {
        maxBuffer: 1 << 30,
      });
      if (run.status !== 0) throw new Error(run.stderr.toString().trim());
      return run.stdout.length;
    });
  },
};

const CONVERTERS = [ours, ffpGpxBuilder, gpsbabel];

async function benchmark(): Promise<void> {
  if (!corpusAvailable) {
    console.log(`bench:convert skipped: ${CORPUS_SKIP_REASON}`);
    return;
  }
  const cpu = cpus();
  console.log(`rideport convert benchmark (FIT → GPX), ${new Date().toISOString()}`);
  console.log(
    `Node ${process.version}, ${process.platform} ${process.arch}, ${cpu.length} × ${cpu[0]?.model ?? '?'}`,
  );
  console.log('MB = 10^6 bytes of FIT input; speed = file size ÷ median run time; converters alternate');

  const loaded = await Promise.all(CONVERTERS.map((converter) => converter.load()));
  const available = CONVERTERS.filter((_, index) => loaded[index] !== null);
  const rows: string[][] = [];
  for (const name of FILES) {
    const path = join(CORPUS_DIR, 'fit', name);
    if (!existsSync(path)) {
      console.log(`bench:convert: ${name} is not in the corpus; its row is skipped`);
      continue;
    }
    const bytes = readFileSync(path);
    const contenders: Contender[] = loaded
      .filter((run) => run !== null)
      .map((run) => ({ run, times: [], failure: null }));
    measure(contenders, bytes);
    const speeds = contenders.map((contender) =>
      contender.failure === null ? bytes.length / MB / (median(contender.times) / 1000) : null,
    );
    const oursSpeed = speeds[0] ?? null;
    rows.push([
      name.replace(/\.fit$/, ''),
      `${(bytes.length / MB).toFixed(2)} MB`,
      ...speeds.map((speed) => (speed === null ? 'fails' : speed.toFixed(1))),
      ...speeds
        .slice(1)
        .map((speed) => (speed === null || oursSpeed === null ? '—' : `${(oursSpeed / speed).toFixed(1)}×`)),
      oursSpeed !== null && oursSpeed >= TARGET_MBPS ? 'pass' : 'FAIL',
    ]);
  }
  const peers = available.slice(1).map((converter) => `ours÷${converter.label}`);
  console.log(
    `\n${formatTable(
      [
        'file',
        'size',
        ...available.map((converter) => `${converter.label} MB/s`),
        ...peers,
        `≥${TARGET_MBPS} MB/s`,
      ],
      rows,
      [
        'left',
        'right',
        ...available.map(() => 'right' as const),
        ...peers.map(() => 'right' as const),
        'left',
      ],
    )}`,
  );
  console.log(
    'ffp = fit-file-parser 6.1.2; gpx-builder 6.0.0 (StravaBuilder); gpsbabel runs as a child process per conversion',
  );
}

await benchmark();
