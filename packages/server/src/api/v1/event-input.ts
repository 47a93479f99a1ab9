/**
 * The body of `POST /api/v1/events.json` and `PATCH /api/v1/events/{id}.json` (docs/contributors/decisions.md §2): `name`
 * and `start_date` are required, and a 422 lists every missing or invalid field at once
 * (docs/integrators/api.md, Errors: "one string per problem"). The fields may come inside `event` (the record's
 * root key) or at the top level of the body, as clients of Rails-style APIs send either.
 */
import type { Visibility } from '../../db/schema.js';
import { invalidField, missingField, textTooLong, type Problem } from '../../errors.js';
import { isTooLong, TEXT_MAX_CHARS, type EventFields } from '../../store/index.js';

const VISIBILITIES: readonly Visibility[] = ['public', 'friends_only', 'private'];
const MAX_NAME_LENGTH = TEXT_MAX_CHARS.eventName;
const MAX_TEXT_LENGTH = TEXT_MAX_CHARS.eventText;
const MAX_URL_LENGTH = TEXT_MAX_CHARS.url;

export const EVENT_BODY_SCHEMA = {
  type: 'object',
  properties: {
    event: {
      type: 'object',
      title: 'EventFields',
      description:
        'What an event is created or changed with: `name` and `start_date` are required when creating, ' +
        'and a 422 lists every missing or invalid field.',
      properties: {
        name: { type: 'string', maxLength: MAX_NAME_LENGTH, description: 'required when creating' },
        start_date: { type: 'string', format: 'date', description: 'YYYY-MM-DD; required when creating' },
        end_date: {
          type: ['string', 'null'],
          format: 'date',
          description: 'YYYY-MM-DD, not before start_date',
        },
        description: { type: ['string', 'null'], maxLength: MAX_TEXT_LENGTH },
        location: { type: ['string', 'null'], maxLength: MAX_TEXT_LENGTH },
        url: { type: ['string', 'null'], format: 'uri', maxLength: MAX_URL_LENGTH },
        // No `default` here: Ajv would fill it into every PATCH and reset what the client did not send.
        visibility: { type: 'string', enum: VISIBILITIES, description: 'private when creating without it' },
      },
    },
  },
  description: 'the fields inside `event`, or at the top level of the body',
} as const;

export type EventInput = { ok: true; fields: Partial<EventFields> } | { ok: false; problems: Problem[] };

/**
 * Reads the event fields of a request body. `existing`: the event being updated (its fields are then
 * optional, and an end date is checked against the start date it keeps); absent when creating.
 */
export function readEventInput(
  body: Record<string, unknown>,
  existing?: Pick<EventFields, 'start_date'>,
): EventInput {
  const wrapped = body['event'];
  if (wrapped !== undefined && !isObject(wrapped))
    return { ok: false, problems: [invalidField('event must be an object')] };
  const input = wrapped ?? body;
  const creating = existing === undefined;
  // Each problem with its code (issue 35): a missing field, a too long text, any other invalid one.
  const problems: Problem[] = [];
  const fields: Partial<EventFields> = {};

  const name = input['name'];
  if (name === undefined || name === null || (typeof name === 'string' && name.trim() === '')) {
    if (creating || name !== undefined) problems.push(missingField('name'));
  } else if (typeof name !== 'string') {
    problems.push(invalidField('name must be a string'));
  } else if (isTooLong(name.trim(), MAX_NAME_LENGTH)) {
    problems.push(textTooLong('name', MAX_NAME_LENGTH));
  } else {
    fields.name = name.trim();
  }

  const startDate = input['start_date'];
  if (startDate === undefined || startDate === null || startDate === '') {
    if (creating || startDate !== undefined) problems.push(missingField('start_date'));
  } else if (typeof startDate !== 'string' || !isCalendarDate(startDate)) {
    problems.push(invalidField('start_date must be a date (YYYY-MM-DD)'));
  } else {
    fields.start_date = startDate;
  }

  const endDate = input['end_date'];
  if (endDate === null || endDate === '') {
    fields.end_date = null;
  } else if (endDate !== undefined) {
    if (typeof endDate !== 'string' || !isCalendarDate(endDate)) {
      problems.push(invalidField('end_date must be a date (YYYY-MM-DD)'));
    } else {
      // Against the new start date, or the one kept; not against one that was sent and is wrong.
      const start = startDate === undefined ? existing?.start_date : fields.start_date;
      // YYYY-MM-DD strings compare as the dates they name.
      if (start !== undefined && endDate < start)
        problems.push(invalidField('end_date must not be before start_date'));
      else fields.end_date = endDate;
    }
  }

  for (const key of ['description', 'location'] as const) {
    const value = input[key];
    if (value === undefined) continue;
    if (value === null) fields[key] = null;
    else if (typeof value !== 'string') problems.push(invalidField(`${key} must be a string`));
    else if (isTooLong(value, MAX_TEXT_LENGTH)) problems.push(textTooLong(key, MAX_TEXT_LENGTH));
    else fields[key] = value.trim() === '' ? null : value.trim();
  }

  const url = input['url'];
  if (url === null || url === '') {
    fields.url = null;
  } else if (url !== undefined) {
    if (typeof url === 'string' && isTooLong(url, MAX_URL_LENGTH)) {
      problems.push(textTooLong('url', MAX_URL_LENGTH));
    } else if (typeof url !== 'string' || !isWebUrl(url.trim())) {
      problems.push(invalidField('url must be an http or https URL'));
    } else {
      fields.url = url.trim();
    }
  }

  const visibility = input['visibility'];
  if (visibility !== undefined) {
    if (typeof visibility !== 'string' || !(VISIBILITIES as readonly string[]).includes(visibility)) {
      problems.push(invalidField(`visibility must be one of ${VISIBILITIES.join(', ')}`));
    } else {
      fields.visibility = visibility as Visibility;
    }
  } else if (creating) {
    fields.visibility = 'private';
  }

  return problems.length > 0 ? { ok: false, problems } : { ok: true, fields };
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A real calendar date written YYYY-MM-DD (2026-02-30 is not). */
export function isCalendarDate(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (match === null) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function isWebUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
