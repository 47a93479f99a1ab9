import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  activityFoldersFor,
  defaultMountRoots,
  detectDevices,
  type DetectedDevice,
  type DeviceVendor,
  type MountRoot,
} from './devices.js';

/** Fake mount roots in a real temporary folder (house style: real folders, no mocks). */
let base: string;
let media: string;
let gvfs: string;
let roots: MountRoot[];

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'rideport-devices-'));
  media = join(base, 'media', 'rider');
  gvfs = join(base, 'run', 'user', '1000', 'gvfs');
  await mkdir(media, { recursive: true });
  await mkdir(gvfs, { recursive: true });
  roots = [
    { path: media, transport: 'mass-storage' },
    { path: join(base, 'run', 'media', 'rider'), transport: 'mass-storage' }, // missing: skipped
    { path: gvfs, transport: 'mtp' },
  ];
});

afterEach(async () => {
  await chmod(base, 0o755).catch(() => undefined);
  await rm(base, { recursive: true, force: true });
});

/** Makes `relativePath` (folders) under `root`, with one ride file at the end. */
async function layout(root: string, relativePath: string, file = 'ride.fit'): Promise<string> {
  const folder = join(root, ...relativePath.split('/'));
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, file), 'not really a FIT file');
  return folder;
}

function summary(devices: DetectedDevice[]): Array<Pick<DetectedDevice, 'vendor' | 'transport' | 'label'>> {
  return devices.map(({ vendor, transport, label }) => ({ vendor, transport, label }));
}

describe('defaultMountRoots', () => {
  it('watches /media/$USER, /run/media/$USER and gvfs (MTP) on Linux', () => {
    expect(defaultMountRoots('linux', { user: 'ana', uid: 1000 })).toEqual([
      { path: '/media/ana', transport: 'mass-storage' },
      { path: '/run/media/ana', transport: 'mass-storage' },
      { path: '/run/user/1000/gvfs', transport: 'mtp' },
    ]);
  });

  it('leaves out what an unknown user or uid would make wrong', () => {
    expect(defaultMountRoots('linux', { user: '', uid: -1 })).toEqual([]);
  });

  it('watches /Volumes on macOS', () => {
    expect(defaultMountRoots('darwin', { user: 'ana', uid: 501 })).toEqual([
      { path: '/Volumes', transport: 'mass-storage' },
    ]);
  });

  it('watches drive letters D: to Z: on Windows, or the letters given', () => {
    const roots = defaultMountRoots('win32', { user: 'ana', uid: -1 });
    expect(roots).toHaveLength(23);
    expect(roots[0]).toEqual({ path: 'D:\\', transport: 'mass-storage' });
    expect(roots.at(-1)).toEqual({ path: 'Z:\\', transport: 'mass-storage' });
    expect(
      defaultMountRoots('win32', { user: 'ana', uid: -1, driveLetters: ['e', 'F:', 'G:\\', 'nope'] }),
    ).toEqual([
      { path: 'E:\\', transport: 'mass-storage' },
      { path: 'F:\\', transport: 'mass-storage' },
      { path: 'G:\\', transport: 'mass-storage' },
    ]);
  });

  it('watches nothing elsewhere', () => {
    expect(defaultMountRoots('freebsd', { user: 'ana', uid: 1000 })).toEqual([]);
  });
});

describe('activityFoldersFor', () => {
  it('lists the layouts of every vendor, relative and /-separated', () => {
    const vendors: DeviceVendor[] = ['garmin', 'wahoo', 'hammerhead', 'bryton', 'lezyne', 'coros'];
    for (const vendor of vendors) {
      const folders = activityFoldersFor(vendor);
      expect(folders.length).toBeGreaterThan(0);
      for (const folder of folders) expect(folder).not.toMatch(/^\/|\\/);
    }
    expect(activityFoldersFor('garmin')).toEqual(
      expect.arrayContaining(['Garmin/Activity', 'Garmin/Activities']),
    );
    expect(activityFoldersFor('wahoo')).toContain('exports');
  });
});

