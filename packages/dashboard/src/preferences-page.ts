/**
 * The preferences page (issue 19, "Units, time and names"): units, time zone, functional threshold
 * power and threshold/maximum heart rate, stored on the server (store/preferences.ts). A plain form
 * with the CSRF token that works without JavaScript; what cannot be saved is said in words, and the
 * form comes back with what was typed.
 *
 *   GET  /dashboard/preferences    the form
 *   POST /dashboard/preferences    saves, back to the form with "Saved."
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  canonicalTimeZone,
  csrfField,
  csrfToken,
  FormFields,
  html,
  PREFERENCE_RANGES,
  preferenceProblems,
  type Preferences,
  radioGroup,
  type SafeHtml,
  sendPage,
  type ServerContext,
  type Units,
  type UserRow,
} from '@rideport/server/web';

export const PREFERENCES_PAGE = '/dashboard/preferences';

/** The form's fields as typed: shown again, unchanged, when something cannot be saved. */
interface FormValues {
  units: string;
  timeZone: string;
  ftpWatts: string;
  thresholdHeartRate: string;
  maxHeartRate: string;
}

const UNIT_CHOICES: ReadonlyArray<{ value: Units; label: string }> = [
  { value: 'metric', label: 'Metric: km, m, km/h, °C' },
  { value: 'imperial', label: 'Imperial: mi, ft, mph, °F' },
];

/** Every zone this runtime knows, for the field's suggestions (418 in Node 20's ICU). */
let zoneNames: readonly string[] | undefined;
function timeZoneNames(): readonly string[] {
  zoneNames ??= Intl.supportedValuesOf('timeZone');
  return zoneNames;
}

function asForm(preferences: Preferences): FormValues {
  const text = (value: number | null): string => (value === null ? '' : String(value));
  return {
    units: preferences.units,
    timeZone: preferences.timeZone ?? '',
    ftpWatts: text(preferences.ftpWatts),
    thresholdHeartRate: text(preferences.thresholdHeartRate),
    maxHeartRate: text(preferences.maxHeartRate),
  };
}

/** What a numeric field holds when it was sent more than once: never a whole number. */
const SENT_TWICE = 'sent twice';

/** A whole number typed in a field: null when empty, NaN when not a whole number (said in words later). */
function wholeOrEmpty(text: string): number | null {
  if (text === '') return null;
  return /^\d{1,6}$/.test(text) ? Number(text) : NaN;
}

/** The preferences the form asks for; the zone as Intl spells it ("europe/zurich" → "Europe/Zurich"). */
function fromForm(values: FormValues): Preferences {
  return {
    units: values.units as Units,
    timeZone: values.timeZone === '' ? null : (canonicalTimeZone(values.timeZone) ?? values.timeZone),
    ftpWatts: wholeOrEmpty(values.ftpWatts),
    thresholdHeartRate: wholeOrEmpty(values.thresholdHeartRate),
    maxHeartRate: wholeOrEmpty(values.maxHeartRate),
  };
}

/**
 * A text field for a whole number: text rather than type=number, so what was typed comes back as typed
 * and the server, not the browser, says in words what is wrong with it.
 */
function wholeNumberField(id: string, name: string, value: string, hint: string): SafeHtml {
  return html`<input
    type="text"
    inputmode="numeric"
    id="${id}"
    name="${name}"
    value="${value}"
    aria-describedby="${hint}"
  />`;
}

function page(
  reply: FastifyReply,
  statusCode: number,
  { user, token, saved }: { user: UserRow; token: string; saved: boolean },
  values: FormValues,
  problems: readonly string[],
): FastifyReply {
  const { ftpWatts, heartRate } = PREFERENCE_RANGES;
  return sendPage(reply, statusCode, {
    title: 'Preferences',
    user,
    csrfToken: token,
    current: 'preferences',
    body: html`<h1>Preferences</h1>
      ${saved && problems.length === 0 && html`<p class="notice" role="status">Saved.</p>`}
      ${problems.map((problem) => html`<p class="error" role="alert">${problem}</p>`)}
      <form method="post" action="${PREFERENCES_PAGE}">
        ${csrfField(token)}
        ${radioGroup({
          legend: 'Units',
          name: 'units',
          idPrefix: 'units',
          choices: UNIT_CHOICES,
          checked: values.units,
        })}
        <label for="time-zone">Time zone</label>
        <p class="hint" id="time-zone-hint">
          An IANA name such as Europe/Zurich. Rides are shown in the zone where they began; rides without
          positions and virtual rides (Zwift-like) in this one. Empty: UTC.
        </p>
        <input
          type="text"
          id="time-zone"
          name="time_zone"
          value="${values.timeZone}"
          list="time-zones"
          autocomplete="off"
          aria-describedby="time-zone-hint"
        />
        <datalist id="time-zones">
          ${timeZoneNames().map((zone) => html`<option value="${zone}"></option>`)}
        </datalist>
        <label for="ftp">Functional threshold power (W)</label>
        <p class="hint" id="ftp-hint">
          For intensity factor, training stress score and power zones. ${ftpWatts.min}–${ftpWatts.max}; empty
          if you do not know it.
        </p>
        ${wholeNumberField('ftp', 'ftp_watts', values.ftpWatts, 'ftp-hint')}
        <label for="threshold-hr">Threshold heart rate (bpm)</label>
        <p class="hint" id="heart-rate-hint">
          Heart-rate zones come from the threshold heart rate when you give one, else from the maximum.
          ${heartRate.min}–${heartRate.max}.
        </p>
        ${wholeNumberField('threshold-hr', 'threshold_hr', values.thresholdHeartRate, 'heart-rate-hint')}
        <label for="max-hr">Maximum heart rate (bpm)</label>
        ${wholeNumberField('max-hr', 'max_hr', values.maxHeartRate, 'heart-rate-hint')}
        <button type="submit">Save</button>
      </form>`,
  });
}

export async function showPreferences(
  request: FastifyRequest,
  reply: FastifyReply,
  context: ServerContext,
  user: UserRow,
): Promise<FastifyReply> {
  const preferences = await context.store.preferences.get(user.id);
  const saved = (request.query as Record<string, unknown> | undefined)?.['saved'] === '1';
  return page(reply, 200, { user, token: csrfToken(request, reply), saved }, asForm(preferences), []);
}

export async function savePreferences(
  request: FastifyRequest,
  reply: FastifyReply,
  context: ServerContext,
  user: UserRow,
): Promise<FastifyReply> {
  const form = new FormFields(request.body);
  const values: FormValues = {
    units: form.text('units'),
    timeZone: form.text('time_zone'),
    // A number sent twice is no number (issue 36): said like any other that is not a whole number.
    ftpWatts: form.only('ftp_watts') ?? SENT_TWICE,
    thresholdHeartRate: form.only('threshold_hr') ?? SENT_TWICE,
    maxHeartRate: form.only('max_hr') ?? SENT_TWICE,
  };
  const preferences = fromForm(values);
  const problems = preferenceProblems(preferences);
  if (problems.length > 0) {
    return page(reply, 400, { user, token: csrfToken(request, reply), saved: false }, values, problems);
  }
  await context.store.preferences.save(user.id, preferences);
  return reply.redirect(`${PREFERENCES_PAGE}?saved=1`, 303);
}
