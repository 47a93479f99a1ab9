/**
 * The parsers `bench/parse.ts` compares (issue: parse benchmark against peers), for its report. The
 * calls themselves live in bench/peer-loaders.js, loaded only by the measuring child processes (one
 * parser per process): keep the ids of the two alike.
 */

export type BenchFormat = 'fit' | 'gpx' | 'tcx' | 'kml';

export interface BenchParser {
  /** the id the measuring children know the parser by (bench/peer-loaders.js) */
  id: ParserId;
  /** name shown in the tables */
  label: string;
  formats: readonly BenchFormat[];
}

export type ParserId = 'ours' | 'ours-columns' | 'fit-file-parser' | 'fitsdk' | 'togeojson';

export const PARSERS: readonly BenchParser[] = [
  { id: 'ours', label: '@rideport/ridefile', formats: ['fit', 'gpx', 'tcx', 'kml'] },
  // parseRideFileColumns (issue 21): timed and measured beside parseRideFile, in its own table.
  { id: 'ours-columns', label: 'ridefile columns', formats: ['fit', 'gpx', 'tcx', 'kml'] },
  { id: 'fit-file-parser', label: 'fit-file-parser', formats: ['fit'] },
  { id: 'fitsdk', label: '@garmin/fitsdk', formats: ['fit'] },
  { id: 'togeojson', label: 'togeojson+xmldom', formats: ['gpx', 'tcx', 'kml'] },
];
