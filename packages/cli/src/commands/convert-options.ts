/** The table of `rideport convert` (options.ts, issue 35): its help and its parseArgs options. */
import { WRITE_FORMATS } from '@rideport/ridefile';
import { HELP_OPTION, type CommandSpec } from '../options.js';

export const TARGETS = ['points', 'gpx', 'tcx', 'geojson', 'csv'] as const;
export type Target = (typeof TARGETS)[number];

/** The --out extensions that name a writer, `.json` for points. */
export const OUT_EXTENSIONS = [
  '.json',
  ...Object.values(WRITE_FORMATS).map((format) => `.${format.extension}`),
].join(', ');

export const CONVERT_OPTIONS = [
  {
    name: 'to',
    type: 'string',
    value: '<target>',
    defaultWords: `points on stdout; with --out, the file's extension, one of ${OUT_EXTENSIONS}, and another extension without --to is a usage error`,
    description: `output form: ${TARGETS.join(', ')}`,
  },
  {
    name: 'out',
    type: 'string',
    value: '<file>',
    description:
      'write to this file (replaced whole, never left half-written) instead of stdout, and say on stderr what was written (format, tracks, points)',
  },
  HELP_OPTION,
] as const;

export const convertSpec: CommandSpec = {
  name: 'convert',
  synopsis: `<file> [--to ${TARGETS.join('|')}] [--out <file>]`,
  summary: 'write a ride file as JSON points, GPX, TCX, GeoJSON or CSV',
  about: [
    "Reads a FIT, TCX, GPX, KML or KMZ file (or a .gz of one) and writes it in another form. The file's warnings (a file cut off, a bad checksum) are said on stderr.",
  ],
  groups: [{ title: 'Options', options: CONVERT_OPTIONS }],
  notes: [
    'Targets: points: {"format", "tracks": [{"kind", "name", "points": [...]}]} as JSON; gpx: GPX 1.1 with Garmin TrackPointExtension v2 (rides as <trk>, routes as <rte>); tcx: TrainingCenterDatabase v2 (rides as Activity, routes as Course); geojson: a FeatureCollection, one LineString per track, channels per point; csv: one row per point, a header with units.',
  ],
};
