/**
 * The page of one ride or route (issue 7): the summary as a definition list, a map of the track
 * (Leaflet; OpenStreetMap tiles when online, the outline and start/end markers as vector layers that
 * draw without them), charts of each channel the ride has against time or distance (uPlot), the laps,
 * and the downloads. Everything but the map and the charts works without JavaScript; those two get
 * their data as downsampled JSON embedded in the page (series.ts) and say in words what they show.
 */
import {
  activityInWords,
  type AssetRow,
  type AssetType,
  csrfToken,
  html,
  isVirtualActivity,
  type Preferences,
  rideTimeZone,
  type RouteRow,
  SafeHtml,
  sendPage,
  type ServerContext,
  storedWarnings,
  type TripRow,
  type Units,
  type UserRow,
  warnedTrack,
} from '@rideport/server/web';
import type { FastifyReply, FastifyRequest } from 'fastify';

import { syncSources, WORDS } from './access.js';
import { DOWNLOAD_FORMATS, downloadPath, FORMAT_LABELS } from './downloads.js';
import { analyseRide, elevationAndTemperature, saidWarnings, type Stat } from '@rideport/ridefile';
import { analysisSection } from './analysis-section.js';
import {
  distance,
  duration,
  elevation,
  localDateTime,
  speed,
  UNIT_SYSTEMS,
  UNKNOWN,
  whole,
  zonedTime,
  zoneAbbreviation,
} from './format.js';
import { lapsSection } from './laps.js';
import { routeClubsSection } from './clubs.js';
import { changeNotice, manageLinks } from './manage.js';
import { rideLinks, type NamedRide } from './ride-links.js';
import { drawingData, readColumns, type ChartSeries, type DrawingData } from './series.js';
import { assetUrls } from './static-assets.js';

/**
 * The ride and route pages run our own scripts (and only those) and show OpenStreetMap's tiles; the
 * rest of the default policy (layout.ts) stays.
 */
export const DASHBOARD_CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
  "img-src 'self' https://tile.openstreetmap.org; base-uri 'none'; frame-ancestors 'none'";

export async function assetPage<T extends AssetType>(
  request: FastifyRequest,
  reply: FastifyReply,
  context: ServerContext,
  user: UserRow,
  type: T,
  row: AssetRow<T>,
): Promise<FastifyReply> {
  const points = (await context.store.assets.points(type, row.id)) ?? [];
  const preferences = await context.store.preferences.get(user.id);
  const columns = readColumns(points);
  const data = drawingData(columns, preferences.units);
  const words = WORDS[type];
  const urls = assetUrls();
  const trip = type === 'trip' ? (row as TripRow) : null;
  // Every time on the page in one zone, named with it (issue 19; ride-time-zone.ts).
  const zone = trip === null ? (preferences.timeZone ?? 'UTC') : rideTimeZone(trip, preferences.timeZone);
  const summary =
    trip === null
      ? routeSummary(row, data, preferences, zone)
      : tripSummary(trip, data, syncSources(context, [trip.id]).get(trip.id), preferences, zone);
  const overlaps = trip === null ? [] : await overlappingRides(context, trip, zone);
  const showMap = trip === null || !stayedIndoors(trip);
  const token = csrfToken(request, reply);
  // Issue 20, "Clubs": a route is shared with clubs from its page; rides are not club items.
  const clubs = trip === null ? await routeClubsSection(request, context, user, row.id, token) : '';
  const original = row.original_file_id === null ? null : `${words.path}/${row.id}/original`;
  const body = html`<p><a href="${words.path}">← All ${words.many}</a></p>
    ${changeNotice(request, type)}
    <h1>${row.name}</h1>
    ${manageLinks(type, row.id)} ${fileNotice(type, row, zone)}
    ${row.description !== null && html`<p class="description">${row.description}</p>`}
    ${
      overlaps.length > 0 &&
      html`<p class="notice" id="overlaps">
        Overlaps ${rideLinks(overlaps)}: ${overlaps.length === 1 ? 'another recording' : 'other recordings'}
        of the same time.
      </p>`
    }
    <section aria-labelledby="summary-heading">
      <h2 id="summary-heading">Summary</h2>
      ${summary}
    </section>
    ${trip !== null && analysisSection(analyseRide(columns, preferences))}
    ${showMap ? mapSection(data, trip?.time_zone ?? null) : noMapSection()}
    ${chartsSection(data, words.one, trip, elevationAndTemperature(points), preferences.units)}
    ${lapsSection(row.laps, zone, { columns, preferences })} ${clubs}
    <section aria-labelledby="downloads-heading">
      <h2 id="downloads-heading">Downloads</h2>
      <p>Every recorded point, in the format you choose.</p>
      <ul class="downloads">
        ${DOWNLOAD_FORMATS.map(
          (format) =>
            html`<li>
              <a href="${downloadPath(type, row.id, format)}" download>${FORMAT_LABELS[format]}</a>
            </li>`,
        )}
      </ul>
      ${
        original !== null &&
        html`<p><a href="${original}" download>Download original</a>: the file as it was uploaded.</p>`
      }
    </section>
    <script type="application/json" id="asset-data">
      ${embeddedJson(data)}
    </script>`;
  return sendPage(reply, 200, {
    title: row.name,
    user,
    csrfToken: token,
    current: type === 'trip' ? 'rides' : 'routes',
    wide: true,
    contentSecurityPolicy: DASHBOARD_CONTENT_SECURITY_POLICY,
    head: html`<link rel="stylesheet" href="${urls.leafletCss}" />
      <link rel="stylesheet" href="${urls.uplotCss}" />
      <link rel="stylesheet" href="${urls.dashboardCss}" />
      <script defer src="${urls.leafletJs}"></script>
      <script defer src="${urls.uplotJs}"></script>
      <script type="module" src="${urls.dashboardJs}"></script>`,
    body,
  });
}

