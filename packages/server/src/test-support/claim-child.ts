/**
 * Starting test-support/claim-process.ts as a child process and talking to it: a second process that
 * claims data directories when a test says so (issue 17).
 */
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startSourceProcess } from './source-process.js';

export type ClaimAnswer =
  | { claimed: true; url?: string }
  | { refused: { code: string; message: string } }
  | { url: string }
  | { released: true };

export interface ClaimChild {
  pid: number;
  /** claims `directory`, naming itself `command` to whoever is refused; and serves it with `listen` */
  claim(directory: string, command: string, options?: { listen: true }): Promise<ClaimAnswer>;
  /** serves the claimed directory's database; resolves with the URL */
  listen(): Promise<string>;
  release(): Promise<void>;
  /** SIGKILL, and wait for the process to end */
  kill(): Promise<void>;
}

const SCRIPT = fileURLToPath(new URL('./claim-process.ts', import.meta.url));

export function startClaimChild(): ClaimChild {
  const running = startSourceProcess(SCRIPT, []);
  const { child, exited } = running;
  // Answers come in the order of the requests.
  const waiting: { resolve: (answer: ClaimAnswer) => void; reject: (error: Error) => void }[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    waiting.shift()?.resolve(JSON.parse(line) as ClaimAnswer);
  });
  void exited.then(() => {
    for (const pending of waiting.splice(0))
      pending.reject(new Error(`the claim process ended: ${running.stderr()}`));
  });
  const ask = (request: object): Promise<ClaimAnswer> =>
    new Promise((resolve, reject) => {
      waiting.push({ resolve, reject });
      child.stdin.write(`${JSON.stringify(request)}\n`);
    });
  if (child.pid === undefined) throw new Error(`the claim process did not start: ${running.stderr()}`);
  return {
    pid: child.pid,
    claim: (directory, command, options) => ask({ claim: directory, command, ...options }),
    listen: async () => {
      const answer = await ask({ listen: true });
      if (!('url' in answer)) throw new Error(`listen answered ${JSON.stringify(answer)}`);
      return answer.url;
    },
    release: async () => {
      await ask({ release: true });
    },
    kill: () => running.end('SIGKILL'),
  };
}
