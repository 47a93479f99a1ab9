/**
 * One Rideport per user (issue 7: "single-instance lock"): a second launch (from the menu, at login,
 * from the AppImage again) hands over to the running one, which shows its dashboard, and quits.
 */
import type { AppLike } from './electron-api.js';

/**
 * Takes the lock. True: this is the only instance, and `onSecondInstance` runs whenever another one
 * starts. False: another instance runs; this one has asked to quit and must do nothing more.
 */
export function claimSingleInstance(
  app: Pick<AppLike, 'requestSingleInstanceLock' | 'on' | 'quit'>,
  onSecondInstance: () => void,
): boolean {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return false;
  }
  app.on('second-instance', onSecondInstance);
  return true;
}