/**
 * What was wrong with the file, in words, at the top of the page (issue 16: a cut-off ride must not
 * pass for a whole one): a note with a heading, which screen readers list among the page's headings.
 * Nothing for a sound file. Its times are in `zone`, the page's (issue 19: a virtual ride's in the
 * rider's zone, not its virtual world's).
 */
function fileNotice(type: AssetType, row: RouteRow | TripRow, zone: string): SafeHtml | '' {
  const warnings = saidWarnings(storedWarnings(row.warnings), {
    ...warnedTrack(type, row),
    timeZone: zone,
    // Every time on the page says its zone (issue 40: the warning's did not).
    zoneName: (milliseconds) => zoneAbbreviation(milliseconds, zone),
  });
  if (warnings.length === 0) return '';
  const heading = warnings.length === 1 ? 'A problem with the file' : 'Problems with the file';
  return html`<section class="notice file-notice" aria-labelledby="file-notice-heading">
    <h2 id="file-notice-heading">${heading}</h2>
    ${
      warnings.length === 1
        ? html`<p data-code="${warnings[0]!.code}">${warnings[0]!.message}</p>`
        : html`<ul>
            ${warnings.map((warning) => html`<li data-code="${warning.code}">${warning.message}</li>`)}
          </ul>`
    }
  </section>`;
}

/**
 * The owner's other rides whose time overlaps this one's (issue 16): recordings of the same time from
 * other devices, both kept. Each one's page names this one back (the rule is symmetric). Rides often
 * share a made-up name ("Morning Ride"), so each is told by its device and times, in this
 * ride's time zone.
 */
async function overlappingRides(context: ServerContext, trip: TripRow, zone: string): Promise<NamedRide[]> {
  if (trip.started_at === null || trip.ended_at === null) return [];
  const rides = await context.store.tripRecordings.inRange(trip.user_id, {
    fromMs: trip.started_at,
    toMs: trip.ended_at,
    meet: 'overlapping',
    exceptId: trip.id,
  });
  const time = (ms: number | null): string =>
    ms === null ? '?' : localDateTime(ms, zone, { seconds: true }).slice('YYYY-MM-DD '.length);
  return rides.map((ride) => ({
    id: ride.id,
    name: ride.name,
    detail: `${ride.device ?? 'device unknown'}, ${time(ride.started_at)}–${time(ride.ended_at)} ${zone}`,
  }));
}

/**
 * JSON inside a script element: `<` is written as \u003c, so no `</script>` (or `<!--`) a name could
 * hold ends the element early; the data holds only numbers anyway.
 */
function embeddedJson(data: DrawingData): SafeHtml {
  return new SafeHtml(JSON.stringify(data).replace(/</g, '\\u003c'));
}

