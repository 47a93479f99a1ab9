/**
 * A process's JavaScript heap read from outside (bench/soak.ts, issue 22): the child runs with
 * `--inspect=127.0.0.1:0`, and this client of the DevTools protocol forces a full garbage collection
 * there and reads `process.memoryUsage()`. What a collection leaves is what the process keeps; RSS
 * alone cannot tell that from memory the allocator has not handed back yet.
 */
import { WebSocket } from 'undici';

export interface HeapReading {
  /** the main thread's heap still reachable after a full collection */
  heapUsedBytes: number;
  /** the pages V8 holds for that heap after the same collection: what it has not given back */
  heapTotalBytes: number;
  /** memory of Buffers and other objects outside the heap, after the same collection */
  externalBytes: number;
}

/** The DevTools address the child printed on stderr, or null before it has. */
export function inspectorUrl(output: string): string | null {
  return /Debugger listening on (ws:\/\/\S+)/.exec(output)?.[1] ?? null;
}

export class Inspector {
  readonly #socket: WebSocket;
  readonly #waiting = new Map<
    number,
    { resolve: (result: unknown) => void; reject: (error: Error) => void }
  >();
  #nextId = 1;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.addEventListener('message', (event) => {
      const message = JSON.parse(String(event.data)) as {
        id?: number;
        result?: unknown;
        error?: { message: string };
      };
      const waiting = message.id === undefined ? undefined : this.#waiting.get(message.id);
      if (waiting === undefined) return;
      this.#waiting.delete(message.id!);
      if (message.error !== undefined) waiting.reject(new Error(message.error.message));
      else waiting.resolve(message.result);
    });
  }

  static async connect(url: string): Promise<Inspector> {
    const socket = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      socket.addEventListener('open', () => {
        resolve();
      });
      socket.addEventListener('error', () => {
        reject(new Error(`cannot connect to the inspector at ${url}`));
      });
    });
    return new Inspector(socket);
  }

  #send(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      this.#socket.send(JSON.stringify({ id, method, params }));
    });
  }

  async heapAfterCollection(): Promise<HeapReading> {
    await this.#send('HeapProfiler.collectGarbage');
    const answer = (await this.#send('Runtime.evaluate', {
      expression: 'JSON.stringify(process.memoryUsage())',
      returnByValue: true,
    })) as { result: { value: string } };
    const usage = JSON.parse(answer.result.value) as {
      heapUsed: number;
      heapTotal: number;
      external: number;
    };
    return {
      heapUsedBytes: usage.heapUsed,
      heapTotalBytes: usage.heapTotal,
      externalBytes: usage.external,
    };
  }

  close(): void {
    this.#socket.close();
  }
}
