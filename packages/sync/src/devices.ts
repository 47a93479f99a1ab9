/**
 * Device detection for GPS units that show up as a folder tree (docs/contributors/architecture.md, "Sync engine"; the sync
 * package's "device detection for mass-storage GPS units"): the platform's mount roots are listed, and
 * each volume under them is checked for the activity folder layouts of the vendors below. Detection is
 * a snapshot, repeated by the engine on every pass (MTP mounts under gvfs raise no change events, so
 * they are polled like everything else). Nothing here writes to a device.
 */
import { readdir, stat } from 'node:fs/promises';
import { homedir, userInfo } from 'node:os';
import { join } from 'node:path';

export type DeviceVendor = 'garmin' | 'wahoo' | 'hammerhead' | 'bryton' | 'lezyne' | 'coros';

export interface DetectedDevice {
  /** stable across re-plugs: vendor, volume (or MTP device) name and the first layout found */
  id: string;
  vendor: DeviceVendor;
  /** for people, e.g. "Garmin device (GARMIN)" */
  label: string;
  /** the volume (or MTP device folder) */
  mountPath: string;
  /** absolute paths of the activity folders that exist, spelled as on the device */
  activityFolders: string[];
  transport: 'mass-storage' | 'mtp';
}

export interface MountRoot {
  /** a folder whose children are volumes (`/media/$USER`), or a volume itself (a drive letter, `E:\`) */
  path: string;
  transport: 'mass-storage' | 'mtp';
}

type Transport = MountRoot['transport'];

interface Layout {
  /** relative to the volume, `/`-separated, matched case-insensitively segment by segment */
  path: string;
  /** where the layout is recognised (some folder names are too common to trust on any USB stick) */
  transports: readonly Transport[];
  /** when set, only on a volume (or MTP device) whose name matches */
  volumeName?: RegExp;
}

const ANY: readonly Transport[] = ['mass-storage', 'mtp'];
const MTP_ONLY: readonly Transport[] = ['mtp'];

/**
 * The layouts per vendor, in order of preference (the first one found names the device in its id).
 * Where they come from, and which are assumptions:
 *
 * - Garmin: `Garmin/Activity` on the `GARMIN` mass-storage volume is documented in Garmin's owner's
 *   manuals ("Garmin > Activity"); `Garmin/Activities` for newer units is taken from the design brief,
 *   not verified against a device. MTP units (newer watches and Edge models) show a storage named
 *   `Internal Storage` holding the same `Garmin/Activity`: community reports, an assumption here.
 * - Wahoo ELEMNT / BOLT / ROAM / ACE: completed rides are in the `exports` folder (Wahoo support,
 *   "Connect an ACE, BOLT 3, or ROAM 3 to a desktop/laptop computer": MTP only, files in `exports`,
 *   workouts in `plans`, routes in `routes`). Android names the MTP storage `Internal shared storage`.
 *   Because Wahoo units are MTP only and `exports` is a common folder name, it is not trusted on a
 *   mass-storage volume.
 * - Hammerhead Karoo: an Android device over MTP; rides as `.fit` in `FitFiles` at the top of its
 *   storage, as reported by users (no vendor documentation found): an assumption. `Karoo/FitFiles` is
 *   accepted as well in case the folder sits under an app folder. MTP only, for the same reason as Wahoo.
 * - Bryton: `Bryton/Activity`: an assumption (older Rider units are mass storage; no vendor
 *   documentation of the folder found).
 * - Lezyne: `Lezyne/Activities`: an assumption (no vendor documentation found).
 * - COROS: `COROS/Activity`, or `Activity` on a volume named COROS: an assumption, taken from the
 *   design brief (no vendor documentation found). A bare `Activity` folder is far too common on its own.
 *
 * Getting one of the assumptions wrong only means a device is not detected; the user can still add its
 * folder as a watched folder.
 */
