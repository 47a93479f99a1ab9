/**
 * @rideport/client: a typed client for the Route and Ride Platform API, v1 and legacy (docs/contributors/architecture.md,
 * layout: "typed API client (v1 + legacy), undici; transport injectable"). Depends on nothing of ours.
 */
export { RideportClient, CLIENT_VERSION, DEFAULT_USER_AGENT } from './client.js';
export type { ClientOptions } from './client.js';
export type { Credentials } from './credentials.js';
export {
  ClientError,
  ClientErrorCode,
  isClientError,
  isRetryable,
  serverCodesOf,
  serverMessagesOf,
} from './errors.js';
export type { ClientErrorDetails } from './errors.js';
export type { CallOptions } from './http.js';
export { LEGACY_VERSION, LegacyApi } from './legacy.js';
export type { LegacyListOptions, PointsMetadata, TaskStatusOptions, UploadedFile } from './legacy.js';
export { LEGACY_VISIBILITY, rideUploadBody } from './multipart.js';
export type { MultipartBody, RideUpload } from './multipart.js';
export type {
  AssociatedObject,
  AuthTokenRecord,
  ClubRecord,
  EventFields,
  EventRecord,
  LegacyList,
  LegacyUser,
  Page,
  PageMeta,
  PaginationMeta,
  QueuedTask,
  RecordWarning,
  RouteRecord,
  SyncItem,
  SyncResult,
  Terrain,
  TrackPoint,
  TrackType,
  TripRecord,
  UserRecord,
  Visibility,
  WithTrackPoints,
} from './records.js';
export { backoffDelayMs, parseRetryAfterMs, realSleep } from './timing.js';
export type { BackoffOptions, Sleep } from './timing.js';
export { injectTransport, undiciTransport } from './transport.js';
export type {
  HeaderValue,
  HttpMethod,
  InjectFunction,
  InjectRequest,
  InjectResponse,
  Transport,
  TransportRequest,
  TransportResponse,
  UndiciTransportOptions,
} from './transport.js';
export { MAX_UPLOAD_ATTEMPTS, UPLOAD_RIDE_DEFAULTS } from './upload-ride.js';
export type { UploadedRide, UploadRideOptions, WaitForTaskOptions } from './upload-ride.js';
export { V1Api } from './v1.js';
export type {
  AllOptions,
  AssetEndpoints,
  ClubEndpoints,
  EventEndpoints,
  ListOptions,
  Listing,
  SharedRoute,
  SyncOptions,
} from './v1.js';
