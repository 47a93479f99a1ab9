/// <reference types="@fastify/swagger" preserve="true" />
/**
 * `@rideport/server/web`: what a plugin of pages builds on (issue 35). The rider's dashboard lives in
 * its own package (@rideport/dashboard) and is registered by buildServer when a host passes it in
 * `pages`; it reaches the server only through the names below: the server's context and records, the
 * page layout, forms, CSRF and sessions, the errors, and the few services the pages use (uploading a
 * file, sharing with a club, sending an original). Anything not here is the server's own.
 */
export type { PagePlugin, PluginOptions, ServerContext } from './context.js';
export type { AssetType, RouteRow, TripRow, Units, UserRow, Visibility } from './db/schema.js';
export { badRequest, forbidden, notFound } from './errors.js';
export type { LocalSync, LocalSyncStatus } from './ports/local-sync.js';

// Pages: HTML, the layout every page shares, forms, CSRF and the signed-in session.
export { escapeHtml, html, SafeHtml, type HtmlValue } from './pages/html.js';
export { sendPage, type NavSection, type PageOptions } from './pages/layout.js';
export { FormFields, radioGroup } from './pages/forms.js';
export { csrfField, csrfToken } from './pages/csrf.js';
export { signedInUser } from './pages/session.js';
export { redirectToSignIn } from './pages/access.js';

// Request parameters and text limits, in the words every interface uses.
export {
  ID_RANGE,
  idParameter,
  PAGE_RANGE,
  readWholeNumber,
  wholeNumberOr400,
  wholeNumberProblem,
} from './whole-numbers.js';
export {
  isTooLong,
  TEXT_MAX_CHARS,
  tooLongWords,
  type TaskObjectRecord,
  type TaskStatusRow,
} from './store/index.js';

// Records as the store keeps them, and what the pages compute from them.
export type { AssetRow } from './store/assets.js';
export { storedJsonArray, storedWarnings, warnedTrack } from './store/asset-records.js';
export type { RideCurve } from './store/power-curves.js';
export type { LoggedRide } from './store/training-log.js';
export {
  canonicalTimeZone,
  PREFERENCE_RANGES,
  preferenceProblems,
  type Preferences,
} from './store/preferences.js';
export { activityInWords, isVirtualActivity } from './activity-words.js';
export { rideTimeZone } from './ride-time-zone.js';

// Services the pages call.
export { storeUpload, uploadIntake } from './legacy/upload-intake.js';
export { inWords } from './queue/one-ride.js';
export { removeRouteFromClub, shareRouteWithClub } from './club-sharing.js';
export { sendOriginal } from './original-download.js';
export { attachment } from './content-disposition.js';