describe('detectDevices', () => {
  it('finds nothing when nothing is plugged in, and when no root exists', async () => {
    expect(await detectDevices(roots)).toEqual([]);
    expect(await detectDevices([{ path: join(base, 'nowhere'), transport: 'mass-storage' }])).toEqual([]);
    expect(await detectDevices([])).toEqual([]);
  });

  it('recognises each vendor layout, in any letter case, and ignores unrelated USB sticks', async () => {
    const garmin = await layout(join(media, 'GARMIN'), 'GARMIN/ACTIVITY');
    const edge = await layout(join(media, 'EDGE1040'), 'Garmin/Activities');
    const bryton = await layout(join(media, 'BRYTON'), 'bryton/activity');
    const lezyne = await layout(join(media, 'LEZYNE'), 'LEZYNE/Activities');
    const coros = await layout(join(media, 'COROS'), 'Activity');
    const corosNested = await layout(join(media, 'PACE2'), 'Coros/activity');
    const garminMtp = await layout(
      join(gvfs, 'mtp:host=Garmin_Edge_840_0000c6bd'),
      'Internal Storage/GARMIN/Activity',
    );
    const wahoo = await layout(
      join(gvfs, 'mtp:host=Wahoo_ELEMNT_BOLT_A1B2'),
      'Internal shared storage/exports',
    );
    const karoo = await layout(
      join(gvfs, 'mtp:host=Hammerhead_Karoo_2_XYZ'),
      'Internal shared storage/FitFiles',
    );
    // Unrelated sticks: common folder names that must not pass for a GPS unit.
    await layout(join(media, 'STICK'), 'Documents/Activity');
    await layout(join(media, 'STICK'), 'exports', 'taxes.csv');
    await layout(join(media, 'STICK'), 'FitFiles');
    await layout(join(media, 'CAMERA'), 'DCIM/100CANON', 'IMG_0001.JPG');
    await layout(join(media, 'BACKUP'), 'Activity');
    await layout(join(media, 'GARMIN-NOT'), 'Garmin', 'Activity'); // a file named Activity, not a folder
    await layout(join(gvfs, 'smb-share:server=nas,share=rides'), 'Garmin/Activity'); // a network share

    const devices = await detectDevices(roots);
    const byPath = new Map(devices.map((device) => [device.mountPath, device]));
    expect(devices).toHaveLength(9);

    expect(byPath.get(join(media, 'GARMIN'))).toMatchObject({
      vendor: 'garmin',
      label: 'Garmin device (GARMIN)',
      transport: 'mass-storage',
      activityFolders: [garmin],
    });
    expect(byPath.get(join(media, 'EDGE1040'))).toMatchObject({ vendor: 'garmin', activityFolders: [edge] });
    expect(byPath.get(join(media, 'BRYTON'))).toMatchObject({ vendor: 'bryton', activityFolders: [bryton] });
    expect(byPath.get(join(media, 'LEZYNE'))).toMatchObject({ vendor: 'lezyne', activityFolders: [lezyne] });
    expect(byPath.get(join(media, 'COROS'))).toMatchObject({ vendor: 'coros', activityFolders: [coros] });
    expect(byPath.get(join(media, 'PACE2'))).toMatchObject({
      vendor: 'coros',
      activityFolders: [corosNested],
    });
    expect(byPath.get(join(gvfs, 'mtp:host=Garmin_Edge_840_0000c6bd'))).toMatchObject({
      vendor: 'garmin',
      label: 'Garmin device (Garmin Edge 840 0000c6bd)',
      transport: 'mtp',
      activityFolders: [garminMtp],
    });
    expect(byPath.get(join(gvfs, 'mtp:host=Wahoo_ELEMNT_BOLT_A1B2'))).toMatchObject({
      vendor: 'wahoo',
      label: 'Wahoo device (Wahoo ELEMNT BOLT A1B2)',
      transport: 'mtp',
      activityFolders: [wahoo],
    });
    expect(byPath.get(join(gvfs, 'mtp:host=Hammerhead_Karoo_2_XYZ'))).toMatchObject({
      vendor: 'hammerhead',
      transport: 'mtp',
      activityFolders: [karoo],
    });
    for (const device of devices) {
      expect(device.activityFolders.every((folder) => folder.startsWith(device.mountPath))).toBe(true);
    }
  });

  it('lists every layout of a vendor that exists on one volume, and names the device by the first', async () => {
    const activity = await layout(join(media, 'GARMIN'), 'Garmin/Activity');
    const activities = await layout(join(media, 'GARMIN'), 'Garmin/Activities');
    const [device, ...rest] = await detectDevices(roots);
    expect(rest).toEqual([]);
    expect(device?.activityFolders).toEqual([activity, activities]);
    expect(device?.id).toBe('garmin:mass-storage:GARMIN:garmin/activity');
  });

  it('gives the same ids on every detection and after a re-plug in another letter case', async () => {
    await layout(join(media, 'GARMIN'), 'Garmin/Activity');
    await layout(join(gvfs, 'mtp:host=Wahoo_ELEMNT_ROAM_77'), 'exports');
    const first = await detectDevices(roots);
    const second = await detectDevices(roots);
    expect(second).toEqual(first);
    expect(summary(first)).toEqual([
      { vendor: 'garmin', transport: 'mass-storage', label: 'Garmin device (GARMIN)' },
      { vendor: 'wahoo', transport: 'mtp', label: 'Wahoo device (Wahoo ELEMNT ROAM 77)' },
    ]);

    // Unplugged: gone. Plugged back in (a FAT driver may report the folder names in another case).
    await rm(join(media, 'GARMIN'), { recursive: true });
    expect((await detectDevices(roots)).map((device) => device.vendor)).toEqual(['wahoo']);
    await layout(join(media, 'GARMIN'), 'GARMIN/ACTIVITY');
    const replugged = await detectDevices(roots);
    expect(replugged.map((device) => device.id)).toEqual(first.map((device) => device.id));
    expect(new Set(first.map((device) => device.id)).size).toBe(first.length);
  });

  it('does not throw when a root or volume is unreadable', async () => {
    await layout(join(media, 'GARMIN'), 'Garmin/Activity');
    const locked = join(base, 'locked');
    await layout(join(locked, 'BRYTON'), 'Bryton/Activity');
    await chmod(locked, 0o000);
    await chmod(join(media, 'GARMIN'), 0o000);
    try {
      const devices = await detectDevices([...roots, { path: locked, transport: 'mass-storage' }]);
      // As root (some CI containers) permissions do not hold; either way nothing throws.
      if (process.getuid?.() !== 0) expect(devices).toEqual([]);
    } finally {
      await chmod(join(media, 'GARMIN'), 0o755);
      await chmod(locked, 0o755);
    }
  });

  it('does not throw when a root or volume vanishes mid-scan', async () => {
    const volumes = Array.from({ length: 40 }, (_, i) => join(media, `GARMIN${i}`));
    await Promise.all(volumes.map((volume) => layout(volume, 'Garmin/Activity')));
    // Remove volumes (and then the whole root) while detection runs.
    const scan = detectDevices(roots);
    const removal = (async () => {
      for (const volume of volumes) await rm(volume, { recursive: true, force: true });
      await rm(media, { recursive: true, force: true });
    })();
    const [devices] = await Promise.all([scan, removal]);
    expect(devices.length).toBeLessThanOrEqual(volumes.length);
    for (const device of devices) expect(device.vendor).toBe('garmin');
    expect(await detectDevices(roots)).toEqual([]);
  });

  it('takes a root that is a file, not a folder, as empty', async () => {
    const file = join(base, 'not-a-folder');
    await writeFile(file, '');
    expect(await detectDevices([{ path: file, transport: 'mass-storage' }])).toEqual([]);
  });
});
