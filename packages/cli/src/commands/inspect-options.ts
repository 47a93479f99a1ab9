/** The table of `rideport inspect` (options.ts, issue 35): its help and its parseArgs options. */
import { HELP_OPTION, type CommandSpec } from '../options.js';

export const INSPECT_OPTIONS = [
  {
    name: 'json',
    type: 'boolean',
    description:
      'print the ride file without its points, with per track the point count, the channels present (with counts), the wheel-sensor verdict and the summary',
  },
  HELP_OPTION,
] as const;

export const inspectSpec: CommandSpec = {
  name: 'inspect',
  synopsis: '<file> [--json]',
  summary: 'report what a ride file holds',
  about: [
    "Reads a FIT, TCX, GPX, KML or KMZ file (or a .gz of one) and reports what it holds: format, creator, warnings, and per track the sport, start, channels, distance, times, elevation, speed, heart rate, cadence and power, device, whether speed and distance come from a wheel sensor (and why), laps and bounds. The file's warnings are said on stderr too.",
  ],
  groups: [{ title: 'Options', options: INSPECT_OPTIONS }],
};
