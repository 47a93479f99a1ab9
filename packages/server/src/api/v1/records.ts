/**
 * v1 record shapes (decisions.md §2). Times are ISO 8601 UTC with offset; a value the data does not
 * give is null; `email` only when the caller is that user.
 */
import type { UserRow } from '../../db/schema.js';

export function isoTime(milliseconds: number): string {
  return new Date(milliseconds).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export interface UserRecord {
  id: number;
  name: string;
  display_name: string;
  first_name: string | null;
  last_name: string | null;
  email?: string | null;
  created_at: string;
  updated_at: string;
}

export function userRecord(user: UserRow, viewerId: number | null): UserRecord {
  return {
    id: user.id,
    name: user.name,
    display_name: user.name,
    first_name: user.first_name,
    last_name: user.last_name,
    ...(viewerId === user.id ? { email: user.email } : {}),
    created_at: isoTime(user.created_at),
    updated_at: isoTime(user.updated_at),
  };
}

/** JSON schema of a user record, for response serialization and the OpenAPI document. */
export const USER_SCHEMA = {
  type: 'object',
  required: ['id', 'name', 'display_name', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    display_name: { type: 'string' },
    first_name: { type: ['string', 'null'] },
    last_name: { type: ['string', 'null'] },
    email: { type: ['string', 'null'], description: 'only when the caller is this user' },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
} as const;

export const ERRORS_SCHEMA = {
  type: 'object',
  required: ['errors'],
  properties: { errors: { type: 'array', items: { type: 'string' } } },
} as const;
