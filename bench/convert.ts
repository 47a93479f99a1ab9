/**
 * Conversion benchmark (`npm run bench:convert`, issue 3): FIT → GPX on the largest corpus files, ours
 * against the obvious ways, in MB of FIT input per second. The contenders are in convert-loaders.js;
 * each runs in processes of its own, in rounds, taking turns (child-timing.ts).
 *
 * Target: ours ≥ 30 MB/s of input. Skips (exit 0) when the corpus is absent. Not part of `npm test`.
 */
import { existsSync, statSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { CORPUS_DIR, CORPUS_SKIP_REASON, corpusAvailable } from '../test/support/corpus.js';
import { MEASURE_MS, timeContenders, TIMING_ROUNDS } from './child-timing.js';
import { formatTable } from './table.js';

const TARGET_MBPS = 30;
const MB = 1e6;
const FILES = [
  'muktihari-fit__big_activity.fit',
  'fitparse__activity-large-fenxi2-multisport.fit',
  'fitparse__2019-02-17-062644-ELEMNT-297E-195-0.fit',
  'fitparse__garmin-edge-500-activity.fit',
];
const CONTENDERS = ['ours', 'ffp+gpx-builder', 'gpsbabel'] as const;

function benchmark(): void {
  if (!corpusAvailable) {
    console.log(`bench:convert skipped: ${CORPUS_SKIP_REASON}`);
    return;
  }
  const cpu = cpus();
  console.log(`rideport convert benchmark (FIT → GPX), ${new Date().toISOString()}`);
  console.log(
    `Node ${process.version}, ${process.platform} ${process.arch}, ${cpu.length} × ${cpu[0]?.model ?? '?'}`,
  );
  console.log(
    `MB = 10^6 bytes of FIT input; speed = file size ÷ run time. Each contender runs in processes of its own, ` +
      `${TIMING_ROUNDS} rounds taking turns, ≥ ${MEASURE_MS / TIMING_ROUNDS / 1000} s of runs each after warm-up; ` +
      'run time = the median over the rounds of each process’s mean run time.',
  );
  const rows: string[][] = [];
  for (const name of FILES) {
    const path = join(CORPUS_DIR, 'fit', name);
    if (!existsSync(path)) {
      console.log(`bench:convert: ${name} is not in the corpus; its row is skipped`);
      continue;
    }
    const size = statSync(path).size;
    const speeds = timeContenders('./convert-loaders.js', CONTENDERS, 'fit', path).map((ms) =>
      typeof ms === 'string' ? null : size / MB / (ms / 1000),
    );
    const ours = speeds[0] ?? null;
    rows.push([
      name.replace(/\.fit$/, ''),
      `${(size / MB).toFixed(2)} MB`,
      ...speeds.map((speed) => (speed === null ? 'fails' : speed.toFixed(1))),
      ...speeds
        .slice(1)
        .map((speed) => (speed === null || ours === null ? '—' : `${(ours / speed).toFixed(1)}×`)),
      ours !== null && ours >= TARGET_MBPS ? 'pass' : 'FAIL',
    ]);
  }
  const peers = CONTENDERS.slice(1).map((id) => `ours÷${id}`);
  console.log(
    `\n${formatTable(
      ['file', 'size', ...CONTENDERS.map((id) => `${id} MB/s`), ...peers, `≥${TARGET_MBPS} MB/s`],
      rows,
      [
        'left',
        'right',
        ...CONTENDERS.map(() => 'right' as const),
        ...peers.map(() => 'right' as const),
        'left',
      ],
    )}`,
  );
  console.log(
    'ours = gpxChunks(parseRideFile(bytes)) written to /dev/null; ffp = fit-file-parser 6.1.2 with gpx-builder 6.0.0 ' +
      '(StravaBuilder); gpsbabel 1.8 runs as a child process per conversion',
  );
}

benchmark();
