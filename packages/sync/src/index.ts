export { SyncEngine, folderSourceId } from './engine.js';
export type { SyncEngineOptions } from './engine.js';
export { currentUser, defaultMountRoots, detectDevices } from './devices.js';
export type { DetectedDevice, DeviceVendor, MountRoot } from './devices.js';
export { parseImportWindow } from './status.js';
export type {
  CopyEntry,
  ImportWindow,
  RideHistoryEntry,
  SourceStatus,
  SyncCounts,
  SyncState,
  SyncStatus,
  WaitingFile,
} from './status.js';
export type { RideUploader } from './upload.js';
export { engineControls, renewCredentialsWhenRefused, syncFolders } from './host.js';
export type { EngineControls, SyncFolders } from './host.js';
