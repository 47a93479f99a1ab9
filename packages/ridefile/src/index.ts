export { parseFitFile, parseRideFile, parseRideFileColumns } from './parse.js';
export { checkRideFileComplete } from './complete.js';
export type { Completeness } from './complete.js';
export { elevationAndTemperature, trackFromPoints } from './from-points.js';
export type { TrackFromPointsOptions } from './from-points.js';
export type { ParseOptions } from './parse.js';
export { RideFileError, RideFileErrorCode, RideFileWarningCode, isRideFileError } from './errors.js';
export { TRACK_POINT_KEYS } from './model.js';
export {
  boundedFileText,
  boundedWarnings,
  codePointCount,
  FILE_TEXT_MAX_CHARS,
  MAX_WARNINGS_PER_CODE,
  MESSAGE_MAX_CHARS,
} from './file-text.js';
export type { FileTextField } from './file-text.js';
export { haversineMeters } from './geo.js';
export { isGzip } from './gzip.js';
export { inflatedSize } from './inflated-size.js';
export { RIDE_FILE_EXTENSION } from './sniff.js';
export {
  DEFAULT_MAX_ZIP_ENTRIES,
  isZip,
  readZipEntries,
  unzipEntry,
  unzipEntryEach,
  zipEntryGzip,
} from './zip.js';
export { lastPointTime, saidWarnings, warningWords } from './warning-words.js';
export type { WarnedTrack, WarningWords } from './warning-words.js';
export type { ZipEntry } from './zip.js';
export { kmzDocument } from './kmz.js';
export {
  analyseRide,
  analysisColumns,
  eachSecond,
  MAX_HEART_RATE_ZONES,
  normalizedPower,
  POWER_CURVE_SECONDS,
  POWER_ZONES,
  THRESHOLD_HEART_RATE_ZONES,
} from './analysis.js';
export type {
  AnalysisColumns,
  HeartRateAnalysis,
  PowerAnalysis,
  PowerCurvePoint,
  RideAnalysis,
  Thresholds,
  ZoneTable,
  ZoneTime,
} from './analysis.js';
export type {
  Bounds,
  ClockJump,
  ColumnarRideFile,
  ColumnarTrack,
  Lap,
  NumberColumn,
  Position,
  RecordedTotals,
  RecordingIdentity,
  RideFile,
  RideFileFormat,
  SensorDevice,
  Stat,
  Summary,
  Terrain,
  Track,
  TrackColumns,
  TrackDetails,
  TrackKind,
  TrackPoint,
  TrackPointKey,
  TrackSensors,
  TrackType,
  Warning,
} from './model.js';
export {
  csvChunks,
  CSV_HEADER,
  geoJsonChunks,
  gpxChunks,
  tcxChunks,
  writeCsv,
  writeGeoJson,
  writeGpx,
  writeTcx,
  WRITE_FORMATS,
  WRITERS,
} from './write/index.js';
export type { WriteFormat, WriteInput, WriteOptions } from './write/index.js';
