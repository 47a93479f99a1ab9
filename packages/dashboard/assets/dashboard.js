/* global window, document, console */
/**
 * The ride and route pages' script (issue 7): draws the map of the track with Leaflet and one uPlot
 * chart per channel, from the downsampled JSON the server embeds in the page (#asset-data), in the
 * rider's units (the server converts; the distance axis's unit comes with the data). A null value is a
 * pause, which uPlot draws as a gap (issue 19). Leaflet
 * and uPlot are loaded before this module as classic scripts (window.L, window.uPlot), from the
 * server's own /assets/ route, never a CDN. The track, its start and its end are vector layers, so
 * they draw even when OpenStreetMap's tiles cannot be fetched (offline, in the desktop app).
 */

const TILE_URL = 'https://tile.openstreetmap.org/{z}/{x}/{y}.png';
const ATTRIBUTION = '&copy; <a href="https://www.openstreetmap.org/copyright">OpenStreetMap</a> contributors';

/** Line colours with at least 4.5:1 contrast against white. */
const COLOURS = { e: '#2e6b30', s: '#0b57a4', h: '#b00020', c: '#6a1b9a', p: '#9a4a00', T: '#00695c' };

function readData() {
  const element = document.getElementById('asset-data');
  if (element === null) return null;
  try {
    return JSON.parse(element.textContent ?? '');
  } catch {
    return null;
  }
}

function drawMap(data) {
  const element = document.getElementById('map');
  const L = window.L;
  if (element === null || L === undefined || data.track.length === 0) return;
  const map = L.map(element, { preferCanvas: false, scrollWheelZoom: false });
  L.tileLayer(TILE_URL, { maxZoom: 19, attribution: ATTRIBUTION }).addTo(map);
  const line = L.polyline(data.track, { color: '#c62828', weight: 4, opacity: 0.9 }).addTo(map);
  const marker = (position, fill, label) =>
    L.circleMarker(position, { radius: 7, color: '#ffffff', weight: 2, fillColor: fill, fillOpacity: 1 })
      .bindTooltip(label)
      .addTo(map);
  marker(data.track[0], '#1b7f3b', 'Start');
  marker(data.track[data.track.length - 1], '#b00020', 'End');
  map.fitBounds(line.getBounds(), { padding: [16, 16] });
  element.dataset['drawn'] = 'true';
  // Where the charts' shared cursor is (issue 19): hidden until a chart is pointed at.
  cursorMarker = L.circleMarker(data.track[0], {
    radius: 6,
    color: '#1d1d1f',
    weight: 2,
    fillColor: '#ffd600',
    className: 'chart-cursor',
    opacity: 0,
    fillOpacity: 0,
  }).addTo(map);
}

/** The map's marker of the charts' cursor; null until the map is drawn. */
let cursorMarker = null;

/** The index of the track point nearest to `x` in `xs` (ascending, nulls skipped), or -1. */
function nearest(xs, x) {
  let best = -1;
  let bestDistance = Infinity;
  let low = 0;
  let high = xs.length - 1;
  // Binary search for the first value >= x among the known ones, then look at its neighbours.
  while (low < high) {
    const middle = (low + high) >> 1;
    const value = xs[middle];
    if (value === null || value < x) low = middle + 1;
    else high = middle;
  }
  for (let i = Math.max(0, low - 2); i <= Math.min(xs.length - 1, low + 2); i++) {
    const value = xs[i];
    if (value === null) continue;
    const distance = Math.abs(value - x);
    if (distance < bestDistance) {
      best = i;
      bestDistance = distance;
    }
  }
  return best;
}

/** Moves the map's marker to the track point at the cursor's x, or hides it when the cursor leaves. */
function showOnMap(data, byDistance, x) {
  if (cursorMarker === null) return;
  const index =
    x === null || x === undefined ? -1 : nearest(byDistance ? data.trackAt.distance : data.trackAt.time, x);
  if (index < 0) {
    cursorMarker.setStyle({ opacity: 0, fillOpacity: 0 });
    return;
  }
  cursorMarker.setLatLng(data.track[index]);
  cursorMarker.setStyle({ opacity: 1, fillOpacity: 1 });
}

