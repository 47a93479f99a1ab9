/**
 * What a command may touch of the outside world. `main` takes it as an argument so tests run the
 * command in-process with captured output and a temporary working directory.
 */

/** The part of a Node writable stream the commands use (process.stdout satisfies it). */
export interface CliWritable {
  /** false means the stream's buffer is full: wait for 'drain' before writing more */
  write(chunk: string): boolean;
  once(event: 'drain', listener: () => void): unknown;
  /** the file descriptor behind it, if any (process.stdout's is 1): log-destination.ts writes to it */
  readonly fd?: number;
}

export interface CliIo {
  stdout: CliWritable;
  stderr: CliWritable;
  /** relative file arguments are resolved against this directory */
  cwd: string;
  /**
   * The environment (process.env for the real command): `rideport sync` reads credentials from it, so
   * they stay out of shell history and process lists (issue 20). Absent: an empty environment.
   */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * The launcher's path (process.argv[1]), to tell whether `rideport` on the PATH is this program
   * when printing a command to run next (follow-up.ts, issue 35). Absent: as if it were not.
   */
  program?: string;
  /**
   * The terminal's width when stdout is one (process.stdout.columns): help and start-up lines wrap at
   * it (issue 35). Absent: 80, for a file, a pipe or a width nobody knows.
   */
  columns?: number;
  /**
   * The user's terminal, when stdin and stderr both are one: commands may then ask questions (the
   * first sync's import window) and draw progress bars; without it they print plain lines.
   */
  terminal?: {
    input: NodeJS.ReadStream;
    output: NodeJS.WriteStream;
    /**
     * stdout is that terminal too (not a file or pipe): the progress bar is then drawn through stdout,
     * in order with the lines printed there (issue 20), and never into a file.
     */
    stdoutIsTerminal?: boolean;
  };
}
