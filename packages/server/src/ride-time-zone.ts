/**
 * Which time zone a ride's times are shown in (issue 19, "Every time shown says its zone"): the zone of
 * its first position when it has one; the rider's own zone (store/preferences.ts) when it has no
 * positions, and for a virtual ride (Zwift-like), whose positions lie in a made-up world and whose
 * rider sat at home; UTC when the rider has set no zone either.
 */
import { isVirtualActivity } from './activity-words.js';

export function rideTimeZone(
  ride: { activity_type: string | null; time_zone: string | null },
  riderTimeZone: string | null,
): string {
  if (ride.time_zone !== null && !isVirtualActivity(ride.activity_type)) return ride.time_zone;
  return riderTimeZone ?? 'UTC';
}
