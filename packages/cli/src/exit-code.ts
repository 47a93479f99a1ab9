/** Exit statuses of `rideport` (docs/contributors/architecture.md, "`rideport` command"). */
export const ExitCode = {
  OK: 0,
  /** the operation failed: unreadable file, not a ride file, cannot write the output */
  FAILED: 1,
  /** bad usage: unknown command or option, missing argument */
  USAGE: 2,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
