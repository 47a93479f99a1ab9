import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCommandArgs } from './args.js';
import { UsageError } from './errors.js';

const SYNC_OPTIONS = {
  server: { type: 'string' },
  'auth-token': { type: 'string' },
  password: { type: 'string' },
  once: { type: 'boolean' },
  watch: { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
} as const;

/**
 * What Rideport prints as credentials: base64url, auth tokens 43 characters, passwords 16, API keys
 * 32 hex digits. (A value equal to one of the command's options, such as `-h`, goes as `--name=-h`.)
 */
const base64url = fc.stringMatching(/^[A-Za-z0-9_-]{16,64}$/);
/** The same, always led by '-': the 1 in 64 that Node's parseArgs called ambiguous (issue 20). */
const dashed = base64url.map((value) => `-${value}`);
const credential = fc.oneof(base64url, dashed, fc.constant(randomBytes(32).toString('base64url')));

describe('parseCommandArgs: credentials as printed (issue 20)', () => {
  it('takes every base64url value, dash-led or not, in the separate and the = form, between other options', () => {
    fc.assert(
      fc.property(credential, credential, fc.boolean(), (token, password, equalsForm) => {
        const pair = (name: string, value: string): string[] =>
          equalsForm ? [`--${name}=${value}`] : [`--${name}`, value];
        const { values, positionals } = parseCommandArgs(
          'sync',
          [
            '--once',
            ...pair('auth-token', token),
            ...pair('password', password),
            '--server',
            'http://127.0.0.1:1',
            'folder',
          ],
          SYNC_OPTIONS,
        );
        expect(values['auth-token']).toBe(token);
        expect(values.password).toBe(password);
        expect(values.once).toBe(true);
        expect(values.server).toBe('http://127.0.0.1:1');
        expect(positionals).toEqual(['folder']);
      }),
    );
  });

  it('takes any value at all in the = form, even one that names an option', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.constantFrom('-h', '--once', '--', '--server=x')), (value) => {
        const { values } = parseCommandArgs('sync', [`--password=${value}`, '--once'], SYNC_OPTIONS);
        expect(values.password).toBe(value);
      }),
    );
  });

  it('takes the token our own code generates, one that begins with "-" included', () => {
    let token = randomBytes(32).toString('base64url');
    while (!token.startsWith('-')) token = randomBytes(32).toString('base64url');
    const { values } = parseCommandArgs('sync', ['--auth-token', token, '--once'], SYNC_OPTIONS);
    expect(values['auth-token']).toBe(token);
  });

  it.each([
    [['--auth-token', '--once'], /^sync: option '--auth-token' needs a value \(see rideport sync --help\)$/],
    [['--auth-token', '-h'], /^sync: option '--auth-token' needs a value \(see rideport sync --help\)$/],
    [
      ['--auth-token', '--server=http://x'],
      /^sync: option '--auth-token' needs a value \(see rideport sync --help\)$/,
    ],
    [['--auth-token'], /^sync: option '--auth-token' needs a value \(see rideport sync --help\)$/],
  ])('an option of the command where the value should be is a missing value: %j', (args, message) => {
    expect(() => parseCommandArgs('sync', args, SYNC_OPTIONS)).toThrow(UsageError);
    expect(() => parseCommandArgs('sync', args, SYNC_OPTIONS)).toThrow(message);
  });

  it('leaves everything after -- as it is', () => {
    const { values, positionals } = parseCommandArgs('sync', ['--', '--auth-token', '-x'], SYNC_OPTIONS);
    expect(values['auth-token']).toBeUndefined();
    expect(positionals).toEqual(['--auth-token', '-x']);
  });

  it('still refuses unknown options', () => {
    expect(() => parseCommandArgs('sync', ['--nope'], SYNC_OPTIONS)).toThrow(/unknown option '--nope'/i);
  });
});
