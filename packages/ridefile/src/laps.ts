import { PointColumns, SLOT_D } from './columns.js';
import type { Lap, Summary, Warning } from './model.js';
import { summarize, type SummaryContext } from './summary.js';
import { Pauses } from './summary/clock.js';
import { cumulativeDistance } from './summary/distance.js';

/**
 * The laps of a track whose file numbers do not describe its points (issue 16: a file cut off mid-ride
 * keeps the lap its device wrote for the whole ride): each lap's values computed from its points by the
 * summary's own rules, and laps that begin after the last point left out.
 *
 * A lap's points are the rows from the first whose time reaches the lap's start up to the next lap's
 * first row, in the order the file holds them, so the laps divide the track and their distances
 * (the growth of the track's own distance over their rows) add up to no more than the track's.
 */
export function lapsFromPoints(
  columns: PointColumns,
  laps: readonly Lap[],
  context: SummaryContext,
  warnings: readonly Warning[],
): Lap[] {
  const timed = laps.filter((lap) => lap.startTime !== null).sort((a, b) => a.startTime! - b.startTime!);
  if (timed.length === 0) return [];
  const starts = lapStartRows(columns, timed);
  const cumulative = cumulativeDistance(columns, new Pauses(context.pauses));
  const lapContext: SummaryContext = { ...context, recorded: null, calories: null };
  const result: Lap[] = [];
  timed.forEach((lap, index) => {
    const from = starts[index]!;
    const to = starts.slice(index + 1).find((start) => start >= 0) ?? columns.length;
    if (from < 0 || to <= from) return;
    const slice = rows(columns, from, to, cumulative.source === 'points' ? cumulative.meters : null);
    result.push(lapFromSummary(summarize(slice, lapContext, warnings), lap.startTime));
  });
  return result;
}

/** A lap made from the summary of its points (`Lap.source` 'points'); calories only when the summary has them. */
export function lapFromSummary(summary: Summary, startTime: number | null): Lap {
  return {
    source: 'points',
    startTime,
    elapsedSeconds: summary.elapsedSeconds,
    timerSeconds: summary.timerSeconds,
    distanceMeters: summary.distanceMeters,
    ascentMeters: summary.elevationGainMeters,
    descentMeters: summary.elevationLossMeters,
    calories: summary.calories,
    avgSpeedMetersPerSecond: summary.speedMetersPerSecond?.avg ?? null,
    maxSpeedMetersPerSecond: summary.speedMetersPerSecond?.max ?? null,
    avgHeartRateBpm: summary.heartRateBpm?.avg ?? null,
    maxHeartRateBpm: summary.heartRateBpm?.max ?? null,
    avgCadenceRpm: summary.cadenceRpm?.avg ?? null,
    maxCadenceRpm: summary.cadenceRpm?.max ?? null,
    avgPowerWatts: summary.powerWatts?.avg ?? null,
    maxPowerWatts: summary.powerWatts?.max ?? null,
  };
}

/** The first row of each lap (-1: no row reaches its start before the next lap's does). */
function lapStartRows(columns: PointColumns, laps: readonly Lap[]): number[] {
  const starts = laps.map(() => -1);
  let lap = 0;
  for (let row = 0; row < columns.length && lap < laps.length; row++) {
    const time = Math.floor(columns.t[row]!);
    if (Number.isNaN(time)) continue;
    // The latest lap whose start this row reaches; laps it skips have no rows.
    let reached = -1;
    for (let next = lap; next < laps.length && time >= Math.floor(laps[next]!.startTime!); next++)
      reached = next;
    if (reached >= 0) {
      starts[reached] = row;
      lap = reached + 1;
    }
  }
  return starts;
}

/**
 * A copy of rows [from, to). With a recorded distance, the copy's distance is the track's own distance
 * counted from the row before: the lap's share of it, restarts of the counter included.
 */
function rows(
  columns: PointColumns,
  from: number,
  to: number,
  trackDistance: Float64Array | null,
): PointColumns {
  const slice = new PointColumns(columns.length, to - from);
  const base = trackDistance === null || from === 0 ? 0 : trackDistance[from - 1]!;
  for (let row = from; row < to; row++) {
    const copy = slice.append();
    columns.channels.forEach((channel, slot) => {
      slice.set(slot, copy, channel[row]!);
    });
    if (trackDistance !== null) slice.set(SLOT_D, copy, trackDistance[row]! - base);
    slice.wheel[copy] = columns.wheel[row]!;
  }
  return slice;
}
