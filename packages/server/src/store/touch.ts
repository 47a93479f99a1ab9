/**
 * Moving a credential's last use (auth tokens, API callers, browser sessions): a write made while
 * reading. On a full disk it is skipped rather than failing the request (issue 17): reads keep working
 * while nothing can be written, and the last use moves at the next request after space returns, long
 * before any lifetime (days) runs out.
 */
import { isDiskFull } from '../disk-full.js';

export async function touchLastUse(write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
  } catch (error) {
    if (!isDiskFull(error)) throw error;
  }
}