const LAYOUTS: Readonly<Record<DeviceVendor, readonly Layout[]>> = {
  garmin: [
    { path: 'Garmin/Activity', transports: ANY },
    { path: 'Garmin/Activities', transports: ANY },
    { path: 'Internal Storage/Garmin/Activity', transports: ANY },
    { path: 'Internal Storage/Garmin/Activities', transports: ANY },
  ],
  wahoo: [
    { path: 'exports', transports: MTP_ONLY },
    { path: 'Internal shared storage/exports', transports: MTP_ONLY },
  ],
  hammerhead: [
    { path: 'FitFiles', transports: MTP_ONLY },
    { path: 'Internal shared storage/FitFiles', transports: MTP_ONLY },
    { path: 'Karoo/FitFiles', transports: ANY },
    { path: 'Internal shared storage/Karoo/FitFiles', transports: MTP_ONLY },
  ],
  bryton: [
    { path: 'Bryton/Activity', transports: ANY },
    { path: 'Internal Storage/Bryton/Activity', transports: MTP_ONLY },
  ],
  lezyne: [{ path: 'Lezyne/Activities', transports: ANY }],
  coros: [
    { path: 'COROS/Activity', transports: ANY },
    { path: 'Activity', transports: ANY, volumeName: /^coros\b/i },
  ],
};

const VENDOR_NAMES: Readonly<Record<DeviceVendor, string>> = {
  garmin: 'Garmin',
  wahoo: 'Wahoo',
  hammerhead: 'Hammerhead',
  bryton: 'Bryton',
  lezyne: 'Lezyne',
  coros: 'COROS',
};

const VENDORS = Object.keys(LAYOUTS) as DeviceVendor[];

/** The layouts a vendor's activity folders are looked for at, relative to the volume. */
export function activityFoldersFor(vendor: DeviceVendor): string[] {
  return LAYOUTS[vendor].map((layout) => layout.path);
}

/** Who runs this process, for the mount roots (/media/$USER, /run/user/$UID/gvfs). */
export function currentUser(): { user: string; uid: number } {
  try {
    const info = userInfo();
    return { user: info.username, uid: info.uid };
  } catch {
    // No passwd entry (some containers): the home folder's name is the best guess.
    return { user: homedir().split(/[\\/]/).pop() ?? '', uid: -1 };
  }
}

/**
 * Where volumes appear on each platform. Linux: udisks mounts under `/media/$USER` (Debian, Ubuntu) or
 * `/run/media/$USER` (Fedora, Arch), and GNOME's gvfs exposes MTP devices under `/run/user/$UID/gvfs`.
 * macOS: `/Volumes` (MTP needs a separate app there and gives no mount). Windows: drive letters, each
 * itself a volume (MTP devices get no drive letter there). Other platforms: none.
 */
export function defaultMountRoots(
  platform: NodeJS.Platform,
  env: { user: string; uid: number; driveLetters?: string[] },
): MountRoot[] {
  switch (platform) {
    case 'linux': {
      const roots: MountRoot[] = [];
      // Without a user name these would be the parents of the per-user folders, not volumes.
      if (env.user !== '') {
        roots.push({ path: `/media/${env.user}`, transport: 'mass-storage' });
        roots.push({ path: `/run/media/${env.user}`, transport: 'mass-storage' });
      }
      if (Number.isInteger(env.uid) && env.uid >= 0) {
        roots.push({ path: `/run/user/${env.uid}/gvfs`, transport: 'mtp' });
      }
      return roots;
    }
    case 'darwin':
      return [{ path: '/Volumes', transport: 'mass-storage' }];
    case 'win32': {
      // C: is the system drive; A: and B: are floppy letters. Removable drives get D: onwards.
      const letters = env.driveLetters ?? Array.from({ length: 23 }, (_, i) => String.fromCharCode(0x44 + i));
      return letters
        .map((letter) => /^([A-Za-z])(?::\\?)?$/.exec(letter.trim())?.[1]?.toUpperCase())
        .filter((letter) => letter !== undefined)
        .map((letter) => ({ path: `${letter}:\\`, transport: 'mass-storage' as const }));
    }
    default:
      return [];
  }
}

/** A Windows drive root (`E:\`, `E:`): itself the volume, not a folder of volumes. */
const DRIVE_ROOT = /^[A-Za-z]:[\\/]?$/;

/**
 * The GPS devices under `roots` now. A missing root is skipped (nothing plugged in), and so is anything
 * that cannot be read or vanishes while it is looked at (a device unplugged mid-scan): never throws.
 */
