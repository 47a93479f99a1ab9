export { buildServer } from './app.js';
export { DEFAULT_LIMITS, DEFAULT_RATE_LIMITS } from './options.js';
export type { RateLimits, ServerLimits, ServerOptions } from './options.js';
export { ApiError, ApiErrorCode } from './errors.js';
export { databasePathIn, openPlatform } from './platform.js';
export type { Platform } from './platform.js';
export type { ApiClient, Store } from './store/index.js';
export type { LocalSync } from './api/v1/local-sync.js';
