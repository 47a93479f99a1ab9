/**
 * Parse benchmark (`npm run bench:parse`): our parseRideFile against the peers on the largest corpus
 * files, measured in the same run (docs/contributors/architecture.md, house style: "Benchmarks … print ratios against peers
 * measured in the same run"). Prints MB/s, ours ÷ peer, and memory per parse, each against the targets
 * of the issue:
 *   FIT: ≥ 20× fit-file-parser, and ≥ 60 MB/s on the 1 MB Fenix 2 file;
 *   GPX/TCX/KML: ≥ 15× togeojson+xmldom;
 *   memory: our peak ≤ about 3× the file size + the points.
 * And the columnar reader against the object one and the points+CRC bound (issue 21): parseRideFileColumns
 * at most half the bound's time on FIT files of 1 MB and more, the XML readers gaining in proportion, and
 * its peak memory at most 1.5× the file + the columns.
 * Every parser runs in processes of its own (bench/timing-child.js, bench/parse-memory.js), so none is
 * charged for another's garbage; the processes of a file's parsers take turns, so machine noise falls
 * on all of them alike. Skips (exit 0) when the corpus is absent. Not part of `npm test`: tests never
 * assert wall-clock times.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CORPUS_DIR, CORPUS_SKIP_REASON, corpusAvailable } from '../test/support/corpus.js';
import { PARSERS, type BenchFormat, type BenchParser } from './parsers.js';
import { formatTable } from './table.js';
import { childEnvironment, MEASURE_MS, median, ROOT, timeContenders, TIMING_ROUNDS } from './child-timing.js';

interface BenchFile {
  name: string;
  format: BenchFormat;
}

const FIT_TARGET_RATIO = 20;
const FIT_TARGET_MBPS = 60;
const XML_TARGET_RATIO = 15;
const MEMORY_FILE_MULTIPLE = 3;
/** issue 21: the columnar reader's peak, in file sizes, beside the columns it returns */
const COLUMNS_MEMORY_FILE_MULTIPLE = 1.5;
/** issue 21: the columnar reader's time on FIT files of 1 MB and more, as a share of the points+CRC bound */
const COLUMNS_TARGET_SHARE = 0.5;
const COLUMNS_TARGET_MIN_BYTES = 1e6;
/** The issue's headline file: the 1 MB Garmin Fenix 2 multisport recording. */
const HEADLINE_FIT = 'fitparse__activity-large-fenxi2-multisport.fit';

const FIT_FILES: BenchFile[] = [
  { name: HEADLINE_FIT, format: 'fit' },
  { name: 'muktihari-fit__big_activity.fit', format: 'fit' },
  { name: 'fitparse__2019-02-17-062644-ELEMNT-297E-195-0.fit', format: 'fit' },
];

const XML_FILES: BenchFile[] = [
  { name: 'gpsbabel__mtk_logger_m241_multiple_tracks.gpx', format: 'gpx' },
  { name: 'gpsbabel__gtrnctr_power.gpx', format: 'gpx' },
  { name: 'gpsbabel__gtrnctr_power.tcx', format: 'tcx' },
  { name: 'goldencheetah__2010-04-05-21-45-04.tcx', format: 'tcx' },
  { name: 'gpsbabel__google_ext.kml', format: 'kml' },
  { name: 'gpsbabel__earth-expertgps-track.kml', format: 'kml' },
];

const MB = 1e6;

function corpusPath(file: BenchFile): string {
  return join(CORPUS_DIR, file.format, file.name);
}

function shortName(name: string): string {
  return name.replace(/\.(fit|gpx|tcx|kml)$/, '');
}

function megabytes(bytes: number): string {
  return `${(bytes / MB).toFixed(2)} MB`;
}

function parsersFor(format: BenchFormat): BenchParser[] {
  return PARSERS.filter((parser) => parser.formats.includes(format));
}

interface SpeedResult {
  file: BenchFile;
  size: number;
  points: number | null;
  /** MB/s per parser id, or the failure message */
  speed: Map<string, number | string>;
}

/**
 * Not a parser: making our points again from columns already decoded, and the file's CRC, nothing else
 * (peer-loaders.js). No FIT parser that returns these point objects and checks the CRC can be faster;
 * timed with the FIT parsers, it shows what the FIT ratio target asks against what the output and the
 * CRC alone cost on this machine.
 */
