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
import { boundedFileText } from '../file-text.js';
import type { Warning } from '../model.js';
import { endRow, hasAnyTime, parseLatitude, parseLongitude, setChannelValue, setValue } from './rows.js';
import { readXml } from './sax.js';
import { expectedByteLength, type FileBytes } from '../streamed-bytes.js';
import { normalizeSport } from './sport.js';
import { parseIsoSeconds, parseNumber } from './values.js';

/** docs/contributors/architecture.md: GPX never has a wheel sensor; nothing in it says where speed or distance came from. */
const GPX_WHEEL_REASON = 'GPX does not say where speed or distance came from';

/** A `trk` or `rte` being read. */
interface OpenTrack {
  isRoute: boolean;
  /** depth of the `trk`/`rte` element (the root is 1) */
  depth: number;
  columns: PointColumns;
  name: string | null;
  sport: string | null;
  /** the rows where a `trkseg` after the first begins: the recorder paused or lost its fix (GPX 1.1) */
  segmentStarts: number[];
  /** what was wrong with this track alone: its name shortened (issue 17) */
  warnings: Warning[];
}

/**
 * Reads GPX 1.0/1.1 (issue 2): every `trk` is one track (its `trkseg`s joined in order), a ride when any
 * point has a time and a route otherwise; every `rte` is a route. Waypoints are ignored.
 *
 * Elements are matched by local name and by where they sit, never by prefix: a `<time>` counts only as a
 * direct child of a point (not in `<metadata>`), and the sensor values are recognised in any extension
 * under the point, whatever its prefix or namespace (Garmin TrackPointExtension v1/v2, Strava's bare
 * `<power>`, PowerExtension, cluetrust gpxdata, OpenTracks).
 */
export function readGpx(bytes: FileBytes, options: ReaderOptions): ReaderResult {
  const warnings: Warning[] = [];
  const drafts: TrackDraft[] = [];
  let creator: string | null = null;
  let depth = 0;
  let track: OpenTrack | null = null;
  /** row of the point being read, -1 outside points */
  let row = -1;
  let pointDepth = -1;
  const progress = new ReadProgress(expectedByteLength(bytes));

  readXml(
    bytes,
    {
      open(name, attributes, cutAttributes) {
        depth += 1;
        if (row >= 0) return; // values inside a point are read when their element closes
        if (depth === 1) {
          if (name === 'gpx') {
            creator = boundedFileText(
              'creator',
              attributes['creator'],
              warnings,
              cutAttributes?.['creator'] ?? 0,
            );
          }
        } else if (track === null) {
          if (name === 'trk' || name === 'rte') {
            track = {
              isRoute: name === 'rte',
              depth,
              columns: new PointColumns(options.maxPoints, undefined, progress),
              name: null,
              sport: null,
              segmentStarts: [],
              warnings: [],
            };
          }
        } else if (name === 'trkseg' && depth === track.depth + 1) {
          if (track.columns.length > 0) track.segmentStarts.push(track.columns.length);
        } else if (name === (track.isRoute ? 'rtept' : 'trkpt')) {
          const { columns } = track;
          row = columns.append();
          pointDepth = depth;
          const lat = parseLatitude(attributes['lat'] ?? '');
          const lon = parseLongitude(attributes['lon'] ?? '');
          if (!Number.isNaN(lat) && !Number.isNaN(lon)) {
            columns.y[row] = lat;
            columns.x[row] = lon;
          }
        }
      },

      close(name, text, droppedChars) {
        const closingDepth = depth;
        depth -= 1;
        if (track === null) return;
        if (row >= 0) {
          if (closingDepth === pointDepth) {
            endRow(track.columns, row);
            row = -1;
            pointDepth = -1;
          } else {
            readPointValue(track.columns, row, name, text, closingDepth === pointDepth + 1);
          }
          return;
        }
        if (closingDepth === track.depth) {
          if (track.columns.length > 0) drafts.push(toDraft(track));
          track = null;
        } else if (closingDepth === track.depth + 1) {
          if (name === 'name') track.name = boundedFileText('name', text, track.warnings, droppedChars);
          else if (name === 'type') track.sport = normalizeSport(text);
        }
      },
    },
    warnings,
    { progress },
  );

  return { creator, drafts, warnings };
}

/**
 * One value inside a point. `ele` and `time` count only as direct children of the point; the rest are
 * recognised at any depth, because extensions nest them differently (and sometimes wrongly, e.g.
 * OpenTracks puts `pwr:PowerInWatts` inside `gpxtpx:TrackPointExtension`).
 */
function readPointValue(
  columns: PointColumns,
  row: number,
  name: string,
  text: string,
  direct: boolean,
): void {
  switch (name) {
    case 'ele':
      if (direct) setValue(columns.e, row, parseNumber(text));
      break;
    case 'time':
      if (direct) setValue(columns.t, row, parseIsoSeconds(text));
      break;
    // GPX 1.0 `<speed>` child of the point, TrackPointExtension v2 `speed`, OpenTracks: the recorded
    // speed, used for the summary only (no wheel sensor, so never in the output points).
    case 'speed':
      setChannelValue(columns, SLOT_S, row, parseNumber(text));
      break;
    case 'hr':
      setChannelValue(columns, SLOT_H, row, parseNumber(text));
      break;
    case 'cad':
    case 'cadence':
      setChannelValue(columns, SLOT_C, row, parseNumber(text));
      break;
    case 'atemp':
    case 'temp':
      setChannelValue(columns, SLOT_TEMPERATURE, row, parseNumber(text));
      break;
    case 'power':
    case 'PowerInWatts':
      setChannelValue(columns, SLOT_P, row, parseNumber(text));
      break;
    // cluetrust gpxdata and OpenTracks: distance from the start, the summary's distance.
    case 'distance':
      setChannelValue(columns, SLOT_D, row, parseNumber(text));
      break;
    default:
      break;
  }
}

function toDraft(track: OpenTrack): TrackDraft {
  return {
    kind: !track.isRoute && hasAnyTime(track.columns) ? 'ride' : 'route',
    name: track.name,
    sport: track.sport,
    subSport: null,
    startTime: null,
    columns: track.columns,
    laps: [],
    sensors: noWheelSensor(GPX_WHEEL_REASON),
    recorded: null,
    calories: null,
    device: null,
    pauses: pausesBetweenSegments(track.columns, track.segmentStarts),
    recording: UNKNOWN_RECORDING,
    warnings: track.warnings,
  };
}
