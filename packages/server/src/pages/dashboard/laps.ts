/**
 * The laps of a ride (issue 7): stored as the JSON of ridefile's Lap objects (migration 5), shown as
 * a table of start, duration, distance and the averages the file gives. Rows written before the
 * migration have none stored: "no laps recorded".
 */
import type { Lap } from '@rideport/ridefile';
import { storedJsonArray } from '../../store/asset-records.js';
import { html, type SafeHtml } from '../html.js';
import { duration, kilometres, localDateTime, UNKNOWN, whole } from './format.js';

const LAP_FIELDS: ReadonlyArray<keyof Lap> = [
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

/** The stored laps; anything that is not a finite number is null, and a damaged column no laps. */
export function parseLaps(json: string | null): Lap[] {
  return storedJsonArray(json)
    .filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null)
    .map((item) => {
      const lap = {} as Record<keyof Lap, number | null>;
      for (const field of LAP_FIELDS) {
        const value = item[field];
        lap[field] = typeof value === 'number' && Number.isFinite(value) ? value : null;
      }
      return lap;
    });
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
              ${laps.length === 1 ? '1 lap' : `${laps.length} laps`}; start times in ${zone}
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
