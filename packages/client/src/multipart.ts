/**
 * Multipart bodies for the legacy file upload (docs/contributors/decisions.md §5, "Create rides from a file": field
 * `file`, optional `trip[name]`, `trip[description]`, `trip[visibility]`; and `external_id`, issue 20). Built with the platform's
 * FormData and Blob and serialised by `new Response(form)`, which gives the bytes and the content type
 * with its boundary: the encoding (quoting of names, CRLFs, the boundary) is the platform's, not ours.
 */
import type { Visibility } from './records.js';

/** A ride file to upload. */
export interface RideUpload {
  bytes: Uint8Array;
  /** sent as the part's filename; the server recognises the format from the content (docs/contributors/decisions.md §5) */
  filename: string;
  name?: string;
  description?: string;
  visibility?: Visibility;
  /**
   * The uploader's own id of the ride, at most 255 characters (Strava's `external_id`; issue 20): the
   * server treats a repeat from the same user and API client as a duplicate, whatever the bytes.
   */
  externalId?: string;
}

/** `trip[visibility]` takes the legacy numbers (docs/contributors/decisions.md §5: 0 public, 1 private, 2 friends). */
export const LEGACY_VISIBILITY: Readonly<Record<Visibility, number>> = {
  public: 0,
  private: 1,
  friends_only: 2,
};

/** A `multipart/form-data` request body and its content type, as `rideUploadBody` makes it. */
export interface MultipartBody {
  body: Uint8Array;
  /** `multipart/form-data; boundary=…` */
  contentType: string;
}

/**
 * The upload as multipart/form-data: the trip fields first, then the file. (The server reads
 * credentials from fields before the file; the client sends them in the query, so the order only
 * matters for the trip fields, which the server takes on either side.)
 */
export async function rideUploadBody(upload: RideUpload): Promise<MultipartBody> {
  const form = new FormData();
  if (upload.name !== undefined) form.append('trip[name]', upload.name);
  if (upload.description !== undefined) form.append('trip[description]', upload.description);
  if (upload.visibility !== undefined) {
    form.append('trip[visibility]', String(LEGACY_VISIBILITY[upload.visibility]));
  }
  if (upload.externalId !== undefined) form.append('external_id', upload.externalId);
  // A copy: the Blob must not see later changes to the caller's buffer, nor a SharedArrayBuffer.
  form.append('file', new Blob([Uint8Array.from(upload.bytes)]), upload.filename);
  const response = new Response(form);
  const contentType = response.headers.get('content-type');
  if (contentType === null) throw new Error('FormData gave no content type');
  return { body: new Uint8Array(await response.arrayBuffer()), contentType };
}
