/**
 * The ride page of a 50,000-point ride (`npm run bench:ride-page`, issue 19: "server p50 ≤ 100 ms,
 * script ≤ 200 ms"): the real server on a SQLite file, listening on loopback, a synthetic ride of
 * 50,000 points a second apart with positions, elevation, heart rate, cadence and power, and a rider
 * with an FTP (so the whole analysis runs).
 *   - server: GET /dashboard/rides/{id} with the rider's session, one request at a time, from request
 *     to the last byte (rendering, the analysis, the drawing data);
 *   - script: the page's own script in Debian's Chromium, from its first line to the charts and map
 *     drawn, as the page measures it with the Performance API (`rideport-script`), over fresh loads.
 * Medians over the runs; skips (exit 0) without Chromium. Not part of `npm test`: tests never assert
 * wall-clock times.
 */
import { trackFromPoints } from '@rideport/ridefile';
import { chromiumAvailable, CHROMIUM_SKIP_REASON, launchChromium } from '../test/support/chromium.js';
import { longRide } from '../test/support/long-ride.js';
import { signedInPage, startPageServer } from '../test/support/page-server.js';
import { median } from './child-timing.js';
import { formatTable } from './table.js';

const POINTS = 50_000;
const SERVER_RUNS = 40;
const SCRIPT_RUNS = 10;
const SERVER_TARGET_MS = 100;
const SCRIPT_TARGET_MS = 200;
const EMAIL = 'bench.rider@example.com';
const PASSWORD = 'correct horse bench';

async function main(): Promise<void> {
  if (!chromiumAvailable) {
    console.log(`bench:ride-page skipped: ${CHROMIUM_SKIP_REASON}`);
    return;
  }
  const server = await startPageServer('bench-ride-page');
  const browser = await launchChromium();
  try {
    const { store } = server.app.rideport;
    const rider = await store.users.createPerson({ email: EMAIL, password: PASSWORD, name: 'Bench' });
    await store.preferences.save(rider.id, {
      units: 'metric',
      timeZone: 'Europe/Zurich',
      ftpWatts: 250,
      thresholdHeartRate: 165,
      maxHeartRate: 190,
    });
    const track = trackFromPoints(longRide(POINTS), { name: 'Fifty thousand points', sport: 'cycling' });
    const id = (await store.assets.createFromTrack(rider.id, track)).row.id;
    const path = `/dashboard/rides/${id}`;
    const { context, page } = await signedInPage(browser, server, { email: EMAIL, password: PASSWORD });
    const cookie = (await context.cookies()).map(({ name, value }) => `${name}=${value}`).join('; ');

    const serverMs: number[] = [];
    for (let run = -3; run < SERVER_RUNS; run++) {
      const started = performance.now();
      const response = await fetch(`${server.url}${path}`, { headers: { cookie } });
      const body = await response.text();
      const elapsed = performance.now() - started;
      if (response.status !== 200 || !body.includes('Fifty thousand points')) {
        throw new Error(`the ride page answered ${response.status}`);
      }
      if (run >= 0) serverMs.push(elapsed); // the first three warm up
    }

    const scriptMs: number[] = [];
    for (let run = -1; run < SCRIPT_RUNS; run++) {
      await page.goto(`${server.url}${path}`);
      await page.waitForFunction(() => performance.getEntriesByName('rideport-script').length > 0);
      const duration = await page.evaluate(
        () => performance.getEntriesByName('rideport-script')[0]!.duration,
      );
      if (run >= 0) scriptMs.push(duration);
    }

    const row = (what: string, values: number[], target: number): string[] => {
      const p50 = median(values);
      return [
        what,
        p50.toFixed(1),
        Math.max(...values).toFixed(1),
        `≤ ${target}`,
        p50 <= target ? 'met' : 'MISSED',
      ];
    };
    console.log(`Ride page of a ${POINTS.toLocaleString('en-GB')}-point ride`);
    console.log(
      formatTable(
        ['measure', 'p50 ms', 'max ms', 'target', ''],
        [
          row(`server, ${SERVER_RUNS} requests`, serverMs, SERVER_TARGET_MS),
          row(`script, ${SCRIPT_RUNS} loads`, scriptMs, SCRIPT_TARGET_MS),
        ],
        ['left', 'right', 'right', 'right', 'left'],
      ),
    );
    await context.close();
  } finally {
    await browser.close();
    await server.close();
  }
}

await main();
