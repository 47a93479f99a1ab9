/**
 * `npm run docs:cli`: writes docs/reference/cli.md from the command tables of the `rideport` command
 * (packages/cli/src/reference.ts, issue 35). Its test fails until the page is written anew after a
 * table changes.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formattedCliReference, REFERENCE_PATH } from '../packages/cli/src/reference.js';

writeFileSync(join(import.meta.dirname, '..', REFERENCE_PATH), await formattedCliReference());
console.log(`wrote ${REFERENCE_PATH}`);
