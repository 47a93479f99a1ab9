/** Number and time formatting for the human-readable reports. */

/** Unix seconds as ISO 8601 UTC without milliseconds (points carry whole seconds). */
export function isoUtc(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().replace('.000Z', 'Z');
}

/** Seconds as h:mm:ss, hours unbounded (a 27-hour ride reads 27:46:40). */
export function hoursMinutesSeconds(seconds: number): string {
  const total = Math.round(seconds);
  const sign = total < 0 ? '-' : '';
  const abs = Math.abs(total);
  const hours = Math.floor(abs / 3600);
  const minutes = Math.floor((abs % 3600) / 60);
  const secs = abs % 60;
  return `${sign}${hours}:${String(minutes).padStart(2, '0')}:${String(secs).padStart(2, '0')}`;
}

export function kilometres(meters: number): string {
  return `${(meters / 1000).toFixed(2)} km`;
}

/** m/s as km/h, one decimal. */
export function kilometresPerHour(metersPerSecond: number): string {
  return (metersPerSecond * 3.6).toFixed(1);
}

/** A number with at most `digits` decimals and no trailing zeros (142, 18.6). */
export function decimal(value: number, digits = 1): string {
  return String(Number(value.toFixed(digits)));
}
