/**
 * A real webhook receiver for tests (issue 5: "tests with a real receiver on loopback"): a node:http
 * server on 127.0.0.1 that keeps every request with its raw body bytes, answers as the test says, and
 * can go down (nothing listening: connections are refused) and come back on the same port.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Notification } from '../webhooks/index.js';

export interface ReceivedRequest {
  method: string;
  /** path and query */
  url: string;
  headers: IncomingHttpHeaders;
  /** the body exactly as it arrived */
  body: Buffer;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  /** wait this long before answering */
  delayMs?: number;
}

/** How the receiver answers a request; `index` counts from 0 over every request it got. */
export type Responder = (request: ReceivedRequest, index: number) => Answer;

export class WebhookReceiver {
  readonly requests: ReceivedRequest[] = [];
  respond: Responder = () => ({ status: 200 });
  readonly #server: Server;
  #port = 0;
  readonly #listenHost: string;

  private constructor(listenHost: string) {
    this.#listenHost = listenHost;
    this.#server = createServer((incoming, response) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        const request: ReceivedRequest = {
          method: incoming.method ?? '',
          url: incoming.url ?? '',
          headers: incoming.headers,
          body: Buffer.concat(chunks),
        };
        const index = this.requests.push(request) - 1;
        const answer = this.respond(request, index);
        const send = (): void => {
          if (!response.destroyed) answerWith(response, answer);
        };
        if (answer.delayMs === undefined) send();
        else setTimeout(send, answer.delayMs).unref();
      });
    });
  }

  /** A receiver listening on a free port of 127.0.0.1 (or of every interface, with `listenHost` '::'). */
  static async start(listenHost = '127.0.0.1'): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver(listenHost);
    await receiver.up();
    return receiver;
  }

  get port(): number {
    return this.#port;
  }

  /** The receiver's URL on 127.0.0.1 (or `host`, which must resolve to it). */
  url(path = '/hooks', host = '127.0.0.1'): string {
    return `http://${host}:${this.#port}${path}`;
  }

  /** Listens (again, on the same port once it has one). */
  up(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(this.#port, this.#listenHost, () => {
        this.#server.off('error', reject);
        this.#port = (this.#server.address() as AddressInfo).port;
        resolve();
      });
    });
  }

  /** Stops listening and drops every open connection: from now on connections are refused. */
  down(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.close(() => {
        resolve();
      });
      this.#server.closeAllConnections();
    });
  }

  /** The notifications of every request, in the order they arrived (repeats included). */
  notifications(): Notification[] {
    return this.requests.flatMap((request) => notificationsOf(request));
  }

  /** Waits until `condition` holds, polling; fails after `timeoutMs` (generous: never a timing assertion). */
  async waitFor(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
    await waitUntil(condition, what, timeoutMs);
  }
}

export function notificationsOf(request: ReceivedRequest): Notification[] {
  return (JSON.parse(request.body.toString('utf8')) as { notifications: Notification[] }).notifications;
}

function answerWith(response: ServerResponse, answer: Answer): void {
  response.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
  response.end(`${answer.status}\n`);
}

/** Polls `condition` every 20 ms until it holds (async conditions too), or throws after `timeoutMs`. */
export async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
