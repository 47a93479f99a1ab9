/**
 * How the rider runs rideport again, for the commands `up` and `serve` print to follow up (issue 35:
 * `up` printed `rideport admin sign-in-link …`, which is not on the PATH of someone who ran
 * `npm start`, and the shell answered with status 127). When `rideport` on the PATH is this very
 * program, `rideport …`; otherwise `npx rideport …`, which finds the one installed in the project.
 */
import { realpathSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export type RideportCommand = 'rideport' | 'npx rideport';

export interface HowStarted {
  env: Readonly<Record<string, string | undefined>>;
  /** the launcher's path (process.argv[1]); absent when rideport runs inside another program (tests) */
  program?: string | undefined;
  platform?: NodeJS.Platform;
}

/** The same file, links followed; false when either is not there. */
function sameFile(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

/** The first `rideport` on the PATH, as a shell would find it; null when there is none. */
function onPath(env: HowStarted['env'], platform: NodeJS.Platform): string | null {
  const names = platform === 'win32' ? ['rideport.cmd', 'rideport.exe', 'rideport'] : ['rideport'];
  for (const folder of (env['PATH'] ?? env['Path'] ?? '').split(delimiter)) {
    if (folder === '') continue;
    for (const name of names) {
      const candidate = join(folder, name);
      if (statSync(candidate, { throwIfNoEntry: false })?.isFile() === true) return candidate;
    }
  }
  return null;
}

export function rideportCommand(started: HowStarted): RideportCommand {
  const { env, program } = started;
  // Run through npm (`npm start`, an npm script): npm put node_modules/.bin on the PATH for the script
  // alone; the rider's own shell does not have it.
  if (env['npm_lifecycle_event'] !== undefined || env['npm_execpath'] !== undefined) return 'npx rideport';
  if (program === undefined) return 'npx rideport';
  const found = onPath(env, started.platform ?? process.platform);
  return found !== null && sameFile(found, program) ? 'rideport' : 'npx rideport';
}
