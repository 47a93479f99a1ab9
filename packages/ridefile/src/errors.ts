/**
 * The error catalogue of @rideport/ridefile. Callers branch on `code`, never on message text
 * (docs/contributors/architecture.md, house style). No other exception type escapes `parseRideFile`.
 */

export const RideFileErrorCode = {
  /** the bytes are not FIT, TCX, GPX, KML or KMZ (a ZIP without a .kml, or compressed in a way not read) */
  UNKNOWN_FORMAT: 'RIDEFILE_UNKNOWN_FORMAT',
  /** zero bytes, or nothing after gunzip */
  EMPTY: 'RIDEFILE_EMPTY',
  /** the format is recognised but not a single point or track could be read (or a ZIP is corrupt) */
  MALFORMED: 'RIDEFILE_MALFORMED',
  /** the file is well formed but holds no track with points */
  NO_TRACKS: 'RIDEFILE_NO_TRACKS',
  /** gunzip output or the point count exceeds the configured limit */
  TOO_LARGE: 'RIDEFILE_TOO_LARGE',
  /** the file (an entry of a ZIP archive) is encrypted, with a password this library does not have */
  ENCRYPTED: 'RIDEFILE_ENCRYPTED',
  /** an unexpected internal failure; always a bug in this library */
  INTERNAL: 'RIDEFILE_INTERNAL',
} as const;

export type RideFileErrorCode = (typeof RideFileErrorCode)[keyof typeof RideFileErrorCode];

/** Warning codes: the data was read, but something about the file was wrong. */
export const RideFileWarningCode = {
  TRUNCATED: 'RIDEFILE_TRUNCATED',
  BAD_CRC: 'RIDEFILE_BAD_CRC',
  BAD_HEADER_CRC: 'RIDEFILE_BAD_HEADER_CRC',
  MALFORMED_XML: 'RIDEFILE_MALFORMED_XML',
  RELATIVE_TIME: 'RIDEFILE_RELATIVE_TIME',
  SKIPPED_DATA: 'RIDEFILE_SKIPPED_DATA',
  TRAILING_DATA: 'RIDEFILE_TRAILING_DATA',
  /** the device clock jumped mid-track; the jump is left out of the times (Summary.clockJumps) */
  CLOCK_JUMP: 'RIDEFILE_CLOCK_JUMP',
  /**
   * a text of the file (a name, the creator, the device) was longer than the library keeps; its start
   * is kept (file-text.ts, issue 17), and the message names the field and its length
   */
  TEXT_SHORTENED: 'RIDEFILE_TEXT_SHORTENED',
} as const;

export type RideFileWarningCode = (typeof RideFileWarningCode)[keyof typeof RideFileWarningCode];

/**
 * The one error `parseRideFile` and `parseFitFile` throw, whatever the bytes: `code` says what
 * happened (a `RideFileErrorCode`, for programs), `message` says it in words (for people).
 */
export class RideFileError extends Error {
  override readonly name = 'RideFileError';
  readonly code: RideFileErrorCode;

  constructor(code: RideFileErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** Whether `value` is a `RideFileError` (a type guard for `catch` blocks). */
export function isRideFileError(value: unknown): value is RideFileError {
  return value instanceof RideFileError;
}