const POINTS_AND_CRC = 'points-and-crc';
/**
 * Not a parser either: our FIT reader up to its drafts (CRC checked, every record decoded into the
 * columns), without the summary and the finishing (peer-loaders.js). The least parseRideFileColumns can
 * take on our decoder: its share of the bound says what the summary could still gain, and what it cannot.
 */
const DECODING_AND_CRC = 'decoding-and-crc';

async function timeFile(file: BenchFile): Promise<SpeedResult> {
  const bytes = readFileSync(corpusPath(file));
  const contenders = [
    ...parsersFor(file.format).map((parser) => parser.id),
    ...(file.format === 'fit' ? [POINTS_AND_CRC, DECODING_AND_CRC] : []),
  ];
  const times = timeContenders('./peer-loaders.js', contenders, file.format, corpusPath(file));
  const speed = new Map<string, number | string>();
  contenders.forEach((id, i) => {
    const ms = times[i]!;
    speed.set(id, typeof ms === 'string' ? ms : bytes.length / MB / (ms / 1000));
  });
  return { file, size: bytes.length, points: await pointCount(file, bytes), speed };
}

/** How many points ours reads from the file, to show the rows compare like with like. */
async function pointCount(file: BenchFile, bytes: Buffer): Promise<number | null> {
  const { parseRideFile } = await import('@rideport/ridefile');
  try {
    return parseRideFile(bytes).tracks.reduce((sum, track) => sum + track.points.length, 0);
  } catch {
    return null;
  }
}

function speedCell(value: number | string | undefined): string {
  if (value === undefined) return '';
  return typeof value === 'string' ? 'fails' : value.toFixed(1);
}

function ratio(ours: number | string | undefined, peer: number | string | undefined): number | null {
  return typeof ours === 'number' && typeof peer === 'number' ? ours / peer : null;
}

function ratioCell(value: number | null): string {
  return value === null ? '—' : `${value.toFixed(1)}×`;
}

function verdict(checks: (boolean | null)[]): string {
  if (checks.some((check) => check === false)) return 'FAIL';
  if (checks.some((check) => check === null)) return 'n/a';
  return 'pass';
}

function fitTable(results: SpeedResult[]): string {
  const rows = results.map((result) => {
    const ours = result.speed.get('ours');
    const ffp = result.speed.get('fit-file-parser');
    const vsFfp = ratio(ours, ffp);
    const vsSdk = ratio(ours, result.speed.get('fitsdk'));
    const headline = result.file.name === HEADLINE_FIT;
    const checks = [vsFfp === null ? null : vsFfp >= FIT_TARGET_RATIO];
    if (headline) checks.push(typeof ours === 'number' ? ours >= FIT_TARGET_MBPS : false);
    const target = `≥${FIT_TARGET_RATIO}× ffp${headline ? `, ≥${FIT_TARGET_MBPS} MB/s` : ''}`;
    return [
      shortName(result.file.name) + (headline ? ' *' : ''),
      megabytes(result.size),
      String(result.points ?? ''),
      speedCell(ours),
      speedCell(result.speed.get('fit-file-parser')),
      ratioCell(vsFfp),
      speedCell(result.speed.get('fitsdk')),
      ratioCell(vsSdk),
      speedCell(result.speed.get(POINTS_AND_CRC)),
      speedCell(typeof ffp === 'number' ? ffp * FIT_TARGET_RATIO : undefined),
      target,
      verdict(checks),
    ];
  });
  return formatTable(
    [
      'FIT file',
      'size',
      'points',
      'ours MB/s',
      'ffp MB/s',
      'ours÷ffp',
      'fitsdk MB/s',
      'ours÷sdk',
      'points+CRC MB/s',
      `${FIT_TARGET_RATIO}× ffp MB/s`,
      'target',
      '',
    ],
    rows,
    ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'left', 'left'],
  );
}

