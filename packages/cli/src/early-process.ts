/**
 * What the launcher (bin/rideport.js) does first, before it loads the rest of rideport: a command that
 * runs until stopped caps the C allocator's arenas (issue 22; freed-memory.ts in @rideport/host), and
 * makes its large blocks mappings of their own (issue 36), while few threads have allocated yet.
 * Loading the server's modules alone starts threads that take arenas of their own, so this module
 * imports nothing but that one, and that one only for such a command (issue 35: a one-off command
 * loads nothing of the host; without the host installed, nothing is capped).
 */
import { hostMissing } from './host-missing.js';

/** The commands that run until stopped (main.test.ts checks this against each command's own flag). */
export const LONG_RUNNING_COMMANDS: ReadonlySet<string> = new Set(['up', 'sync', 'serve', 'worker']);

/** The command `argv` names (the first argument that is not an option), if any. */
export function commandNameOf(argv: readonly string[]): string | undefined {
  return argv.find((arg) => !arg.startsWith('-'));
}

/**
 * Caps the arenas, and maps large blocks apart, for a long-running command; true when the arenas were
 * capped (glibc, no setting of the user's).
 */
export async function prepareAllocator(argv: readonly string[]): Promise<boolean> {
  const name = commandNameOf(argv);
  if (name === undefined || !LONG_RUNNING_COMMANDS.has(name)) return false;
  try {
    const { limitAllocatorArenas, mapLargeBlocksApart } = await import('@rideport/host/freed-memory');
    mapLargeBlocksApart();
    return limitAllocatorArenas();
  } catch (error) {
    if (hostMissing(error)) return false;
    throw error;
  }
}