function definitions(entries: ReadonlyArray<[term: string, value: SafeHtml | string]>): SafeHtml {
  return html`<dl class="summary">
    ${entries.map(
      ([term, value]) =>
        html`<div>
          <dt>${term}</dt>
          <dd>${value}</dd>
        </div>`,
    )}
  </dl>`;
}

function pair(average: number | null, maximum: number | null, unit: string): string {
  if (average === null && maximum === null) return UNKNOWN;
  return `${whole(average, unit)} average, ${whole(maximum, unit)} maximum`;
}

/**
 * An indoor ride (a trainer, a treadmill: docs/contributors/decisions.md §2's stationary kinds) has no way to show; a
 * virtual one keeps the map of its world.
 */
function stayedIndoors(trip: TripRow): boolean {
  return trip.is_stationary === 1 && !isVirtualActivity(trip.activity_type);
}

function tripSummary(
  trip: TripRow,
  data: DrawingData,
  source: string | undefined,
  { units }: Preferences,
  zone: string,
): SafeHtml {
  const start = trip.departed_at === null ? UNKNOWN : html`${zonedTime(trip.departed_at, zone)} (${zone})`;
  return definitions([
    ['Start', start],
    ['Distance', distance(trip.distance, units)],
    ['Moving time', duration(trip.moving_time)],
    ['Elapsed time', duration(trip.duration)],
    ['Average speed', speed(trip.avg_speed, units)],
    ['Maximum speed', speed(trip.max_speed, units)],
    ['Elevation gain', elevation(trip.elevation_gain, units)],
    ['Elevation loss', elevation(trip.elevation_loss, units)],
    ['Heart rate', pair(trip.avg_hr, trip.max_hr, 'bpm')],
    ['Cadence', pair(trip.avg_cad, trip.max_cad, 'rpm')],
    ['Power', pair(trip.avg_watts, trip.max_watts, 'W')],
    ['Calories', whole(trip.calories, 'kcal')],
    ['Activity', activityInWords(trip.activity_type) ?? UNKNOWN],
    ['Device', trip.device ?? UNKNOWN],
    ['Sync source', source ?? UNKNOWN],
    ['Points', String(data.pointCount)],
  ]);
}

function routeSummary(route: RouteRow, data: DrawingData, { units }: Preferences, zone: string): SafeHtml {
  return definitions([
    ['Added', html`${zonedTime(route.created_at, zone)} (${zone})`],
    ['Distance', distance(route.distance, units)],
    ['Elevation gain', elevation(route.elevation_gain, units)],
    ['Elevation loss', elevation(route.elevation_loss, units)],
    ['Shape', route.track_type.replaceAll('_', ' ')],
    ['Terrain', route.terrain],
    ['Points', String(data.pointCount)],
  ]);
}

function coordinates([lat, lng]: [number, number]): string {
  return `${lat.toFixed(5)}, ${lng.toFixed(5)}`;
}

function mapSection(data: DrawingData, timeZone: string | null): SafeHtml {
  const first = data.track[0];
  const last = data.track[data.track.length - 1];
  const description =
    first === undefined || last === undefined
      ? 'This recording has no positions, so there is no map.'
      : `The track runs from ${coordinates(first)} (start, green marker) to ${coordinates(last)} ` +
        `(end, red marker)${timeZone === null ? '' : `, in the ${timeZone} time zone`}. ` +
        `Map data from OpenStreetMap when online; the outline is drawn without it.`;
  return html`<section aria-labelledby="map-heading">
    <h2 id="map-heading">Map</h2>
    <p id="map-description">${description}</p>
    ${
      first !== undefined &&
      html`<div
          id="map"
          class="map"
          role="region"
          aria-label="Map of the track"
          aria-describedby="map-description"
        ></div>
        <noscript><p>The map needs JavaScript.</p></noscript>`
    }
  </section>`;
}

function noMapSection(): SafeHtml {
  return html`<section aria-labelledby="map-heading">
    <h2 id="map-heading">Map</h2>
    <p id="map-description">An indoor ride goes nowhere, so there is no map.</p>
  </section>`;
}

/** A chart's figures as its words give them: lowest, average and highest, in the rider's units. */
export interface CaptionFigures {
  min: number;
  avg: number;
  max: number;
}

