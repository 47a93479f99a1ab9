/**
 * The RideFileError a call throws, for tests that look at its code and words (issue 36: the KMZ and
 * inflated-size tests share it).
 */
import { RideFileError } from '../errors.js';

/** The RideFileError `run` throws; any other outcome fails the test. */
export function errorOf(run: () => unknown): RideFileError {
  try {
    run();
  } catch (error) {
    if (error instanceof RideFileError) return error;
    throw error;
  }
  throw new Error('expected a RideFileError');
}
