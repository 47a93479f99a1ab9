/**
 * Issue 17: "Ten failed password logins answer 429 for 60 s on every legacy email-and-password path,
 * even with the right password: anyone who knows a rider's email keeps that rider out." Over a real
 * socket, with the default limits, on every path that takes an email and a password: an attacker at
 * 127.0.0.2 fails against the owner's email; the attacker's address is refused (with Retry-After and
 * the wait in words), even with the right password, and the owner at 127.0.0.1 still signs in.
 */
import { Agent, request, type Dispatcher } from 'undici';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMITS } from '../options.js';
import { csrfTokenIn } from '../test-support/browser.js';
import { canBind, OTHER_LOOPBACK } from '../test-support/connections.js';
import {
  createPerson,
  credentialsFor,
  testServer,
  type Person,
  type TestServer,
} from '../test-support/server.js';

const ATTACKER = OTHER_LOOPBACK;
/** The defaults (options.ts, DEFAULT_RATE_LIMITS; docs/operators/limits.md, "Sign-in attempts"). */
const FAILURES_PER_ACCOUNT_AND_ADDRESS = 10;
const FAILURES_PER_ADDRESS = 30;
const FAILURE_WINDOW_SECONDS = 15 * 60;
const ATTACKS = 14;

const secondLoopback = await canBind(ATTACKER);

interface Answer {
  status: number;
  body: string;
  retryAfter: string | undefined;
}

/** One way of signing in with an email and a password, from the address of `agent`. */
interface SignInPath {
  name: string;
  /** 2xx/3xx for the right password, 401 for a wrong one, 429 when refused */
  attempt(agent: Agent, email: string, password: string): Promise<Answer>;
}

let server: TestServer;
let url: string;
let owner: Person;
let apiKey: string;
let owners: Agent;
let attackers: Agent;

async function answerOf(response: Dispatcher.ResponseData): Promise<Answer> {
  const retryAfter = response.headers['retry-after'];
  return {
    status: response.statusCode,
    body: await response.body.text(),
    retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
  };
}

const PATHS: SignInPath[] = [
  {
    name: 'legacy GET /users/current.json (the login)',
    attempt: async (agent, email, password) =>
      answerOf(
        await request(
          `${url}/users/current.json?${new URLSearchParams({ apikey: apiKey, email, password })}`,
          {
            dispatcher: agent,
          },
        ),
      ),
  },
  {
    name: 'legacy GET /users/{id}/trips.js (email and password on any request, JSONP)',
    attempt: async (agent, email, password) =>
      answerOf(
        await request(
          `${url}/users/${owner.id}/trips.js?${new URLSearchParams({ apikey: apiKey, email, password })}`,
          { dispatcher: agent },
        ),
      ),
  },
  {
    name: 'legacy POST /trips.json (a JSON body)',
    attempt: async (agent, email, password) =>
      answerOf(
        await request(`${url}/trips.json`, {
          method: 'POST',
          dispatcher: agent,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            apikey: apiKey,
            email,
            password,
            track_points: [
              { x: 6.6, y: 46.5, t: 1_767_225_600 },
              { x: 6.61, y: 46.51, t: 1_767_225_660 },
            ],
          }),
        }),
      ),
  },
  {
    name: 'v1 POST /api/v1/auth_tokens.json',
    attempt: async (agent, email, password) =>
      answerOf(
        await request(`${url}/api/v1/auth_tokens.json`, {
          method: 'POST',
          dispatcher: agent,
          headers: { 'content-type': 'application/json', 'x-service-api-key': apiKey },
          body: JSON.stringify({ user: { email, password } }),
        }),
      ),
  },
  {
    name: 'the sign-in page, POST /sign_in',
    attempt: async (agent, email, password) => {
      const form = await request(`${url}/sign_in`, { dispatcher: agent });
      const cookie = [form.headers['set-cookie'] ?? []].flat().map((value) => value.split(';', 1)[0]!);
      const token = csrfTokenIn(await form.body.text());
      return answerOf(
        await request(`${url}/sign_in`, {
          method: 'POST',
          dispatcher: agent,
          headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookie.join('; ') },
          body: new URLSearchParams({ _csrf: token, email, password, return_to: '/dashboard' }).toString(),
        }),
      );
    },
  },
];

