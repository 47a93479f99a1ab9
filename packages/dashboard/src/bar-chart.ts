/**
 * A bar chart drawn by the server as SVG (issue 19, the overview's weekly and monthly totals): no
 * script, so it shows without JavaScript, and it scales to the page's width (viewBox), so it never
 * makes a phone's page scroll sideways. Each bar has a tooltip with its label and value; the figures
 * are also in a table beside the charts for screen readers.
 */
import { html, type SafeHtml } from '@rideport/server/web';

const WIDTH = 420;
const HEIGHT = 170;
const TOP = 18;
const BOTTOM = 24;
const LEFT = 4;

export interface Bar {
  label: string;
  value: number;
  /** the value in words, for the tooltip and the top of the scale */
  text: string;
}

export function barChart({
  id,
  title,
  bars,
  colour,
}: {
  id: string;
  title: string;
  bars: readonly Bar[];
  colour: string;
}): SafeHtml {
  const highest = Math.max(0, ...bars.map((bar) => bar.value));
  const slot = (WIDTH - LEFT) / Math.max(1, bars.length);
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const top = bars.find((bar) => bar.value === highest);
  // Every label when they fit, else every other one (the tooltips name them all).
  const labelEvery = slot >= 44 ? 1 : 2;
  return html`<figure class="bar-chart" id="${id}">
    <figcaption>${title}</figcaption>
    <svg
      viewBox="0 0 ${WIDTH} ${HEIGHT}"
      role="img"
      aria-label="${title}"
      preserveAspectRatio="xMidYMid meet"
    >
      <line x1="${LEFT}" y1="${HEIGHT - BOTTOM}" x2="${WIDTH}" y2="${HEIGHT - BOTTOM}" stroke="#8c8c8c" />
      ${
        highest > 0 &&
        top !== undefined &&
        html`<text x="${LEFT}" y="12" font-size="12" fill="#4d4d4d">highest: ${top.text}</text>`
      }
      ${bars.map((bar, index) => {
        const height = highest === 0 ? 0 : (bar.value / highest) * plotHeight;
        const x = LEFT + index * slot;
        return html`<g>
          <title>${bar.label}: ${bar.text}</title>
          <rect
            x="${(x + slot * 0.15).toFixed(1)}"
            y="${(HEIGHT - BOTTOM - height).toFixed(1)}"
            width="${(slot * 0.7).toFixed(1)}"
            height="${height.toFixed(1)}"
            fill="${colour}"
          />
          ${
            index % labelEvery === 0 &&
            html`<text
              x="${(x + slot / 2).toFixed(1)}"
              y="${HEIGHT - 8}"
              font-size="11"
              text-anchor="middle"
              fill="#1d1d1f"
            >
              ${bar.label}
            </text>`
          }
        </g>`;
      })}
    </svg>
  </figure>`;
}
