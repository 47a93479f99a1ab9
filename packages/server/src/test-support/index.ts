/**
 * `@rideport/server/test-support` (issue 35): the server's test helpers for the tests of packages built
 * on it (the dashboard's): a server on a fresh database with a clock the test moves, accounts and
 * credentials, a cookie-keeping browser over app.inject, uploads, and the stored records' shapes. Only
 * tests import it; it is not part of the built package.
 */
export { onlyTrack, storeFile, storedAsset, tracksOf } from './assets.js';
export { Browser, csrfTokenIn, hiddenFieldIn } from './browser.js';
export { htmlProblems } from './html.js';
export {
  BASE_URL,
  createPerson,
  credentialsFor,
  START_TIME,
  testServer,
  type Credentials,
  type Person,
  type TestClock,
  type TestServer,
} from './server.js';
export {
  multipartBody,
  taskEnded,
  taskIdOf,
  taskStatuses,
  upload,
  type LegacyCredentials,
  type QueuedTask,
  type UploadFile,
} from './uploads.js';
export { DEFAULT_PREFERENCES } from '../store/preferences.js';
export { tripColumns } from '../store/track-columns.js';
