/**
 * What a process that runs for weeks (`rideport up`, `sync`, `serve`, `worker` and the desktop app) does
 * to its own memory once, after it has loaded (issue 22; docs/operators/memory.md): V8's young generation
 * kept at its first size, and freed memory given back to the system every minute. The allocator's
 * arenas are capped earlier still, first thing in the launcher (`@rideport/host/freed-memory`).
 *
 * Issue 35: `@rideport/host/long-running` loads this module and the two it needs, not the server, so
 * that `rideport sync` takes these settings without loading a server it does not run.
 */
import { keepYoungGenerationSmall } from '@rideport/server/young-generation';
import { returnFreedMemoryPeriodically } from './freed-memory.js';

export function tuneLongRunningProcess(): void {
  keepYoungGenerationSmall();
  returnFreedMemoryPeriodically();
}
