/**
 * @rideport/host (issue 35): what runs Rideport as a process on a machine, written once for
 * `rideport up`, `rideport serve` and the desktop app: the platform server with the dashboard
 * (startPlatformServer), the local platform of server, account and sync engine (startLocalPlatform),
 * the local account. The long-running process's memory settings are subpaths of their own
 * (`@rideport/host/long-running`, `@rideport/host/freed-memory`), which load no server (issue 35).
 */
export { HostError, HostErrorCode } from './errors.js';
export { ensureLocalAccount, LOCAL_ACCOUNT_EMAIL } from './local-account.js';
export type { EnsuredAccount, LocalAccount } from './local-account.js';
export { startLocalPlatform } from './local-platform.js';
export type { LocalPlatform, LocalPlatformOptions } from './local-platform.js';
export { startPlatformServer } from './platform-server.js';
export type { PlatformServer, PlatformServerSettings } from './platform-server.js';
