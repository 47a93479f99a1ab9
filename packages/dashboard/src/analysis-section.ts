/**
 * The ride page's analysis (issue 19, "The analysis riders expect"): normalized power, intensity factor,
 * training stress score, work, the power curve and the time in power and heart-rate zones, as
 * computed by @rideport/ridefile's analysis (one module, the same normalized power `rideport inspect`
 * prints). Plain tables that need no script; what needs a threshold the rider has not set says so,
 * with a link to set it.
 */
import type { RideAnalysis, ZoneTime } from '@rideport/ridefile';
import { html, type SafeHtml } from '@rideport/server/web';
import { duration, UNKNOWN, whole } from './format.js';
import { PREFERENCES_PAGE } from './preferences-page.js';

const TWO_DECIMALS = new Intl.NumberFormat('en-GB', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** "1 min", "5 s", "1 h": the power curve's window lengths. */
export function windowWords(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

function setIt(what: string): SafeHtml {
  return html`<a href="${PREFERENCES_PAGE}">set your ${what}</a>`;
}

function zonesTable(
  id: string,
  caption: string,
  zones: readonly ZoneTime[],
  unit: string,
  total: number,
): SafeHtml {
  return html`<table class="zones" id="${id}">
    <caption>
      ${caption}
    </caption>
    <thead>
      <tr>
        <th scope="col">Zone</th>
        <th scope="col" class="number">Range</th>
        <th scope="col" class="number">Time</th>
        <th scope="col" class="number">Share</th>
      </tr>
    </thead>
    <tbody>
      ${zones.map(
        (zone) =>
          html`<tr>
            <th scope="row">${zone.zone}. ${zone.name}</th>
            <td class="number">
              ${zone.high === null ? `${zone.low}+ ${unit}` : `${zone.low}–${zone.high} ${unit}`}
            </td>
            <td class="number">${duration(zone.seconds)}</td>
            <td class="number">
              <span class="zone-bar" style="--share: ${total === 0 ? 0 : (zone.seconds / total).toFixed(3)}"
                >${total === 0 ? '0' : Math.round((100 * zone.seconds) / total)} %</span
              >
            </td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

export function analysisSection({ power, heartRate }: RideAnalysis): SafeHtml {
  if (power === null && heartRate === null) {
    return html`<section aria-labelledby="analysis-heading">
      <h2 id="analysis-heading">Analysis</h2>
      <p>This ride records no power and no heart rate with times, so there is nothing to analyse.</p>
    </section>`;
  }
  return html`<section aria-labelledby="analysis-heading">
    <h2 id="analysis-heading">Analysis</h2>
    ${
      power === null
        ? html`<p>This ride records no power.</p>`
        : html`<dl class="summary" id="power-analysis">
              <div>
                <dt>Normalized power</dt>
                <dd>${whole(power.normalizedWatts, 'W')}</dd>
              </div>
              <div>
                <dt>Intensity factor</dt>
                <dd>
                  ${power.intensityFactor === null ? UNKNOWN : TWO_DECIMALS.format(power.intensityFactor)}
                </dd>
              </div>
              <div>
                <dt>Training stress score</dt>
                <dd>
                  ${power.trainingStressScore === null ? UNKNOWN : String(Math.round(power.trainingStressScore))}
                </dd>
              </div>
              <div>
                <dt>Work</dt>
                <dd>${whole(power.workKilojoules, 'kJ')}</dd>
              </div>
            </dl>
            ${
              power.zones === null &&
              html`<p class="notice" id="ftp-missing">
                Intensity factor, training stress score and power zones need your functional threshold power:
                ${setIt('FTP')}.
              </p>`
            }
            <table class="curve" id="power-curve">
              <caption>
                Best power (the highest average over any stretch of that length; pauses count as 0 W)
              </caption>
              <thead>
                <tr>
                  ${power.curve.map((point) => html`<th scope="col" class="number">${windowWords(point.seconds)}</th>`)}
                </tr>
              </thead>
              <tbody>
                <tr>
                  ${power.curve.map((point) => html`<td class="number">${whole(point.watts, 'W')}</td>`)}
                </tr>
              </tbody>
            </table>
            ${
              power.zones !== null &&
              zonesTable(
                'power-zones',
                "Time in power zones (Coggan's seven, from your FTP)",
                power.zones,
                'W',
                power.seconds,
              )
            }`
    }
    ${
      heartRate !== null &&
      (heartRate.zones === null
        ? html`<p class="notice" id="heart-rate-missing">
            Heart-rate zones need your threshold or maximum heart rate: ${setIt('heart rates')}.
          </p>`
        : zonesTable(
            'heart-rate-zones',
            heartRate.zonesFrom === 'threshold'
              ? "Time in heart-rate zones (Coggan's five, from your threshold heart rate)"
              : 'Time in heart-rate zones (five, from your maximum heart rate)',
            heartRate.zones,
            'bpm',
            heartRate.seconds,
          ))
    }
  </section>`;
}
