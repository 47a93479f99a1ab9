/**
 * Whether a failed import is @rideport/host (or the server and dashboard it brings) not being installed:
 * it is an optional peer of @rideport/cli (issue 35), so that a rider who only syncs or converts does
 * not install a server.
 */

export const HOST_PACKAGE = '@rideport/host';

const SERVER_PACKAGES = ['@rideport/host', '@rideport/server', '@rideport/dashboard'];

export function hostMissing(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    code === 'ERR_MODULE_NOT_FOUND' &&
    typeof message === 'string' &&
    SERVER_PACKAGES.some((name) => message.includes(`'${name}'`) || message.includes(`'${name}/`))
  );
}
