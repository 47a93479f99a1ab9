import { RideFileError, RideFileErrorCode } from '@rideport/ridefile';
import { describe, expect, it } from 'vitest';
import { CliErrorCode, describeFailure, failureLine, systemErrorReason, usageLine } from './errors.js';

function enoent(): Error {
  return Object.assign(new Error("ENOENT: no such file or directory, open '/x/ride.fit'"), {
    code: 'ENOENT',
    syscall: 'open',
    path: '/x/ride.fit',
  });
}

describe('error lines', () => {
  it('keeps the library code, the Node code, or calls anything else internal', () => {
    const rideFileError = new RideFileError(RideFileErrorCode.EMPTY, 'the file is empty');
    expect(describeFailure(rideFileError)).toEqual({ code: 'RIDEFILE_EMPTY', message: 'the file is empty' });
    expect(describeFailure(enoent())).toEqual({
      code: 'ENOENT',
      message: '/x/ride.fit does not exist',
    });
    expect(describeFailure(new TypeError('oops'))).toEqual({ code: CliErrorCode.INTERNAL, message: 'oops' });
    expect(systemErrorReason(enoent())).toBe('no such file or directory');
  });

  it('is always exactly one line, whatever the message holds', () => {
    expect(failureLine('inspect a.gpx', 'RIDEFILE_MALFORMED', 'bad\nthing\r\n  here\n')).toBe(
      'rideport: inspect a.gpx: RIDEFILE_MALFORMED: bad thing here\n',
    );
    expect(usageLine('missing\ncommand')).toBe('rideport: usage: missing command\n');
  });
});
