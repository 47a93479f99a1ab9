/**
 * When the nightly purge of finished tasks runs (docs/contributors/decisions.md §5: successful tasks nightly at 03:00
 * server local time, configurable; failed ones kept 30 days).
 */

/**
 * Milliseconds from `nowMs` to the next `timeOfDay` ("HH:MM", local time), more than 0 and at most a
 * day; a day with a daylight-saving change is as long as the clock says.
 */
export function millisecondsUntil(timeOfDay: string, nowMs: number): number {
  const [hours, minutes] = timeOfDay.split(':').map(Number) as [number, number];
  const next = new Date(nowMs);
  next.setHours(hours, minutes, 0, 0);
  if (next.getTime() <= nowMs) {
    next.setDate(next.getDate() + 1);
    next.setHours(hours, minutes, 0, 0);
  }
  return next.getTime() - nowMs;
}
