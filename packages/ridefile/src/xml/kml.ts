import {
  PointColumns,
  ReadProgress,
  SLOT_C,
  SLOT_D,
  SLOT_H,
  SLOT_P,
  SLOT_S,
  SLOT_TEMPERATURE,
} from '../columns.js';
import {
  noWheelSensor,
  pausesBetweenSegments,
  UNKNOWN_RECORDING,
  type ReaderOptions,
  type ReaderResult,
  type TrackDraft,
} from '../draft.js';
import { RideFileWarningCode } from '../errors.js';
import { boundedFileText } from '../file-text.js';
import type { TrackKind, Warning } from '../model.js';
import {
  endRow,
  endRowsFrom,
  hasAnyTime,
  latitudeOrNaN,
  longitudeOrNaN,
  setChannelValue,
  setValue,
} from './rows.js';
import { readXml } from './sax.js';
import { expectedByteLength, type FileBytes } from '../streamed-bytes.js';
import { parseIsoSeconds, parseNumber, readNumberFields } from './values.js';

/** docs/contributors/architecture.md: KML never has a wheel sensor; nothing in it says where speed or distance came from. */
const KML_WHEEL_REASON = 'KML does not say where speed or distance came from';

/** The per-point channels of `SimpleArrayData`, by its `name` (lower-cased); other names are ignored. */
const CHANNELS: ReadonlyMap<string, number> = new Map([
  ['heartrate', SLOT_H],
  ['heart_rate', SLOT_H],
  ['hr', SLOT_H],
  ['cadence', SLOT_C],
  ['power', SLOT_P],
  ['temperature', SLOT_TEMPERATURE],
  // recorded speed and distance: for the summary only, never in the points (no wheel sensor)
  ['speed', SLOT_S],
  ['distance', SLOT_D],
]);

/**
 * What one Placemark becomes: its Tracks joined (a MultiTrack is one ride) and, separately, its
 * LineStrings joined into one route. A Track or LineString outside any Placemark is its own group.
 */
interface Group {
  /** depth of the element that owns the group: the Placemark, or the lone Track/LineString */
  depth: number;
  name: string | null;
  track: PointColumns | null;
  line: PointColumns | null;
  /** rows where a second or later Track of a MultiTrack begins: OpenTracks writes one per pause */
  segmentStarts: number[];
  /** what was wrong with this group alone: its name shortened (issue 17) */
  warnings: Warning[];
}

/**
 * A `Track` being read. Its `when`s, `coord`s and `SimpleArrayData` values are separate lists aligned by
 * index, in any order, so the i-th of each writes straight into row `base + i`.
 */
interface OpenTrack {
  depth: number;
  base: number;
  whenCount: number;
  coordCount: number;
  /** the channel slot of the SimpleArrayData being read */
  channel: number | null;
  channelDepth: number;
  valueCount: number;
}

/**
 * Reads KML (issue 2): `gx:Track`/`Track` (alone or in a `MultiTrack`) become one track per Placemark — a
 * ride when it has times, else a route — and `LineString`s become routes. Point placemarks are ignored.
 * Elements are matched by local name, so `gx:Track` and the KML 2.3 unprefixed `Track` read the same.
 */
export function readKml(bytes: FileBytes, options: ReaderOptions): ReaderResult {
  const warnings: Warning[] = [];
  const drafts: TrackDraft[] = [];
  let depth = 0;
  let group: Group | null = null;
  let track: OpenTrack | null = null;
  let lineDepth = -1;
  // gx:Track's points come as its text is read, so the text read says how many are to come; a
  // LineString's come all at once from its whole text, so its columns double as before.
  const progress = new ReadProgress(expectedByteLength(bytes));

  const openGroup = (ownerDepth: number): Group => {
    group ??= { depth: ownerDepth, name: null, track: null, line: null, segmentStarts: [], warnings: [] };
    return group;
  };

  readXml(
    bytes,
    {
      open(name, attributes) {
        depth += 1;
        if (track !== null) {
          if (name === 'SimpleArrayData') {
            track.channel = CHANNELS.get((attributes['name'] ?? '').trim().toLowerCase()) ?? null;
            track.channelDepth = depth;
            track.valueCount = 0;
          }
          return;
        }
        if (name === 'Placemark') {
          openGroup(depth);
        } else if (name === 'Track') {
          const owner = openGroup(depth);
          const columns = (owner.track ??= new PointColumns(options.maxPoints, undefined, progress));
          if (columns.length > 0) owner.segmentStarts.push(columns.length);
          track = {
            depth,
            base: columns.length,
            whenCount: 0,
            coordCount: 0,
            channel: null,
            channelDepth: -1,
            valueCount: 0,
          };
        } else if (name === 'LineString' && lineDepth < 0) {
          openGroup(depth);
          lineDepth = depth;
        }
      },

      close(name, text, droppedChars) {
        const closingDepth = depth;
        depth -= 1;
        if (group === null) return;
        const columns = group.track;
        if (track !== null && columns !== null) {
          if (closingDepth === track.depth) {
            endTrack(columns, track, warnings);
            track = null;
          } else if (closingDepth === track.depth + 1) {
            if (name === 'when') writeWhen(columns, track.base + track.whenCount++, text);
            else if (name === 'coord') writeCoord(columns, track.base + track.coordCount++, text);
            return;
          } else {
            if (closingDepth === track.channelDepth) track.channel = null;
            else if (name === 'value' && track.channel !== null && closingDepth === track.channelDepth + 1) {
              const row = ensureRow(columns, track.base + track.valueCount++);
              setChannelValue(columns, track.channel, row, parseNumber(text));
            }
            return;
          }
        }
        if (lineDepth >= 0) {
          if (closingDepth === lineDepth) lineDepth = -1;
          else if (name === 'coordinates' && closingDepth === lineDepth + 1) {
            readLineString((group.line ??= new PointColumns(options.maxPoints)), text);
          }
        }
        if (name === 'name' && closingDepth === group.depth + 1) {
          group.name = boundedFileText('name', text, group.warnings, droppedChars);
        } else if (closingDepth === group.depth) {
          pushDrafts(drafts, group);
          group = null;
        }
      },
    },
    warnings,
    // A LineString's `coordinates` is the whole route in one text.
    { wholeText: WHOLE_TEXT, progress },
  );

  return { creator: null, drafts, warnings };
}