export async function detectDevices(roots: readonly MountRoot[]): Promise<DetectedDevice[]> {
  const lister = new DirectoryLister();
  const volumes = (
    await Promise.all(
      roots.map(async (root): Promise<Volume[]> => {
        if (DRIVE_ROOT.test(root.path)) {
          const letter = root.path.slice(0, 2).toUpperCase();
          return [{ path: root.path, name: letter, transport: root.transport }];
        }
        const children = await lister.list(root.path);
        return children
          .filter((name) => isVolumeName(name, root.transport))
          .map((name) => ({ path: join(root.path, name), name, transport: root.transport }));
      }),
    )
  ).flat();
  const found = await Promise.all(volumes.map((volume) => devicesOn(volume, lister)));
  return found.flat().sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

interface Volume {
  path: string;
  /** the mount folder's name: the volume label, or gvfs' `mtp:host=…` name */
  name: string;
  transport: Transport;
}

/**
 * Under gvfs only MTP devices are looked into: its other mounts (`smb-share:`, `sftp:`, `dav:`) are
 * network shares, slow to list and never a GPS unit. Hidden entries are never volumes.
 */
function isVolumeName(name: string, transport: Transport): boolean {
  if (name.startsWith('.')) return false;
  return transport === 'mtp' ? name.toLowerCase().startsWith('mtp:') : true;
}

async function devicesOn(volume: Volume, lister: DirectoryLister): Promise<DetectedDevice[]> {
  const displayName = displayVolumeName(volume.name);
  const devices: DetectedDevice[] = [];
  for (const vendor of VENDORS) {
    const layouts = LAYOUTS[vendor].filter(
      (layout) =>
        layout.transports.includes(volume.transport) &&
        (layout.volumeName === undefined || layout.volumeName.test(displayName)),
    );
    const matches = await Promise.all(
      layouts.map(async (layout) => ({ layout, folder: await lister.resolve(volume.path, layout.path) })),
    );
    const present = matches.filter((match) => match.folder !== null);
    const first = present[0];
    if (first === undefined) continue;
    devices.push({
      id: `${vendor}:${volume.transport}:${volume.name}:${first.layout.path.toLowerCase()}`,
      vendor,
      label: `${VENDOR_NAMES[vendor]} device (${displayName})`,
      mountPath: volume.path,
      activityFolders: [...new Set(present.map((match) => match.folder!))],
      transport: volume.transport,
    });
  }
  return devices;
}

/** `mtp:host=Garmin_Edge_530_0000c6bd` → `Garmin Edge 530 0000c6bd`; a volume label as it is. */
function displayVolumeName(name: string): string {
  const mtp = /^mtp:host=(.*)$/i.exec(name);
  if (mtp === null) return name;
  let host = mtp[1]!;
  try {
    host = decodeURIComponent(host);
  } catch {
    // Not percent-encoded after all: shown as it is.
  }
  return host.replace(/_/g, ' ').trim() || name;
}

/**
 * Lists folders once per detection (MTP listings are slow) and resolves layout paths case-insensitively:
 * FAT volumes keep whatever case the device wrote, and MTP names are case-sensitive paths on Linux.
 */
class DirectoryLister {
  readonly #listings = new Map<string, Promise<string[]>>();

  /** The names in `folder`; none when it is missing, unreadable or not a folder. */
  list(folder: string): Promise<string[]> {
    let listing = this.#listings.get(folder);
    if (listing === undefined) {
      listing = readdir(folder).catch(() => []);
      this.#listings.set(folder, listing);
    }
    return listing;
  }

  /** The absolute path of `relativePath` under `base`, matched case-insensitively, if it is a folder. */
  async resolve(base: string, relativePath: string): Promise<string | null> {
    let current = base;
    for (const segment of relativePath.split('/')) {
      const wanted = segment.toLowerCase();
      const names = await this.list(current);
      // An exact match first: a case-sensitive file system may hold both `Activity` and `activity`.
      const name =
        names.find((entry) => entry === segment) ?? names.find((entry) => entry.toLowerCase() === wanted);
      if (name === undefined) return null;
      current = join(current, name);
    }
    try {
      return (await stat(current)).isDirectory() ? current : null;
    } catch {
      // Gone, or not readable, since it was listed.
      return null;
    }
  }
}