describe.skipIf(!secondLoopback)(
  secondLoopback
    ? 'failed sign-ins from one address, over a real socket'
    : `failed sign-ins from one address: skipped, this host cannot use ${ATTACKER} as a second loopback address`,
  () => {
    beforeAll(() => {
      owners = new Agent({ localAddress: '127.0.0.1' });
      attackers = new Agent({ localAddress: ATTACKER });
    });
    afterAll(async () => {
      await owners.close();
      await attackers.close();
    });
    beforeEach(async () => {
      server = await testServer();
      url = await server.app.listen({ host: '127.0.0.1', port: 0 });
      owner = await createPerson(server, 'Owner');
      apiKey = (await credentialsFor(server, owner)).apiKey;
    });
    afterEach(async () => {
      await server.close();
    });

    it('tests the default limits', () => {
      expect(DEFAULT_RATE_LIMITS).toMatchObject({
        failuresPerAccountAndAddress: FAILURES_PER_ACCOUNT_AND_ADDRESS,
        failuresPerAddress: FAILURES_PER_ADDRESS,
        failureWindowSeconds: FAILURE_WINDOW_SECONDS,
      });
    });

    it.each(PATHS.map((path) => [path.name, path] as const))(
      '%s: the attacker is refused, the owner elsewhere is not',
      async (_name, path) => {
        const statuses: number[] = [];
        for (let attempt = 0; attempt < ATTACKS; attempt += 1) {
          statuses.push((await path.attempt(attackers, owner.email, `guess ${attempt}`)).status);
        }
        expect(statuses).toEqual([
          ...Array<number>(FAILURES_PER_ACCOUNT_AND_ADDRESS).fill(401),
          ...Array<number>(ATTACKS - FAILURES_PER_ACCOUNT_AND_ADDRESS).fill(429),
        ]);
        const ownerSignsIn = await path.attempt(owners, owner.email, owner.password);
        expect([200, 201, 303], ownerSignsIn.body).toContain(ownerSignsIn.status);
        server.clock.advance(60_000);
        for (const password of ['another guess', owner.password]) {
          const refused = await path.attempt(attackers, owner.email, password);
          expect(refused.status, password).toBe(429);
          expect(refused.retryAfter).toBe(String(FAILURE_WINDOW_SECONDS - 60));
          expect(refused.body).toContain(
            'too many failed sign-ins for this account from this address: try again in 14 minutes',
          );
        }
        // Once the window is over, the attacker's address may try again.
        server.clock.advance((FAILURE_WINDOW_SECONDS - 60) * 1000);
        expect((await path.attempt(attackers, owner.email, 'one more guess')).status).toBe(401);
      },
    );

    it('an address that fails across many accounts is refused for every account; others are not', async () => {
      const [login] = PATHS;
      const victims = await Promise.all(
        Array.from({ length: FAILURES_PER_ADDRESS }, (_, index) => createPerson(server, `Victim ${index}`)),
      );
      for (const victim of victims) {
        expect((await login!.attempt(attackers, victim.email, 'password1')).status).toBe(401);
      }
      const refused = await login!.attempt(attackers, owner.email, owner.password);
      expect(refused.status).toBe(429);
      expect(refused.retryAfter).toBe(String(FAILURE_WINDOW_SECONDS));
      expect(JSON.parse(refused.body)).toEqual({
        error: 'too many failed sign-ins from this address: try again in 15 minutes',
      });
      expect((await login!.attempt(owners, victims[0]!.email, victims[0]!.password)).status).toBe(200);
    });
  },
);
