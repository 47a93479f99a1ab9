export { buildServer, type BuildServerOptions } from './app.js';
export type { PagePlugin } from './context.js';
export { DEFAULT_CONNECTION_LIMITS, DEFAULT_LIMITS, DEFAULT_RATE_LIMITS } from './options.js';
export type { RateLimits, ServerLimits, ServerOptions } from './options.js';
export type { ConnectionLimits } from './ports/connection-limits.js';
export {
  ConflictError,
  DataDirectoryError,
  DataDirectoryErrorCode,
  SERVER_ERROR_CODES,
  SERVER_ERRORS,
  ServerError,
  ServerErrorCode,
  UploadErrorCode,
} from './errors.js';
export { claimDataDirectory } from './data-directory/claim.js';
export type { DataDirectoryHolder, DataDirectoryLock } from './data-directory/claim.js';
export { databasePathIn, openPlatform } from './platform.js';
export { startUploadWorker, type UploadWorker } from './queue/worker-process.js';
export { databaseTargetOf, shownDatabaseUrl } from './db/target.js';
export { parseMasterKey } from './master-key.js';
export type { Platform } from './platform.js';
export type { ApiClient, Store } from './store/index.js';
export type { LocalSync, LocalSyncStatus } from './ports/local-sync.js';
export { LOCAL_ACCOUNT_FILE } from './data-layout.js';
export { machineTimeZone } from './activity-words.js';
export { issueSignInLink } from './pages/sign-in-link.js';
export { runningServerUrl } from './data-directory/holder.js';
export { SIGN_IN_LINK_LIFETIME_MS } from './store/sign-in-links.js';
export { keepYoungGenerationSmall } from './young-generation.js';
