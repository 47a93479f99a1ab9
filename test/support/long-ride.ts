/**
 * A long synthetic ride (issue 19: "the ride page of a 50,000-point ride"): `count` points a second
 * apart on a loop near Bern, with positions, elevation, heart rate, cadence and power. Shared by the
 * ride page's browser test (test/dashboard.browser.test.ts) and its benchmark (bench/ride-page.ts), so
 * both measure the same ride.
 */
import type { TrackPoint } from '@rideport/ridefile';

export function longRide(count: number): TrackPoint[] {
  const start = Date.parse('2025-07-14T05:30:00Z') / 1000;
  return Array.from({ length: count }, (_, i) => {
    const angle = (i / count) * 2 * Math.PI;
    return {
      x: 7.44 + 0.25 * Math.cos(angle) + 0.01 * Math.sin(i / 300),
      y: 46.95 + 0.15 * Math.sin(angle),
      e: 560 + 300 * Math.sin(angle * 3) + 5 * Math.sin(i / 20),
      t: start + i,
      h: Math.round(130 + 25 * Math.sin(i / 900)),
      c: Math.round(85 + 8 * Math.sin(i / 120)),
      p: Math.round(210 + 60 * Math.sin(i / 45)),
    };
  });
}
