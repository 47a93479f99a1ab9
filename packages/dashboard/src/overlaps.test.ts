/**
 * Two devices recording one ride (issue 16, "One ride per ride"): two rides, and each ride page says it
 * overlaps the other, with a link. Uploads through the server's queue, pages through the dashboard.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readFixture } from '../../../test/support/corpus.js';
import {
  Browser,
  createPerson,
  credentialsFor,
  taskEnded,
  taskIdOf,
  testServer,
  upload,
  type LegacyCredentials,
  type Person,
  type QueuedTask,
  type TestServer,
} from '@rideport/server/test-support';
import { dashboardPages } from './index.js';

let server: TestServer;
let rider: Person;
let credentials: LegacyCredentials;

beforeAll(async () => {
  server = await testServer({ queue: { workers: 2 }, pages: [dashboardPages] });
});
afterAll(async () => {
  await server.close();
});
beforeEach(async () => {
  rider = await createPerson(server, 'Ride Once');
  credentials = await credentialsFor(server, rider);
});

const WHOLE = readFixture('fit', 'wheel-antplus-bike-speed.fit');

async function send(name: string, bytes: Uint8Array): Promise<QueuedTask> {
  return taskEnded(server, credentials, taskIdOf(await upload(server, credentials, { name, bytes })));
}

/** A page's text with every run of white space as one space, as a browser shows it. */
const words = (page: string): string => page.replace(/\s+/g, ' ');

const tripIdsOf = (task: QueuedTask): number[] =>
  task.associated_objects.map((object) => object.trip!['id'] as number);

describe('two devices recording one ride', () => {
  it('are two rides, and each ride page says it overlaps the other, with a link', async () => {
    const [edge] = tripIdsOf(await send('edge.fit', readFixture('fit', 'two-devices-edge.fit')));
    const watchTask = await send('watch.fit', readFixture('fit', 'two-devices-watch.fit'));
    expect(watchTask.response_code).toBe('success');
    const [watch] = tripIdsOf(watchTask);
    expect(watch).not.toBe(edge);
    await server.store.assets.update('trip', edge!, rider.id, { name: 'Edge <530>' });
    await server.store.assets.update('trip', watch!, rider.id, { name: 'Watch' });

    const browser = new Browser(server.app);
    expect((await browser.signIn(rider.email, rider.password)).statusCode).toBe(303);
    const edgePage = words((await browser.get(`/dashboard/rides/${edge}`)).body);
    const watchPage = words((await browser.get(`/dashboard/rides/${watch}`)).body);
    expect(edgePage).toContain(
      `Overlaps <a href="/dashboard/rides/${watch}">Watch</a> (Garmin Forerunner 955, 10:00:04–10:09:59 Europe/Zurich): another recording of the same time.`,
    );
    expect(watchPage).toContain(
      `Overlaps <a href="/dashboard/rides/${edge}">Edge &lt;530&gt;</a> (Garmin Edge 530, 10:00:00–10:09:59 Europe/Zurich): another recording of the same time.`,
    );
  });

  it('a ride nothing overlaps says nothing of overlaps', async () => {
    const [id] = tripIdsOf(await send('ride.fit', WHOLE));
    const browser = new Browser(server.app);
    await browser.signIn(rider.email, rider.password);
    expect((await browser.get(`/dashboard/rides/${id}`)).body).not.toContain('Overlaps');
  });
});
