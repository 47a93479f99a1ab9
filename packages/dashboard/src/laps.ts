/**
 * The laps of a ride (issue 7): stored as the JSON of ridefile's Lap objects (migration 5), shown as
 * a table of start, duration, distance and the averages the file gives, in the rider's units; with
 * normalized power, average power and work computed from the lap's points by the ride analysis
 * (issue 19) where the points have power. Rows written before the migration have none stored: "no
 * laps recorded".
 */
import { analyseRide, type Lap, type PowerAnalysis } from '@rideport/ridefile';
import { html, type Preferences, type SafeHtml, storedJsonArray } from '@rideport/server/web';
import { distance, duration, speed, UNKNOWN, whole, zonedTime } from './format.js';
import type { Columns } from './series.js';

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

/**
 * The power analysis of a lap's points: the rows timed from its start to its end (its elapsed time, else
 * its timer time); null when it has no times or its points no power.
 */
function lapPower(lap: Lap, columns: Columns, preferences: Preferences): PowerAnalysis | null {
  const length = lap.elapsedSeconds ?? lap.timerSeconds;
  if (lap.startTime === null || length === null) return null;
  const start = lap.startTime;
  const end = start + length;
  const { t } = columns;
  let from = 0;
  while (from < columns.length && !(t[from]! >= start)) from++;
  let to = from;
  while (to < columns.length && (Number.isNaN(t[to]!) || t[to]! < end)) to++;
  return from === to ? null : analyseRide(columns, preferences, from, to).power;
}

/** "2 laps; start times in Europe/Zurich", and where the laps' numbers come from when not the file. */
function lapsCaption(laps: readonly Lap[], zone: string): string {
  const count = laps.length === 1 ? '1 lap' : `${laps.length} laps`;
  const computed = laps.some((lap) => lap.source === 'points')
    ? "; computed from the points read, as the file's own lap totals cover more than its points"
    : '';
  return `${count}; start times in ${zone}${computed}`;
}

export function lapsSection(
  lapsJson: string | null,
  zone: string,
  { columns, preferences }: { columns: Columns; preferences: Preferences },
): SafeHtml {
  const laps = parseLaps(lapsJson);
  const { units } = preferences;
  const powers = laps.map((lap) => lapPower(lap, columns, preferences));
  const withPower = powers.some((power) => power !== null);
  return html`<section aria-labelledby="laps-heading">
    <h2 id="laps-heading">Laps</h2>
    ${
      laps.length === 0
        ? html`<p>No laps recorded.</p>`
        : html`<table class="laps" tabindex="0">
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
                ${
                  withPower &&
                  html`<th scope="col" class="number">Normalized power</th>
                    <th scope="col" class="number">Work</th>`
                }
              </tr>
            </thead>
            <tbody>
              ${laps.map(
                (lap, index) =>
                  html`<tr>
                    <th scope="row">${index + 1}</th>
                    <td>
                      ${lap.startTime === null ? UNKNOWN : zonedTime(lap.startTime * 1000, zone, { seconds: true })}
                    </td>
                    <td class="number">${duration(lap.timerSeconds ?? lap.elapsedSeconds)}</td>
                    <td class="number">${distance(lap.distanceMeters, units)}</td>
                    <td class="number">
                      ${speed(lap.avgSpeedMetersPerSecond === null ? null : lap.avgSpeedMetersPerSecond * 3.6, units)}
                    </td>
                    <td class="number">${whole(lap.avgHeartRateBpm, 'bpm')}</td>
                    <td class="number">
                      ${whole(lap.avgPowerWatts ?? powers[index]?.averageWatts ?? null, 'W')}
                    </td>
                    ${
                      withPower &&
                      html`<td class="number">${whole(powers[index]?.normalizedWatts ?? null, 'W')}</td>
                        <td class="number">${whole(powers[index]?.workKilojoules ?? null, 'kJ')}</td>`
                    }
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
  </section>`;
}
