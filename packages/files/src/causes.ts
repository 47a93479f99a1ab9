/**
 * Whether `error` or an error it wraps passes `test`: its `cause`, or the `inner` error of libraries
 * that wrap errors so (the OAuth library's ServerError, in the server's oauth/token.ts), a few levels
 * deep. Issue 35: the one walk of an error's causes, for the server's storage faults and for the disk
 * full predicate every Rideport process uses.
 */
export function someCause(error: unknown, test: (error: object) => boolean): boolean {
  let current = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    if (test(current)) return true;
    const { cause, inner } = current as { cause?: unknown; inner?: unknown };
    current = cause ?? inner;
  }
  return false;
}