/**
 * The figures a chart's words give: the summary's, so they never give another average than it (issue
 * 19: 73 rpm in the summary, 68.5 on the chart), nor an average above their maximum. A ride's speed,
 * heart rate, cadence and power are ridefile's summary values stored with the trip (over time, a
 * cadence of 0 left out, implausible values left out); elevation and temperature, which the trip does
 * not store, come from the same summary rules over the stored points (ridefile's
 * elevationAndTemperature). The lowest speed, which the summary does not keep, and a route's speed,
 * heart rate, cadence and power are those of the points.
 */
export function captionFigures(
  chart: ChartSeries,
  trip: TripRow | null,
  overTime: ReturnType<typeof elevationAndTemperature>,
  units: Units,
): CaptionFigures {
  const system = UNIT_SYSTEMS[units];
  const tenth = (value: number): number => Math.round(value * 10) / 10;
  const converted = (stat: Stat | null, convert: (value: number) => number): CaptionFigures =>
    stat === null
      ? chart
      : { min: tenth(convert(stat.min)), avg: tenth(convert(stat.avg)), max: tenth(convert(stat.max)) };
  const stored = (
    min: number | null,
    avg: number | null,
    max: number | null,
    convert: (value: number) => number = (value) => value,
  ): CaptionFigures =>
    avg === null || max === null
      ? chart
      : {
          min: min === null ? chart.min : tenth(convert(min)),
          avg: tenth(convert(avg)),
          max: tenth(convert(max)),
        };
  switch (chart.key) {
    case 'e':
      return converted(overTime.elevationMeters, (m) => m * system.elevation.perMetre);
    case 'T':
      return converted(overTime.temperatureCelsius, system.temperature.fromCelsius);
    case 's':
      return trip === null
        ? chart
        : stored(null, trip.avg_speed, trip.max_speed, (kmh) => kmh * system.speed.perKmh);
    case 'h':
      return trip === null ? chart : stored(trip.min_hr, trip.avg_hr, trip.max_hr);
    case 'c':
      return trip === null ? chart : stored(trip.min_cad, trip.avg_cad, trip.max_cad);
    case 'p':
      return trip === null ? chart : stored(trip.min_watts, trip.avg_watts, trip.max_watts);
  }
}

function chartSummary(
  chart: ChartSeries,
  one: string,
  trip: TripRow | null,
  overTime: ReturnType<typeof elevationAndTemperature>,
  units: Units,
): string {
  const what = chart.derived ? `${chart.label} (computed from positions)` : chart.label;
  const { min, avg, max } = captionFigures(chart, trip, overTime, units);
  return `${what} over the ${one}: from ${min} to ${max} ${chart.unit}, average ${avg} ${chart.unit}.`;
}

function chartsSection(
  data: DrawingData,
  one: string,
  trip: TripRow | null,
  overTime: ReturnType<typeof elevationAndTemperature>,
  units: Units,
): SafeHtml {
  if (data.charts.length === 0) {
    return html`<section aria-labelledby="charts-heading">
      <h2 id="charts-heading">Charts</h2>
      <p>This ${one} records no elevation, speed, heart rate, cadence or power.</p>
    </section>`;
  }
  const both = data.charts.some((chart) => chart.time !== null && chart.distance !== null);
  return html`<section aria-labelledby="charts-heading">
    <h2 id="charts-heading">Charts</h2>
    ${
      both &&
      html`<fieldset id="chart-axis" class="axis" hidden>
        <legend>Show the charts against</legend>
        <label><input type="radio" name="chart-axis" value="time" checked /> Time</label>
        <label><input type="radio" name="chart-axis" value="distance" /> Distance</label>
      </fieldset>`
    }
    <noscript><p>The charts need JavaScript; their figures are written below each heading.</p></noscript>
    ${data.charts.map(
      (chart) =>
        html`<figure class="chart-figure">
          <figcaption id="chart-${chart.key}-caption">
            <strong>${chart.label} (${chart.unit})</strong>:
            ${chartSummary(chart, one, trip, overTime, units)}
          </figcaption>
          <div
            class="chart"
            id="chart-${chart.key}"
            data-key="${chart.key}"
            role="img"
            aria-label="${chart.label} chart"
            aria-describedby="chart-${chart.key}-caption"
          ></div>
        </figure>`,
    )}
  </section>`;
}
