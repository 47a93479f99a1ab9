/**
 * The rider's overview (issue 19, "A rider's overview", like Strava's training log and FitTrackee's
 * statistics): distance, moving time, climb and rides per week for the last 12 weeks and per month
 * for the last 12 months, as bar charts and a table, in the rider's units and time zone; and the best
 * power over all rides for each window of the power curve, each with a link to the ride that holds
 * it. Each ride's curve is computed once and kept (store/power-curves.ts).
 *
 *   GET /dashboard/overview
 */
import { POWER_CURVE_SECONDS } from '@rideport/ridefile';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  csrfToken,
  html,
  type RideCurve,
  SafeHtml,
  sendPage,
  type ServerContext,
  type Units,
  type UserRow,
} from '@rideport/server/web';
import { windowWords } from './analysis-section.js';
import { barChart } from './bar-chart.js';
import { distance, duration, elevation, localDateTime, UNIT_SYSTEMS, UNKNOWN, whole } from './format.js';
import { PREFERENCES_PAGE } from './preferences-page.js';
import { SYNC_PAGE } from './sync.js';
import { firstPeriodFrom, totals, type Period, type PeriodTotal } from './totals.js';

export const OVERVIEW_PAGE = '/dashboard/overview';

/**
 * Bar charts two abreast on a wide screen, one under another on a phone; inline, as the page runs no
 * script and the layout's policy allows inline styles only.
 */
const OVERVIEW_STYLE = new SafeHtml(`
  .bar-charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 24rem), 1fr)); gap: .5rem 1.5rem; }
  .bar-chart { margin: 0; }
  .bar-chart svg { width: 100%; height: auto; }
  table.totals, table.curve { margin: 1rem 0; }
  table.totals th[scope=row], table.curve td.number, table.curve td.date { white-space: nowrap; }
`);

/** Periods shown of each kind. */
const PERIODS = 12;

const WEEK_LABEL = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });
const MONTH_LABEL = new Intl.DateTimeFormat('en-GB', { month: 'short', year: '2-digit', timeZone: 'UTC' });
/** The tables' words for a period (issue 40: months were "2026-01-01"): "5 Jan 2026", "January 2026". */
const WEEK_TITLE = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  timeZone: 'UTC',
});
const MONTH_TITLE = new Intl.DateTimeFormat('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' });

function periodLabel(total: PeriodTotal, period: Period, { long = false } = {}): string {
  const date = new Date(`${total.start}T00:00:00Z`);
  const format = period === 'week' ? (long ? WEEK_TITLE : WEEK_LABEL) : long ? MONTH_TITLE : MONTH_LABEL;
  return format.format(date);
}