function xmlTable(results: SpeedResult[]): string {
  const rows = results.map((result) => {
    const ours = result.speed.get('ours');
    const vsPeer = ratio(ours, result.speed.get('togeojson'));
    return [
      `${shortName(result.file.name)}.${result.file.format}`,
      megabytes(result.size),
      String(result.points ?? ''),
      speedCell(ours),
      speedCell(result.speed.get('togeojson')),
      ratioCell(vsPeer),
      `≥${XML_TARGET_RATIO}×`,
      verdict([vsPeer === null ? null : vsPeer >= XML_TARGET_RATIO]),
    ];
  });
  return formatTable(
    ['GPX/TCX/KML file', 'size', 'points', 'ours MB/s', 'togeojson MB/s', 'ours÷peer', 'target', ''],
    rows,
    ['left', 'right', 'right', 'right', 'right', 'right', 'left', 'left'],
  );
}

/** ms of one run of `id` on the file, from its speed; a string when it failed. */
function runMs(result: SpeedResult, id: string): number | string | undefined {
  const speed = result.speed.get(id);
  return typeof speed === 'number' ? (result.size / MB / speed) * 1000 : speed;
}

function msCell(value: number | string | undefined): string {
  if (value === undefined) return '—';
  return typeof value === 'string' ? 'fails' : value.toFixed(2);
}

/**
 * parseRideFile, parseRideFileColumns and (FIT) the points+CRC bound, from the same runs as the tables
 * above: the columnar reader's time against the bound's, and what it saves against the object reader.
 */
function columnsTable(results: SpeedResult[]): string {
  const rows = results.map((result) => {
    const objects = runMs(result, 'ours');
    const columns = runMs(result, 'ours-columns');
    const bound = runMs(result, POINTS_AND_CRC);
    const decoding = runMs(result, DECODING_AND_CRC);
    const share = typeof columns === 'number' && typeof bound === 'number' ? columns / bound : null;
    const decodingShare = typeof decoding === 'number' && typeof bound === 'number' ? decoding / bound : null;
    const gain = typeof columns === 'number' && typeof objects === 'number' ? objects / columns : null;
    const checked = result.file.format === 'fit' && result.size >= COLUMNS_TARGET_MIN_BYTES;
    return [
      `${shortName(result.file.name)}.${result.file.format}`,
      megabytes(result.size),
      String(result.points ?? ''),
      msCell(objects),
      msCell(columns),
      ratioCell(gain),
      msCell(bound),
      share === null ? '—' : share.toFixed(2),
      msCell(decoding),
      decodingShare === null ? '—' : decodingShare.toFixed(2),
      checked ? `≤ ${COLUMNS_TARGET_SHARE}` : '',
      checked ? verdict([share === null ? null : share <= COLUMNS_TARGET_SHARE]) : '',
    ];
  });
  return formatTable(
    [
      'file',
      'size',
      'points',
      'objects ms',
      'columns ms',
      'objects÷columns',
      'points+CRC ms',
      'columns÷bound',
      'decoding ms',
      'decoding÷bound',
      'target',
      '',
    ],
    rows,
    ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'left', 'left'],
  );
}

interface RssReport {
  peakGrowthBytes: number;
  retainedBytes: number;
  /** where the peak came from: VmHWM (Linux, reset before the parse) or getrusage maxRSS */
  source: string;
}

interface HeapReport {
  peakHeapBytes: number;
  retainedBytes: number;
}

interface MemoryReport {
  /** median over MEMORY_REPEATS processes */
  rss: RssReport;
  /** a first parse in the process */
  heap: HeapReport;
  /** a second parse, the parser's code compiled by the first */
  warmHeap: HeapReport;
}

/** Fresh processes per (parser, file) for the RSS figure; the median, since RSS moves by a few MB run to run. */
const MEMORY_REPEATS = 3;

function measureMemory(parser: BenchParser, file: BenchFile): MemoryReport | null {
  const reports: RssReport[] = [];
  for (let i = 0; i < MEMORY_REPEATS; i++) {
    const report = memoryChild('rss', parser, file) as RssReport | null;
    if (report === null) return null;
    reports.push(report);
  }
  // The heap figures barely move from run to run (the collections come at the same allocations).
  const heap = memoryChild('heap', parser, file) as HeapReport | null;
  const warmHeap = memoryChild('warm-heap', parser, file) as HeapReport | null;
  if (heap === null || warmHeap === null) return null;
  return {
    rss: {
      peakGrowthBytes: median(reports.map((report) => report.peakGrowthBytes)),
      retainedBytes: median(reports.map((report) => report.retainedBytes)),
      source: reports[0]!.source,
    },
    heap,
    warmHeap,
  };
}

