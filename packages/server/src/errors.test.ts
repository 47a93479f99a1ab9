/**
 * The server's error catalogue (errors.ts, issue 35): one table of codes, each unique, in the one format
 * every package uses, and the upload task codes that stored rows and integrators already hold.
 */
import { describe, expect, it } from 'vitest';
import {
  codeForStatus,
  DataDirectoryError,
  DataDirectoryErrorCode,
  HTTP_ERROR_CODES,
  missingField,
  SERVER_ERROR_CODES,
  SERVER_ERRORS,
  ServerError,
  ServerErrorCode,
  statusOf,
  unprocessable,
  UploadErrorCode,
} from './errors.js';

describe('the error catalogue', () => {
  it('has unique codes, each SERVER_ or UPLOAD_ and upper snake case', () => {
    expect(new Set(SERVER_ERROR_CODES).size).toBe(SERVER_ERROR_CODES.length);
    for (const code of SERVER_ERROR_CODES) expect(code).toMatch(/^(SERVER|UPLOAD)_[A-Z0-9]+(_[A-Z0-9]+)*$/);
    // Each name is its code without the package's prefix: ServerErrorCode.NOT_FOUND is SERVER_NOT_FOUND.
    for (const [name, { code }] of Object.entries(SERVER_ERRORS)) {
      expect(code === name || code === `SERVER_${name}`, `${name}: ${code}`).toBe(true);
    }
  });

  it('keeps the upload task codes that task rows store and integrators read', () => {
    expect(Object.values(UploadErrorCode).sort()).toEqual([
      'UPLOAD_INTERRUPTED',
      'UPLOAD_LOST',
      'UPLOAD_PARSER_CRASHED',
      'UPLOAD_PARSER_TIMEOUT',
      'UPLOAD_STORE_FAILED',
    ]);
    for (const code of Object.values(UploadErrorCode)) expect(statusOf(code)).toBeNull();
  });

  it('gives every HTTP code a 4xx or 5xx status, and the codes an answer may carry are those', () => {
    for (const code of SERVER_ERROR_CODES) {
      const status = statusOf(code);
      if (status !== null) expect(status).toBeGreaterThanOrEqual(400);
      expect(HTTP_ERROR_CODES.includes(code)).toBe(status !== null);
    }
    expect(codeForStatus(404)).toBe('SERVER_NOT_FOUND');
    expect(codeForStatus(415)).toBe('SERVER_UNSUPPORTED_MEDIA_TYPE');
    expect(codeForStatus(418)).toBe('SERVER_BAD_REQUEST');
    expect(codeForStatus(502)).toBe('SERVER_INTERNAL');
  });

  it('carries a code per problem: the error’s own for words alone, a finer one where given', () => {
    const error = unprocessable([missingField('name'), 'the dates are the wrong way round']);
    expect(error).toBeInstanceOf(ServerError);
    expect(error.statusCode).toBe(422);
    expect(error.code).toBe(ServerErrorCode.UNPROCESSABLE);
    expect(error.problems).toEqual(['name is required', 'the dates are the wrong way round']);
    expect(error.problemCodes).toEqual(['SERVER_MISSING_FIELD', 'SERVER_UNPROCESSABLE']);
    expect(error.message).toBe('name is required; the dates are the wrong way round');
  });

  it('makes the data directory errors ServerErrors without a status, their codes in the catalogue', () => {
    const error = new DataDirectoryError(DataDirectoryErrorCode.IN_USE, 'in use');
    expect(error).toBeInstanceOf(ServerError);
    expect(error.name).toBe('DataDirectoryError');
    expect(error.code).toBe('SERVER_DATA_DIRECTORY_IN_USE');
    expect(error.statusCode).toBeNull();
  });
});
