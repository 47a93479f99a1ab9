/**
 * The host's one error catalogue (house style: each package owns one catalogue with stable codes;
 * callers branch on `code`, never on message text). Messages are sentences for people.
 */
export const HostErrorCode = {
  /** the address is taken or cannot be used */
  LISTEN: 'HOST_LISTEN',
} as const;

export type HostErrorCode = (typeof HostErrorCode)[keyof typeof HostErrorCode];

export class HostError extends Error {
  override readonly name = 'HostError';
  readonly code: HostErrorCode;

  constructor(code: HostErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}