/** One parse in a fresh `node --expose-gc bench/parse-memory.js <mode>` process; null when the parser fails. */
function memoryChild(mode: 'rss' | 'heap' | 'warm-heap', parser: BenchParser, file: BenchFile): unknown {
  // The heap figures are taken with a 1 MB young generation, so garbage is collected as the parse goes.
  const flags = mode === 'rss' ? ['--expose-gc'] : ['--expose-gc', '--max-semi-space-size=1'];
  try {
    const output = execFileSync(
      process.execPath,
      [...flags, join(ROOT, 'bench', 'parse-memory.js'), mode, parser.id, file.format, corpusPath(file)],
      { cwd: ROOT, env: childEnvironment(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
    return JSON.parse(output) as unknown;
  } catch {
    return null;
  }
}

function memoryTable(files: BenchFile[]): string {
  const rows: string[][] = [];
  const sources = new Set<string>();
  for (const file of files) {
    const size = readFileSync(corpusPath(file)).length;
    for (const parser of parsersFor(file.format)) {
      const report = measureMemory(parser, file);
      if (report !== null) sources.add(report.rss.source);
      const isOurs = parser.id === 'ours';
      const isColumns = parser.id === 'ours-columns';
      // The budgets: about 3× the file size plus the points the result keeps (issue 2); for the columnar
      // reader 1.5× the file plus the columns (issue 21).
      const multiple = isColumns ? COLUMNS_MEMORY_FILE_MULTIPLE : MEMORY_FILE_MULTIPLE;
      const budget = report === null ? null : multiple * size + report.warmHeap.retainedBytes;
      const times = (bytes: number): string => `${(bytes / size).toFixed(1)}×`;
      rows.push([
        isOurs ? `${shortName(file.name)}.${file.format}` : '',
        isOurs ? megabytes(size) : '',
        parser.label,
        report === null ? 'fails' : megabytes(report.rss.peakGrowthBytes),
        report === null ? '' : times(report.rss.peakGrowthBytes),
        report === null ? '' : megabytes(report.heap.peakHeapBytes),
        report === null ? '' : megabytes(report.warmHeap.peakHeapBytes),
        report === null ? '' : times(report.warmHeap.peakHeapBytes),
        report === null ? '' : megabytes(report.warmHeap.retainedBytes),
        (isOurs || isColumns) && budget !== null ? `${megabytes(budget)} (${multiple}×)` : '',
        (isOurs || isColumns) && report !== null && budget !== null
          ? `${verdict([report.warmHeap.peakHeapBytes <= budget])} (1st ${verdict([report.heap.peakHeapBytes <= budget])}, RSS ${verdict([report.rss.peakGrowthBytes <= budget])})`
          : '',
      ]);
    }
  }
  const table = formatTable(
    [
      'file',
      'size',
      'parser',
      'peak RSS',
      '× file',
      '1st parse heap',
      '2nd parse heap',
      '× file',
      'retained',
      'budget n×file+retained',
      '2nd heap vs budget',
    ],
    rows,
    ['left', 'right', 'left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'left'],
  );
  return [
    table,
    `peak RSS: from ${[...sources].join(' and ')}, median of ${MEMORY_REPEATS} fresh processes per row`,
  ].join('\n');
}

async function benchmark(): Promise<void> {
  if (!corpusAvailable) {
    console.log(`bench:parse skipped: ${CORPUS_SKIP_REASON}`);
    return;
  }
  const present = (file: BenchFile): boolean => {
    const found = existsSync(corpusPath(file));
    if (!found) console.log(`bench:parse: ${file.name} is not in the corpus; its row is skipped`);
    return found;
  };
  const fitFiles = FIT_FILES.filter(present);
  const xmlFiles = XML_FILES.filter(present);

  const oursFrom = relative(ROOT, fileURLToPath(import.meta.resolve('@rideport/ridefile')));
  const cpu = cpus();
  console.log(`rideport parse benchmark, ${new Date().toISOString()}`);
  console.log(
    `Node ${process.version}, ${process.platform} ${process.arch}, ${cpu.length} × ${cpu[0]?.model ?? '?'}`,
  );
  console.log(`ours: @rideport/ridefile from ${oursFrom}`);
  console.log(
    [
      'MB = 10^6 bytes. Speed = file size ÷ run time. Each parser runs in processes of its own, so none is',
      "charged for another's garbage; per file the parsers take turns, in " +
        `${TIMING_ROUNDS} rounds of one process each. A process warms up`,
      '(≥ 0.5 s and ≥ 30 runs, or 3 s for slow parsers), then times runs for ' +
        `≥ ${MEASURE_MS / TIMING_ROUNDS / 1000} s. Run time = the median over`,
      "the rounds of each process's mean run time. The mean, not the median run: garbage collection comes",
      'every few runs, and a median would leave it out for a parser that collects less often than every',
      'other run. Each result stays referenced until the next run, as a caller would hold it.',
    ].join('\n'),
  );

  const fitResults: SpeedResult[] = [];
  for (const file of fitFiles) fitResults.push(await timeFile(file));
  console.log(`\n${fitTable(fitResults)}`);
  console.log(
    [
      `* the issue's headline file. ffp = fit-file-parser 6.1.2 ({ force: true }), fitsdk = @garmin/fitsdk 21.217`,
      'points+CRC = making the same point objects again from columns decoded beforehand and the CRC of',
      '  the file, nothing else (bench/peer-loaders.js): no parser returning these points and checking the',
      `  CRC, as the issue asks, is faster. ${FIT_TARGET_RATIO}× ffp = what the ratio target asks: where it exceeds`,
      '  points+CRC, the target is beyond this machine for that file.',
    ].join('\n'),
  );

  const xmlResults: SpeedResult[] = [];
  for (const file of xmlFiles) xmlResults.push(await timeFile(file));
  console.log(`\n${xmlTable(xmlResults)}`);
  console.log(
    'togeojson = @tmcw/togeojson 7.1.3 on @xmldom/xmldom 0.9.12, bytes decoded to a string included',
  );

  console.log(`\n${columnsTable([...fitResults, ...xmlResults])}`);
  console.log(
    [
      'objects = parseRideFile, columns = parseRideFileColumns (issue 21), times per run from the tables above',
      `(the same processes, taking turns). Target: columns ≤ ${COLUMNS_TARGET_SHARE}× the points+CRC bound on FIT files`,
      `of ${megabytes(COLUMNS_TARGET_MIN_BYTES)} and more; the XML readers have no such bound (objects÷columns shows their gain).`,
      'decoding = our FIT reader up to its drafts (CRC and every record into the columns; no summary, no finishing):',
      'the least the columnar reader can take on this decoder.',
    ].join('\n'),
  );

  console.log(
    [
      '\nMemory: one parse in a fresh process, after loading the parser and reading the file.',
      '- peak RSS: growth of the resident set over the parse, default engine settings: everything the process',
      '  takes, including the code compiled during a first parse and garbage not yet collected (V8 lets its',
      '  young generation grow to 16 MB per semi-space before collecting).',
      '- 1st parse heap: the most heap + external memory (array buffers) in use during the parse, over the',
      '  state after each garbage collection and at its end, with a 1 MB young generation (a collection at',
      '  least every MB): what the parse itself holds at its high-water mark, to within about 1 MB (the',
      '  garbage made since the last collection). A first parse also counts the parser code the engine',
      '  compiles as it runs (bytecode, type feedback): a fixed cost that outweighs the data of a small file.',
      '  For parsers that make much short-lived garbage it also counts what the small young generation',
      '  promoted and no full collection has freed yet: theirs can exceed their peak RSS.',
      '- 2nd parse heap: the same for a second parse of the file in the process (the first result dropped):',
      '  the memory the parse takes for the data, as in a server or sync engine reading file after file.',
      '- retained: heap + external memory the 2nd result keeps alive after a full collection (for ours: the',
      '  points).',
      "- budget: the issue's 3 × file size + retained; the verdict compares the 2nd parse heap with it, and",
      '  the 1st parse heap and the peak RSS in brackets.',
    ].join('\n'),
  );
  console.log(`\n${memoryTable([...fitFiles, ...xmlFiles])}`);
  console.log(
    `budget: ${MEMORY_FILE_MULTIPLE}× the file + the points for parseRideFile (issue 2), ` +
      `${COLUMNS_MEMORY_FILE_MULTIPLE}× the file + the columns for parseRideFileColumns (issue 21)`,
  );
}

await benchmark();