function totalsSection(period: Period, rows: readonly PeriodTotal[], units: Units): SafeHtml {
  const words =
    period === 'week'
      ? { heading: 'Weekly totals', each: 'Week of' }
      : { heading: 'Monthly totals', each: 'Month' };
  const { distance: distanceUnit, elevation: elevationUnit } = UNIT_SYSTEMS[units];
  const charts: ReadonlyArray<{
    key: string;
    title: string;
    colour: string;
    value: (total: PeriodTotal) => number;
    text: (total: PeriodTotal) => string;
  }> = [
    {
      key: 'distance',
      title: `Distance (${distanceUnit.unit})`,
      colour: '#0b57a4',
      value: (total) => total.distance * distanceUnit.perMetre,
      text: (total) => distance(total.distance, units),
    },
    {
      key: 'time',
      title: 'Moving time',
      colour: '#6a1b9a',
      value: (total) => total.movingTime,
      text: (total) => duration(total.movingTime),
    },
    {
      key: 'elevation',
      title: `Elevation gain (${elevationUnit.unit})`,
      colour: '#2e6b30',
      value: (total) => total.elevationGain * elevationUnit.perMetre,
      text: (total) => elevation(total.elevationGain, units),
    },
    {
      key: 'rides',
      title: 'Rides',
      colour: '#9a4a00',
      value: (total) => total.rides,
      text: (total) => String(total.rides),
    },
  ];
  const id = `${period}-totals`;
  return html`<section aria-labelledby="${id}-heading">
    <h2 id="${id}-heading">${words.heading}</h2>
    <div class="bar-charts">
      ${charts.map(({ key, title, colour, value, text }) =>
        barChart({
          id: `${id}-${key}`,
          title,
          colour,
          bars: rows.map((total) => ({
            label: periodLabel(total, period),
            value: value(total),
            text: text(total),
          })),
        }),
      )}
    </div>
    <table class="totals" tabindex="0">
      <caption>
        ${words.heading}, oldest first
      </caption>
      <thead>
        <tr>
          <th scope="col">${words.each}</th>
          <th scope="col" class="number">Rides</th>
          <th scope="col" class="number">Distance</th>
          <th scope="col" class="number">Moving time</th>
          <th scope="col" class="number">Elevation gain</th>
        </tr>
      </thead>
      <tbody>
        ${rows.map(
          (total) =>
            html`<tr>
              <th scope="row">
                <time datetime="${total.start}">${periodLabel(total, period, { long: true })}</time>
              </th>
              <td class="number">${total.rides}</td>
              <td class="number">${distance(total.distance, units)}</td>
              <td class="number">${duration(total.movingTime)}</td>
              <td class="number">${elevation(total.elevationGain, units)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </section>`;
}

/** For each window, the highest of the rides' bests and the ride that holds it. */
export function bestCurve(
  rides: readonly RideCurve[],
): Array<{ seconds: number; best: { watts: number; ride: RideCurve } | null }> {
  return POWER_CURVE_SECONDS.map((seconds, index) => {
    let best: { watts: number; ride: RideCurve } | null = null;
    for (const ride of rides) {
      const watts = ride.curve[index];
      if (watts !== null && watts !== undefined && (best === null || watts > best.watts))
        best = { watts, ride };
    }
    return { seconds, best };
  });
}

/** The day a ride began, in its own zone (else the rider's), as the lists write it. */
function rideDay(ride: RideCurve, riderZone: string): string {
  return ride.departedAt === null
    ? UNKNOWN
    : localDateTime(ride.departedAt, ride.timeZone ?? riderZone).slice(0, 10);
}

function powerSection(rides: readonly RideCurve[], pending: number, riderZone: string): SafeHtml {
  const curve = bestCurve(rides);
  return html`<section aria-labelledby="best-power-heading">
    <h2 id="best-power-heading">Best power</h2>
    ${
      rides.length === 0
        ? html`<p>None of your rides records power yet.</p>`
        : html`<table class="curve" id="best-power">
            <caption>
              The highest average over any stretch of each length, over all
              ${rides.length === 1 ? 'your ride' : `your ${rides.length} rides`} with power
            </caption>
            <thead>
              <tr>
                <th scope="col">Length</th>
                <th scope="col" class="number">Best</th>
                <th scope="col">Ride</th>
                <th scope="col">Date</th>
              </tr>
            </thead>
            <tbody>
              ${curve.map(
                ({ seconds, best }) =>
                  html`<tr>
                    <th scope="row">${windowWords(seconds)}</th>
                    <td class="number">${whole(best?.watts ?? null, 'W')}</td>
                    <td>
                      ${best === null ? 'no ride this long' : html`<a class="cell-text" href="/dashboard/rides/${best.ride.tripId}">${best.ride.name}</a>`}
                    </td>
                    <td class="date">${best === null ? '' : rideDay(best.ride, riderZone)}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
    ${
      pending > 0 &&
      html`<p class="notice" role="status">
        ${pending === 1 ? '1 more ride is' : `${pending} more rides are`} still to be measured: reload the
        page to include ${pending === 1 ? 'it' : 'them'}.
      </p>`
    }
  </section>`;
}

export async function overviewPage(
  request: FastifyRequest,
  reply: FastifyReply,
  context: ServerContext,
  user: UserRow,
): Promise<FastifyReply> {
  const { store, options } = context;
  const preferences = await store.preferences.get(user.id);
  const timeZone = preferences.timeZone ?? 'UTC';
  const now = options.clock();
  const from = Math.min(
    firstPeriodFrom(now, timeZone, 'week', PERIODS),
    firstPeriodFrom(now, timeZone, 'month', PERIODS),
  );
  const rides = await store.trainingLog.ridesSince(user.id, from);
  const curves = await store.powerCurves.ofRider(user.id);
  const periods = { now, timeZone, count: PERIODS };
  return sendPage(reply, 200, {
    title: 'Overview',
    user,
    csrfToken: csrfToken(request, reply),
    current: 'overview',
    wide: true,
    head: html`<style>
      ${OVERVIEW_STYLE}
    </style>`,
    body: html`<h1>Overview</h1>
      <p>
        Weeks run Monday to Sunday in your time zone (${timeZone}); change it, or your units, in
        <a href="${PREFERENCES_PAGE}">Preferences</a>.
        ${rides.length === 0 && html`No rides in the last year: rides come from the <a href="${SYNC_PAGE}">Sync page</a>.`}
      </p>
      ${totalsSection('week', totals(rides, { ...periods, period: 'week' }), preferences.units)}
      ${totalsSection('month', totals(rides, { ...periods, period: 'month' }), preferences.units)}
      ${powerSection(curves.rides, curves.pending, timeZone)}`,
  });
}