function pad(value) {
  return String(value).padStart(2, '0');
}

/** Seconds from the start: h:mm on axes of an hour or more, m:ss on shorter ones, h:mm:ss with `full`. */
function clock(seconds, { hours = true, full = false } = {}) {
  const total = Math.round(seconds);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (full) return `${h}:${pad(m)}:${pad(s)}`;
  return hours ? `${h}:${pad(m)}` : `${Math.floor(total / 60)}:${pad(s)}`;
}

const charts = [];

function chartWidth(element) {
  return Math.max(240, Math.floor(element.clientWidth || element.parentElement?.clientWidth || 600));
}

function drawCharts(data, axis) {
  const uPlot = window.uPlot;
  if (uPlot === undefined) return;
  for (const chart of charts.splice(0)) chart.destroy();
  for (const series of data.charts) {
    const element = document.getElementById(`chart-${series.key}`);
    if (element === null) continue;
    const xy = (axis === 'distance' ? series.distance : series.time) ?? series.distance ?? series.time;
    if (xy === null) continue;
    const byDistance = xy === series.distance;
    const hours = (xy[0][xy[0].length - 1] ?? 0) >= 3600;
    const unit = data.distanceUnit;
    const xLabel = byDistance ? `Distance (${unit})` : `Time from start (${hours ? 'h:mm' : 'm:ss'})`;
    const options = {
      width: chartWidth(element),
      height: 180,
      scales: { x: { time: false } },
      legend: { show: true },
      // One cursor for every chart (issue 19): pointing at one chart shows the same moment in all,
      // and on the map.
      cursor: { sync: { key: 'ride' } },
      hooks: {
        setCursor: [
          (u) => {
            const index = u.cursor.idx;
            showOnMap(data, byDistance, index === null || index === undefined ? null : u.data[0][index]);
          },
        ],
      },
      series: [
        {
          label: xLabel,
          value: (_u, v) =>
            v === null || v === undefined
              ? '—'
              : byDistance
                ? `${v.toFixed(2)} ${unit}`
                : clock(v, { full: true }),
        },
        {
          label: `${series.label} (${series.unit})`,
          stroke: COLOURS[series.key] ?? '#1d1d1f',
          width: 1.5,
          value: (_u, v) => (v === null || v === undefined ? '—' : `${v} ${series.unit}`),
        },
      ],
      axes: [
        {
          label: xLabel,
          values: (_u, splits) => splits.map((v) => (byDistance ? `${v}` : clock(v, { hours }))),
        },
        { label: series.unit, size: 56 },
      ],
    };
    element.replaceChildren();
    const chart = new uPlot(options, [xy[0], xy[1]], element);
    element.dataset['axis'] = byDistance ? 'distance' : 'time';
    charts.push(chart);
  }
}

function setUpAxisToggle(data) {
  const fieldset = document.getElementById('chart-axis');
  if (fieldset === null) return;
  fieldset.hidden = false;
  fieldset.addEventListener('change', (event) => {
    const target = event.target;
    if (target instanceof window.HTMLInputElement && target.checked) drawCharts(data, target.value);
  });
}

function currentAxis() {
  const checked = document.querySelector('input[name="chart-axis"]:checked');
  return checked === null ? 'time' : checked.value;
}

function resizeCharts() {
  for (const chart of charts) {
    const parent = chart.root.parentElement;
    if (parent !== null) chart.setSize({ width: chartWidth(parent), height: 180 });
  }
}

function main() {
  // The page's script time, read through the Performance API by bench/ride-page.ts (issue 19).
  window.performance.mark('rideport-script-start');
  const data = readData();
  if (data === null) return;
  try {
    drawMap(data);
  } catch (error) {
    console.error('the map could not be drawn', error);
  }
  setUpAxisToggle(data);
  drawCharts(data, currentAxis());
  let pending = 0;
  window.addEventListener('resize', () => {
    window.clearTimeout(pending);
    pending = window.setTimeout(resizeCharts, 150);
  });
  window.performance.measure('rideport-script', 'rideport-script-start');
}

main();
