/**
 * Rides named in a sentence with a link to each (issue 16): "Overlaps Morning Ride and Evening Ride"
 * on a ride page, "Already on the platform as Morning Ride" in the sync page's history.
 */
import { html, type SafeHtml } from '@rideport/server/web';
import { WORDS } from './access.js';

export interface NamedRide {
  id: number;
  name: string;
  /** words after the link, in parentheses: e.g. the device and the times */
  detail?: string;
}

/** `<a>A</a>`, `<a>A</a> and <a>B</a>`, `<a>A</a>, <a>B</a> and <a>C</a>`, as inWords writes names. */
export function rideLinks(rides: readonly NamedRide[]): SafeHtml {
  return html`${rides.map((ride, index) => {
    const link = html`<a href="${WORDS.trip.path}/${ride.id}">${ride.name}</a>${
        ride.detail === undefined ? '' : ` (${ride.detail})`
      }`;
    if (index === 0) return link;
    return html`${index === rides.length - 1 ? ' and ' : ', '}${link}`;
  })}`;
}
