import { describe, expect, it } from 'vitest';
import {
  ClientError,
  ClientErrorCode,
  codeForStatus,
  errorFromResponse,
  excerpt,
  isClientError,
  isRetryable,
  serverCodesOf,
  serverMessagesOf,
} from './errors.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('error mapping', () => {
  it('maps statuses to codes', () => {
    expect(
      [400, 401, 403, 404, 408, 409, 413, 422, 429, 500, 502, 503, 507, 302, 100].map((status) => [
        status,
        codeForStatus(status),
      ]),
    ).toEqual([
      [400, ClientErrorCode.REJECTED],
      [401, ClientErrorCode.UNAUTHORIZED],
      [403, ClientErrorCode.FORBIDDEN],
      [404, ClientErrorCode.NOT_FOUND],
      [408, ClientErrorCode.TIMEOUT],
      [409, ClientErrorCode.REJECTED],
      [413, ClientErrorCode.REJECTED],
      [422, ClientErrorCode.REJECTED],
      [429, ClientErrorCode.RATE_LIMITED],
      [500, ClientErrorCode.SERVER],
      [502, ClientErrorCode.SERVER],
      [503, ClientErrorCode.SERVER],
      [507, ClientErrorCode.SERVER_FULL],
      [302, ClientErrorCode.BAD_RESPONSE],
      [100, ClientErrorCode.BAD_RESPONSE],
    ]);
  });

  it('reads the messages of v1, legacy and OAuth error bodies', () => {
    expect(serverMessagesOf(bytes('{"errors":["name is required","start_date is required"]}'))).toEqual([
      'name is required',
      'start_date is required',
    ]);
    expect(serverMessagesOf(bytes('{"error":"invalid email or password: log in again"}'))).toEqual([
      'invalid email or password: log in again',
    ]);
    expect(
      serverMessagesOf(bytes('{"error":"invalid_grant","error_description":"the code was used"}')),
    ).toEqual(['the code was used']);
    expect(serverMessagesOf(bytes('<html>Bad gateway</html>'))).toEqual([]);
    expect(serverMessagesOf(bytes('[1,2]'))).toEqual([]);
    expect(serverMessagesOf(bytes(''))).toEqual([]);
  });

  it('builds an error with status, messages and Retry-After, and says what the server said', () => {
    const error = errorFromResponse(
      'POST /api/v1/events.json',
      422,
      bytes('{"errors":["name is required"]}'),
    );
    expect(error).toBeInstanceOf(ClientError);
    expect(error).toMatchObject({
      code: ClientErrorCode.REJECTED,
      status: 422,
      serverMessages: ['name is required'],
      serverCodes: [],
      serverCode: null,
      retryAfterMs: null,
      taskId: null,
    });
    expect(error.message).toBe('POST /api/v1/events.json answered 422: name is required');
    const limited = errorFromResponse('GET /x', 429, bytes('{"errors":["slow down"]}'), 5000);
    expect(limited).toMatchObject({ code: ClientErrorCode.RATE_LIMITED, retryAfterMs: 5000 });
    const gateway = errorFromResponse('GET /x', 502, bytes('<html>\n  Bad   gateway\n</html>'));
    expect(gateway.message).toBe('GET /x answered 502: <html> Bad gateway </html>');
    expect(errorFromResponse('GET /x', 500, bytes('')).message).toBe('GET /x answered 500: (empty body)');
  });

  it("takes the server's code of each message from error_codes (issue 35), the first as serverCode", () => {
    const error = errorFromResponse(
      'POST /api/v1/events.json',
      422,
      bytes(
        '{"errors":["name is required","url must be an http or https URL"],' +
          '"error_codes":["SERVER_MISSING_FIELD","SERVER_INVALID_FIELD"]}',
      ),
    );
    expect(error).toMatchObject({
      serverMessages: ['name is required', 'url must be an http or https URL'],
      serverCodes: ['SERVER_MISSING_FIELD', 'SERVER_INVALID_FIELD'],
      serverCode: 'SERVER_MISSING_FIELD',
    });
    expect(error.message).toBe(
      'POST /api/v1/events.json answered 422: name is required; url must be an http or https URL',
    );
    expect(serverCodesOf(bytes('{"errors":["gone"],"error_codes":["SERVER_NOT_FOUND"]}'))).toEqual([
      'SERVER_NOT_FOUND',
    ]);
    // Codes that do not pair with the messages one to one are none: an index would name the wrong one.
    expect(serverCodesOf(bytes('{"errors":["a","b"],"error_codes":["SERVER_X"]}'))).toEqual([]);
    expect(serverCodesOf(bytes('{"errors":["a"],"error_codes":[7]}'))).toEqual([]);
    expect(serverCodesOf(bytes('{"error":"legacy","error_codes":["SERVER_X"]}'))).toEqual([]);
    // A task's own code comes first.
    const task = new ClientError(ClientErrorCode.REJECTED, 'failed', {
      serverCodes: ['SERVER_BAD_REQUEST'],
      serverCode: 'RIDEFILE_MALFORMED',
    });
    expect(task.serverCode).toBe('RIDEFILE_MALFORMED');
    expect(task.withTaskId(3)).toMatchObject({
      serverCodes: ['SERVER_BAD_REQUEST'],
      serverCode: 'RIDEFILE_MALFORMED',
    });
  });

  it('quotes at most a short excerpt of a body', () => {
    const long = excerpt(bytes('x'.repeat(10_000)));
    expect(long.length).toBeLessThanOrEqual(201);
    expect(long.endsWith('…')).toBe(true);
  });

  it('says which errors are worth trying again', () => {
    const of = (code: ClientErrorCode) => new ClientError(code, 'x');
    expect(Object.values(ClientErrorCode).filter((code) => isRetryable(of(code)))).toEqual([
      ClientErrorCode.RATE_LIMITED,
      ClientErrorCode.SERVER_FULL,
      ClientErrorCode.SERVER,
      ClientErrorCode.UNREACHABLE,
      ClientErrorCode.TIMEOUT,
    ]);
    expect(isRetryable(new Error('x'))).toBe(false);
    expect(isRetryable(undefined)).toBe(false);
    expect(isClientError(of(ClientErrorCode.SERVER), ClientErrorCode.SERVER)).toBe(true);
    expect(isClientError(of(ClientErrorCode.SERVER), ClientErrorCode.TIMEOUT)).toBe(false);
  });

  it('withTaskId keeps everything else', () => {
    const error = new ClientError(ClientErrorCode.SERVER, 'boom', { status: 503, serverMessages: ['down'] });
    expect(error.withTaskId(7)).toMatchObject({
      code: ClientErrorCode.SERVER,
      message: 'boom',
      status: 503,
      serverMessages: ['down'],
      taskId: 7,
    });
  });
});
