import { SLOT_H, type PointColumns } from '../columns.js';
import type { FitMessage } from './decoder.js';
import { numberField } from './names.js';

/**
 * Heart rate from `hr` messages (HRM-Pro and similar straps store beats while swimming or when the
 * watch was out of range) merged into the records, the way the FIT SDK's HR-merge utility documents:
 * each anchor message (with a timestamp) ties event_timestamp to time; every filtered_bpm sample gets a
 * time; a sample is held for up to 5 s in 250 ms steps across gaps; each record takes the rounded
 * mean of the samples in (previous record time, its time], replacing the heart rate it had.
 *
 * The samples come from every file of a chained stream, in stream order: Garmin watches append the
 * strap's stored beats as a FIT file of their own, with no record (issue 16), and the SDK merges all of
 * a stream's `hr` messages into all of its records.
 */

const GAP_STEP_SECONDS = 0.25;
const GAP_MAX_STEPS = 20;

export interface HeartRateSample {
  /** FIT date_time, with the fraction the strap recorded */
  time: number;
  bpm: number;
}

/**
 * Replaces the heart rate of each timed record that strap samples cover. `records.t` holds FIT
 * date_time values, as the samples do: the SDK merges in FIT time, so device-relative times merge too.
 */
export function mergeHeartRates(samples: readonly HeartRateSample[], records: PointColumns): void {
  if (samples.length === 0 || records.length === 0) return;

  let sampleIndex = 0;
  let rangeStart = NaN;
  const { t } = records;
  const rows = records.length;
  for (let row = 0; row < rows; row++) {
    const rangeEnd = t[row]!;
    if (Number.isNaN(rangeEnd)) continue;
    if (Number.isNaN(rangeStart)) rangeStart = rangeEnd;
    if (rangeStart === rangeEnd) {
      rangeStart -= 1;
      sampleIndex = Math.max(0, sampleIndex - 1);
    }
    let sum = 0;
    let count = 0;
    while (sampleIndex < samples.length) {
      const sample = samples[sampleIndex]!;
      if (sample.time > rangeStart && sample.time <= rangeEnd) {
        sum += sample.bpm;
        count += 1;
      } else if (sample.time > rangeEnd) {
        // As the SDK does: a record's mean is written once a sample after it shows its range complete.
        if (count > 0) records.set(SLOT_H, row, Math.round(sum / count));
        rangeStart = rangeEnd;
        break;
      }
      sampleIndex += 1;
    }
  }
}

/**
 * Every filtered_bpm sample of `hr` messages (those of all the files of a stream, in order), timed in
 * FIT date_time. Samples before the first anchor, or of a malformed message, are left out (the SDK gives
 * up on the whole merge there).
 */
export function heartRateSamples(hrMessages: readonly FitMessage[]): HeartRateSample[] {
  const samples: HeartRateSample[] = [];
  let anchorTime = NaN;
  let anchorEvent = NaN;
  for (const message of hrMessages) {
    const events = numbers(message['eventTimestamp']);
    const beats = numbers(message['filteredBpm']);
    const timestamp = numberField(message, 'timestamp');
    if (timestamp !== undefined) {
      // An anchor carries exactly one event timestamp; a malformed one cannot anchor anything.
      if (events.length !== 1) continue;
      anchorTime = timestamp + (numberField(message, 'fractionalTimestamp') ?? 0);
      anchorEvent = events[0]!;
    }
    if (Number.isNaN(anchorTime) || events.length !== beats.length) continue;
    for (let i = 0; i < events.length; i++) {
      const event = events[i]!;
      const bpm = beats[i]!;
      if (Number.isNaN(event) || Number.isNaN(bpm) || event < anchorEvent) continue;
      const current = { time: anchorTime + (event - anchorEvent), bpm };
      const previous = samples[samples.length - 1];
      if (previous !== undefined) {
        let gapSeconds = Math.abs(current.time - previous.time);
        for (let step = 1; gapSeconds > GAP_STEP_SECONDS && step <= GAP_MAX_STEPS; step++) {
          samples.push({ time: previous.time + GAP_STEP_SECONDS * step, bpm: previous.bpm });
          gapSeconds -= GAP_STEP_SECONDS;
        }
      }
      samples.push(current);
    }
  }
  return samples;
}

function numbers(value: unknown): number[] {
  if (typeof value === 'number') return [value];
  return Array.isArray(value) ? value.filter((item): item is number => typeof item === 'number') : [];
}
