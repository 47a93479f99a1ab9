/**
 * How the desktop app serves (issue 7: "The app hosts the embedded server"): @rideport/host's platform
 * server, on 127.0.0.1 only, since the dashboard is for this machine; the data folder is claimed in the
 * app's name (issue 17: one server per data directory), so `rideport serve` or `rideport up` finding it
 * taken says how to stop the app.
 */
import type { DataDirectoryHolder } from '@rideport/server';

export const EMBEDDED_HOST = '127.0.0.1';

export const APP_CLAIMANT: DataDirectoryHolder = {
  command: 'the Rideport desktop app',
  howToStop: 'choose Quit Rideport in its tray menu',
};
