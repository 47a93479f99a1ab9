/**
 * @rideport/files (issue 35): Node-only helpers for the files every Rideport process keeps, written once
 * for the server, the sync engine, the host, the command line and the desktop app. It depends on no
 * package of ours.
 */
export {
  writeFileAtomically,
  type FileContent,
  type FileSink,
  type WriteFileOptions,
} from './atomic-write.js';
export { someCause } from './causes.js';
export { isDiskFull } from './disk-full.js';
export {
  createOwnerOnlyFile,
  makeOwnerOnlyFolder,
  OWNER_ONLY_FILE_MODE,
  OWNER_ONLY_FOLDER_MODE,
  ownerOnlyDirectory,
  tightenOwnerOnly,
  type OwnerOnlyRefusal,
} from './owner-only.js';