const WHOLE_TEXT: ReadonlySet<string> = new Set(['coordinates']);

/** Appends empty rows up to `row` (a later list of the Track may be longer than the earlier ones). */
function ensureRow(columns: PointColumns, row: number): number {
  while (columns.length <= row) columns.append();
  return row;
}

function writeWhen(columns: PointColumns, row: number, text: string): void {
  ensureRow(columns, row);
  setValue(columns.t, row, parseIsoSeconds(text));
}

/** Fields of one `gx:coord` or `coordinates` tuple (lon, lat, alt), reused for every tuple. */
const fields = new Float64Array(3);

/** `gx:coord` text is "lon lat [alt]"; an empty `<gx:coord/>` still takes its index (OpenTracks writes them). */
function writeCoord(columns: PointColumns, row: number, text: string): void {
  ensureRow(columns, row);
  if (readNumberFields(text, 0, text.length, true, fields) < 2) return;
  writePosition(columns, row);
}

/** Writes the tuple in `fields` into `row`: the position when both halves are readable, the altitude if any. */
function writePosition(columns: PointColumns, row: number): void {
  const lon = longitudeOrNaN(fields[0]!);
  const lat = latitudeOrNaN(fields[1]!);
  if (!Number.isNaN(lon) && !Number.isNaN(lat)) {
    columns.x[row] = lon;
    columns.y[row] = lat;
  }
  setValue(columns.e, row, fields[2]!);
}

/**
 * Ends a Track: rows are as many as the longer of its `when` and `coord` lists (values of SimpleArrayData
 * beyond them are dropped), empty rows go, and unequal lists are reported: what aligns by index is
 * paired and the extra rows keep what they have.
 */
function endTrack(columns: PointColumns, track: OpenTrack, warnings: Warning[]): void {
  const { base, whenCount, coordCount } = track;
  const end = base + Math.max(whenCount, coordCount);
  while (columns.length > end) columns.dropLast();
  endRowsFrom(columns, base);
  if (whenCount > 0 && whenCount !== coordCount) {
    warnings.push({
      code: RideFileWarningCode.SKIPPED_DATA,
      message:
        `a KML track has ${whenCount} <when> but ${coordCount} <coord>; they were paired by position ` +
        `and the ${Math.abs(whenCount - coordCount)} extra point(s) have ${whenCount > coordCount ? 'no position' : 'no time'}`,
    });
  }
}

/** `coordinates` text: tuples "lon,lat[,alt]" separated by whitespace. */
function readLineString(columns: PointColumns, text: string): void {
  if (!isAscii(text)) {
    readLineStringText(columns, text);
    return;
  }
  const length = text.length;
  let i = 0;
  while (i < length) {
    while (i < length && isAsciiSpace(text.charCodeAt(i))) i++;
    if (i === length) break;
    const start = i;
    while (i < length && !isAsciiSpace(text.charCodeAt(i))) i++;
    readNumberFields(text, start, i, false, fields);
    const row = columns.append();
    writePosition(columns, row);
    endRow(columns, row);
  }
}

/** `readLineString` for text with characters beyond ASCII, which may include other whitespace. */
function readLineStringText(columns: PointColumns, text: string): void {
  for (const tuple of text.split(/\s+/)) {
    if (tuple === '') continue;
    readNumberFields(tuple, 0, tuple.length, false, fields);
    const row = columns.append();
    writePosition(columns, row);
    endRow(columns, row);
  }
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) >= 0x80) return false;
  }
  return true;
}

/** The whitespace `\s` matches within ASCII: tab, LF, VT, FF, CR, space. */
function isAsciiSpace(code: number): boolean {
  return code === 0x20 || (code >= 0x09 && code <= 0x0d);
}

function pushDrafts(drafts: TrackDraft[], group: Group): void {
  if (group.track !== null && group.track.length > 0) {
    const draft = toDraft(group.track, hasAnyTime(group.track) ? 'ride' : 'route', group);
    draft.pauses = pausesBetweenSegments(group.track, group.segmentStarts);
    drafts.push(draft);
  }
  if (group.line !== null && group.line.length > 0) drafts.push(toDraft(group.line, 'route', group));
}

function toDraft(columns: PointColumns, kind: TrackKind, { name, warnings }: Group): TrackDraft {
  return {
    kind,
    name,
    sport: null,
    subSport: null,
    startTime: null,
    columns,
    laps: [],
    sensors: noWheelSensor(KML_WHEEL_REASON),
    recorded: null,
    calories: null,
    device: null,
    recording: UNKNOWN_RECORDING,
    warnings: [...warnings],
  };
}
