/**
 * No text from a file can break a list or a page (issue 17, "Text from files is unbounded"): GPX, TCX
 * and KML files with huge and hostile text in every text they can carry (names, creator, device, sport;
 * control characters, lone surrogates by character reference, right-to-left marks and overrides,
 * markup) go through the whole ingest path: POST /trips.json, the upload queue, the parser, the store.
 * Then the v1 list and detail, the legacy list, the task's status, and the dashboard's rides list and
 * ride page all answer 200 with valid JSON or HTML, of a bounded size, with the markup escaped. It
 * lives with the dashboard, whose pages it reads, and runs on both engines (vitest.config.ts).
 */
import { codePointCount } from '@rideport/ridefile';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Browser,
  createPerson,
  credentialsFor,
  htmlProblems,
  taskEnded,
  taskIdOf,
  testServer,
  upload,
  type Credentials,
  type TestServer,
} from '@rideport/server/test-support';
import { dashboardPages } from './index.js';

let server: TestServer;
let riderId: number;
let credentials: Credentials;
let browser: Browser;

beforeAll(async () => {
  server = await testServer({ queue: { workers: 1 }, pages: [dashboardPages] });
  const rider = await createPerson(server, 'Hostile Text');
  riderId = rider.id;
  credentials = await credentialsFor(server, rider);
  browser = new Browser(server.app);
  expect((await browser.signIn(rider.email, rider.password)).statusCode).toBe(303);
});
afterAll(async () => {
  await server.close();
});

/** The tag the hostile text carries: it must never reach a page as markup. */
const MARKER = 'hostile-tag';

/**
 * Pieces of hostile text as they stand in the XML, each valid where it stands (so the file stays a
 * ride), and what XML forbids (a NUL, an escape, a lone surrogate by reference), which the parser
 * reports and reads past. `attribute`: for attribute values (no CDATA).
 */
function pieces(attribute: boolean): fc.Arbitrary<string> {
  return fc
    .constantFrom(
      `&lt;${MARKER} onclick="alert(1)"&gt;`,
      `&lt;/${MARKER}&gt;`,
      '&lt;script&gt;alert(1)&lt;/script&gt;',
      '&quot;&apos;&amp;amp;',
      '&#x202E;',
      '&#x202D;',
      '&#x2066;',
      '\u202e',
      '\u200f',
      '\u200e',
      '\u061c',
      'שלום',
      'مرحبا',
      '🚴',
      '\ud83d\udc68\u200d\ud83d\udc69\u200d\ud83d\udc67',
      'e\u0301',
      ' ',
      '\n',
      '\t',
      'Morning ride',
      ...(attribute ? [] : [`<![CDATA[<${MARKER}>]]>`]),
    )
    .map((piece) => (attribute ? piece.replaceAll('"', '&quot;') : piece));
}

/** What XML forbids, a few times at most (the parser gives up after 200 errors, keeping what it read). */
const forbidden = fc.constantFrom(
  '&#0;',
  '&#x1B;',
  '&#xD800;',
  '&#xDFFF;',
  '\u0001',
  '\u001b',
  '\u007f',
  '\u0085',
);

/** A text of some pieces, then perhaps its valid part repeated up to a hundred thousand times. */
function hostileText(attribute: boolean): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.array(fc.oneof(pieces(attribute), forbidden), { maxLength: 12 }),
      fc.array(pieces(attribute), { minLength: 1, maxLength: 6 }),
      fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 100_000 })),
    )
    .map(([start, repeated, times]) => start.join('') + repeated.join('').repeat(times));
}

interface HostileFile {
  format: 'gpx' | 'tcx' | 'kml';
  name: string;
  creator: string;
  sport: string;
}

const hostileFile: fc.Arbitrary<HostileFile> = fc.record({
  format: fc.constantFrom('gpx', 'tcx', 'kml'),
  name: hostileText(false),
  creator: hostileText(true),
  sport: hostileText(true),
});

let rideNumber = 0;

