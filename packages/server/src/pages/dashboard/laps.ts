/**
 * The laps of a ride (issue 7): stored as the JSON of ridefile's Lap objects (migration 5), shown as
 * a table of start, duration, distance and the averages the file gives. Rows written before the
 * migration have none stored: "no laps recorded".
 */
import type { Lap } from '@rideport/ridefile';
import { storedJsonArray } from '../../store/asset-records.js';
import { html, type SafeHtml } from '../html.js';
import { duration, kilometres, localDateTime, UNKNOWN, whole } from './format.js';

const LAP_FIELDS: ReadonlyArray<Exclude<keyof Lap, 'source'>> = [
  'startTime',
  'elapsedSeconds',
  'timerSeconds',
  'distanceMeters',
  'ascentMeters',
  'descentMeters',
  'calories',
  'avgSpeedMetersPerSecond',
  'maxSpeedMetersPerSecond',
  'avgHeartRateBpm',
  'maxHeartRateBpm',
  'avgCadenceRpm',
  'maxCadenceRpm',
  'avgPowerWatts',
  'maxPowerWatts',
];

/**
 * The stored laps; anything that is not a finite number is null, and a damaged column no laps. Laps
 * stored before ridefile said where they came from are the file's.
 */
export function parseLaps(json: string | null): Lap[] {
  return storedJsonArray(json)
    .filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null)
    .map((item) => {
      const values = {} as Record<(typeof LAP_FIELDS)[number], number | null>;
      for (const field of LAP_FIELDS) {
        const value = item[field];
        values[field] = typeof value === 'number' && Number.isFinite(value) ? value : null;
      }
      return { ...values, source: item['source'] === 'points' ? 'points' : 'file' };
    });
}

/** "2 laps; start times in Europe/Zurich", and where the laps' numbers come from when not the file. */
function lapsCaption(laps: readonly Lap[], zone: string): string {
  const count = laps.length === 1 ? '1 lap' : `${laps.length} laps`;
  const computed = laps.some((lap) => lap.source === 'points')
    ? "; computed from the points read, as the file's own lap totals cover more than its points"
    : '';
  return `${count}; start times in ${zone}${computed}`;
}

export function lapsSection(lapsJson: string | null, timeZone: string | null): SafeHtml {
  const laps = parseLaps(lapsJson);
  const zone = timeZone ?? 'UTC';
  return html`<section aria-labelledby="laps-heading">
    <h2 id="laps-heading">Laps</h2>
    ${
      laps.length === 0
        ? html`<p>No laps recorded.</p>`
        : html`<table class="laps">
            <caption>
              ${lapsCaption(laps, zone)}
            </caption>
            <thead>
              <tr>
                <th scope="col">Lap</th>
                <th scope="col">Start</th>
                <th scope="col" class="number">Duration</th>
                <th scope="col" class="number">Distance</th>
                <th scope="col" class="number">Avg speed</th>
                <th scope="col" class="number">Avg heart rate</th>
                <th scope="col" class="number">Avg power</th>
              </tr>
            </thead>
            <tbody>
              ${laps.map(
                (lap, index) =>
                  html`<tr>
                    <th scope="row">${index + 1}</th>
                    <td>
                      ${lap.startTime === null ? UNKNOWN : localDateTime(lap.startTime * 1000, zone, { seconds: true })}
                    </td>
                    <td class="number">${duration(lap.timerSeconds ?? lap.elapsedSeconds)}</td>
                    <td class="number">${kilometres(lap.distanceMeters)}</td>
                    <td class="number">
                      ${
                        lap.avgSpeedMetersPerSecond === null
                          ? UNKNOWN
                          : `${(lap.avgSpeedMetersPerSecond * 3.6).toFixed(1)} km/h`
                      }
                    </td>
                    <td class="number">${whole(lap.avgHeartRateBpm, 'bpm')}</td>
                    <td class="number">${whole(lap.avgPowerWatts, 'W')}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
  </section>`;
}
