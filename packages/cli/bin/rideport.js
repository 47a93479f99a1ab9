#!/usr/bin/env node
// The `rideport` launcher: everything lives in the compiled package (src/main.ts → dist/main.js),
// which the repository root's `prepare` script builds during `npm install`.
import process from 'node:process';

// `rideport convert big.fit | head` closes stdout early: that is the reader's choice, not a failure.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

// stderr is where failures are said; when it fails too (a full disk), there is nowhere left to say
// it, and that must not stop a running server (issue 17).
process.stderr.on('error', () => undefined);

let main;
let prepareProcess;
try {
  // First, before the rest is loaded and starts threads (issue 22, src/early-process.ts).
  await (await import('../dist/early-process.js')).prepareAllocator(process.argv.slice(2));
  ({ main, prepareProcess } = await import('../dist/main.js'));
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist')) throw error;
  process.stderr.write(
    'rideport: not built yet: run `npm run build` (or `npm install`) at the repository root\n',
  );
  process.exit(1);
}

await prepareProcess(process.argv.slice(2));
process.exitCode = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  cwd: process.cwd(),
  env: process.env,
  program: process.argv[1],
  // Help and start-up lines wrap at the terminal's width; not a terminal: 80 (issue 35).
  ...(process.stdout.isTTY ? { columns: process.stdout.columns } : {}),
  ...(process.stdin.isTTY && process.stderr.isTTY
    ? {
        terminal: {
          input: process.stdin,
          output: process.stderr,
          stdoutIsTerminal: process.stdout.isTTY === true,
        },
      }
    : {}),
});
