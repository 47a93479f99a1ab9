/**
 * `POST /trips.json` and `/trips.js` (docs/integrators/api.md, legacy endpoints): one path, two requests told
 * apart by the body (docs/contributors/decisions.md §5). A multipart body carries a file (`file`, or `data_file`) and is
 * queued: the answer is `{"success": 1, "task_id": N}` as soon as the upload and its task are stored.
 * Any other body carries `track_points` and is made into a ride at once.
 */
import type { FastifyInstance } from 'fastify';
import type { PluginOptions } from '../context.js';
import { queueUpload, UPLOAD_FORM, uploadIntake } from './upload-intake.js';
import { createRideFromPoints } from './points.js';
import { legacyRoute } from './route.js';

export function createTripRoutes(app: FastifyInstance, { context }: PluginOptions): Promise<void> {
  legacyRoute(app, context, {
    method: 'POST',
    path: '/trips',
    auth: 'user',
    summary: 'Upload a ride file (queued) or create a trip from track points',
    // A file upload is streamed: credentials are read from the fields before the file (legacy/upload-intake.ts).
    multipart: uploadIntake(context),
    documentedForm: UPLOAD_FORM,
    handler: (request, call) =>
      request.isMultipart() ? queueUpload(request, call, context) : createRideFromPoints(call, context),
  });
  return Promise.resolve();
}
