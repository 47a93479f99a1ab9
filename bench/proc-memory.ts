/**
 * A process's memory as Linux reports it in /proc (bench:upload-memory, bench:archive-stall): resident
 * now, and the peak since the last reset.
 */
import { readFileSync, writeFileSync } from 'node:fs';

/** A kB field of /proc/<pid>/status, in MB. */
export function status(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (match === null) throw new Error(`no ${field} for process ${pid}`);
  return Number(match[1]) / 1024;
}

/** Sets the process's peak resident memory back to what it holds now (Linux ≥ 4.0). */
export function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}