/** The file, a ride of three points at a time no other run uses (no upload is another's duplicate). */
function fileOf(file: HostileFile): { name: string; bytes: Uint8Array } {
  rideNumber += 1;
  const start = Date.UTC(2024, 0, 1) + rideNumber * 3_600_000;
  const times = [0, 10, 20].map((seconds) => new Date(start + seconds * 1000).toISOString());
  const positions = [0, 1, 2].map((i) => [8.5 + i * 1e-3, 47.3 + i * 1e-3] as const);
  let xml: string;
  if (file.format === 'gpx') {
    const points = positions
      .map(([lon, lat], i) => `<trkpt lat="${lat}" lon="${lon}"><time>${times[i]}</time></trkpt>`)
      .join('');
    xml =
      `<?xml version="1.0" encoding="UTF-8"?><gpx version="1.1" creator="${file.creator}" xmlns="http://www.topografix.com/GPX/1/1">` +
      `<trk><name>${file.name}</name><type>${file.sport}</type><trkseg>${points}</trkseg></trk></gpx>`;
  } else if (file.format === 'tcx') {
    const points = positions
      .map(
        ([lon, lat], i) =>
          `<Trackpoint><Time>${times[i]}</Time><Position><LatitudeDegrees>${lat}</LatitudeDegrees>` +
          `<LongitudeDegrees>${lon}</LongitudeDegrees></Position></Trackpoint>`,
      )
      .join('');
    xml =
      `<?xml version="1.0" encoding="UTF-8"?><TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">` +
      `<Activities><Activity Sport="${file.sport}"><Id>${times[0]}</Id><Lap StartTime="${times[0]}"><Track>${points}</Track></Lap>` +
      `<Creator><Name>${file.name}</Name></Creator></Activity></Activities></TrainingCenterDatabase>`;
  } else {
    xml =
      `<?xml version="1.0" encoding="UTF-8"?><kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2">` +
      `<Document><name>${file.creator}</name><Placemark><name>${file.name}</name><gx:Track>` +
      times.map((time) => `<when>${time}</when>`).join('') +
      positions.map(([lon, lat]) => `<gx:coord>${lon} ${lat} 400</gx:coord>`).join('') +
      `</gx:Track></Placemark></Document></kml>`;
  }
  return { name: `hostile.${file.format}`, bytes: new TextEncoder().encode(xml) };
}

// eslint-disable-next-line no-control-regex -- control characters are what is looked for
const FORBIDDEN_IN_TEXT = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** A text the parser took from the file: bounded and clean. */
function expectFileText(text: unknown, maxChars: number): void {
  if (text === null) return;
  expect(typeof text).toBe('string');
  expect(codePointCount(text as string)).toBeLessThanOrEqual(maxChars);
  expect(text).not.toMatch(FORBIDDEN_IN_TEXT);
  expect(text).not.toMatch(LONE_SURROGATE);
}

/** A page: 200, HTML that nests, no markup of the file's, and small. */
function expectPage(
  response: { statusCode: number; body: string; rawPayload: Buffer },
  maxBytes: number,
): void {
  expect(response.statusCode).toBe(200);
  expect(response.rawPayload.length).toBeLessThan(maxBytes);
  expect(htmlProblems(response.body)).toEqual([]);
  expect(response.body).not.toContain(`<${MARKER}`);
  expect(response.body).not.toContain('<script>alert');
}

interface TripRecord {
  id: number;
  name: string;
  device: string | null;
  warnings: { code: string; message: string }[];
}

describe('hostile text in every text of a file', () => {
  it('is checked by a page check that sees markup and bad nesting', () => {
    expect(htmlProblems('<!doctype html><html><body><p>a &lt;b&gt; <br> c</p></body></html>')).toEqual([]);
    expect(htmlProblems(`<p>Ride <${MARKER}>x</p>`)).toEqual([
      `</p> at 22 closes <${MARKER}>`,
      'elements never closed: p',
    ]);
    expect(htmlProblems('<p>1 < 2</p>')).toEqual(['a "<" that begins no tag at 5: "< 2</p>"']);
  });

  it('never breaks a list, a record or a page', async () => {
    await fc.assert(
      fc.asyncProperty(hostileFile, async (file) => {
        const answer = await upload(server, credentials, fileOf(file));
        const task = await taskEnded(server, credentials, taskIdOf(answer));
        expect(task.message.length).toBeLessThanOrEqual(4000);
        expect(task.status, task.message).toBe(1);
        const tripId = (task.associated_objects[0]!.trip as { id: number }).id;

        const auth = { authorization: credentials.basic };
        const v1List = await server.app.inject({ url: '/api/v1/trips.json?page_size=200', headers: auth });
        const v1Detail = await server.app.inject({ url: `/api/v1/trips/${tripId}.json`, headers: auth });
        const legacyList = await server.app.inject({
          url: `/users/${riderId}/trips.json?apikey=${credentials.apiKey}&auth_token=${credentials.authToken}&limit=200`,
        });
        for (const response of [v1List, v1Detail, legacyList]) {
          expect(response.statusCode).toBe(200);
          expect(() => JSON.parse(response.body) as unknown).not.toThrow();
        }
        // Every run adds a trip: at most ~10 KB each (names of 255 characters, a few bounded warnings).
        const trips = v1List.json<{ trips: TripRecord[] }>().trips;
        expect(v1List.rawPayload.length).toBeLessThan(trips.length * 10_000);
        expect(legacyList.rawPayload.length).toBeLessThan(trips.length * 10_000);
        expect(v1Detail.rawPayload.length).toBeLessThan(10_000);
        const { trip } = v1Detail.json<{ trip: TripRecord }>();
        expect(trip.name.length).toBeGreaterThan(0);
        expectFileText(trip.name, 255);
        expectFileText(trip.device, 255);
        for (const warning of trip.warnings)
          expect(codePointCount(warning.message)).toBeLessThanOrEqual(1100);

        expectPage(await browser.get('/dashboard/rides'), 256 * 1024);
        expectPage(await browser.get(`/dashboard/rides/${tripId}`), 256 * 1024);
      }),
      { numRuns: 30 },
    );
  });
});
