/**
 * RideportClient: the v1 and legacy interfaces over one transport and one set of credentials, and
 * uploadRide on top (issue: "A typed client for the whole API"). It holds no state beyond the
 * credentials (which the legacy login replaces) and the transport it may own.
 */
import type { Credentials } from './credentials.js';
import { Http } from './http.js';
import { LegacyApi } from './legacy.js';
import type { RideUpload } from './multipart.js';
import { realSleep, type Sleep } from './timing.js';
import { undiciTransport, type Transport } from './transport.js';
import {
  uploadRide,
  waitForTask,
  type UploadedRide,
  type UploadRideOptions,
  type WaitForTaskOptions,
} from './upload-ride.js';
import { V1Api } from './v1.js';

export const CLIENT_VERSION = '0.1.0';
export const DEFAULT_USER_AGENT = `rideport-client/${CLIENT_VERSION} (node ${process.versions.node})`;

/** How a `RideportClient` reaches the server and proves who is calling. */
export interface ClientOptions {
  /** the server's public base URL, e.g. http://127.0.0.1:4242 (may carry a path prefix) */
  baseUrl: string;
  /** who is calling: an API key, with an auth token or an OAuth access token when a user is needed */
  credentials: Credentials;
  /** default undiciTransport(); a transport passed in stays the caller's to close */
  transport?: Transport;
  /** the `User-Agent` header; default `DEFAULT_USER_AGENT` */
  userAgent?: string;
  /** injectable for tests; must reject when the signal fires */
  sleep?: Sleep;
  /** uniform in [0, 1), for jitter; injectable for tests */
  random?: () => number;
  /** monotonic ms, for the uploadRide deadline; injectable for tests (default performance.now) */
  now?: () => number;
  /** 429s waited out per request before RATE_LIMITED is thrown; default 3 */
  maxRateLimitRetries?: number;
  /** a longer Retry-After is not waited out but thrown at once (RATE_LIMITED with retryAfterMs); default 60 s */
  maxRateLimitWaitMs?: number;
}

export class RideportClient {
  #credentials: Credentials;
  readonly #transport: Transport;
  readonly #ownsTransport: boolean;
  readonly #http: Http;
  readonly #random: () => number;
  readonly v1: V1Api;
  readonly legacy: LegacyApi;

  constructor(options: ClientOptions) {
    const baseUrl = new URL(options.baseUrl);
    if (baseUrl.protocol !== 'http:' && baseUrl.protocol !== 'https:') {
      throw new TypeError(`baseUrl must be an http or https URL, got ${options.baseUrl}`);
    }
    this.#credentials = options.credentials;
    this.#ownsTransport = options.transport === undefined;
    this.#transport = options.transport ?? undiciTransport();
    this.#random = options.random ?? Math.random;
    this.#http = new Http({
      baseUrl,
      transport: this.#transport,
      userAgent: options.userAgent ?? DEFAULT_USER_AGENT,
      sleep: options.sleep ?? realSleep,
      now: options.now ?? (() => performance.now()),
      maxRateLimitRetries: options.maxRateLimitRetries ?? 3,
      maxRateLimitWaitMs: options.maxRateLimitWaitMs ?? 60_000,
    });
    const current = (): Credentials => this.#credentials;
    this.v1 = new V1Api(this.#http, current);
    this.legacy = new LegacyApi(this.#http, current, (credentials) => {
      this.#credentials = credentials;
    });
  }

  /** The credentials every request sends now (the legacy login and `setCredentials` change them). */
  get credentials(): Credentials {
    return this.#credentials;
  }

  /** Used by every request from now on (e.g. after createAuthToken, or when a token was renewed). */
  setCredentials(credentials: Credentials): void {
    this.#credentials = credentials;
  }

  /** Uploads a ride file and waits for the server to process it (upload-ride.ts). */
  uploadRide(upload: RideUpload, options: UploadRideOptions = {}): Promise<UploadedRide> {
    return uploadRide({ http: this.#http, legacy: this.legacy, random: this.#random }, upload, options);
  }

  /**
   * Polls a task uploaded earlier (its id from onTask or legacy.uploadFile) until it ends, with the
   * same backoff, deadline and outcomes as uploadRide.
   */
  waitForTask(taskId: number, options: WaitForTaskOptions = {}): Promise<UploadedRide> {
    return waitForTask({ http: this.#http, legacy: this.legacy, random: this.#random }, taskId, options);
  }

  /** Closes the transport if this client made it; a transport passed in is left to its owner. */
  async close(): Promise<void> {
    if (this.#ownsTransport) await this.#transport.close();
  }
}
