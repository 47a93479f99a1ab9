import { describe, expect, it } from 'vitest';
import { desktopAppDataDirectory } from './data-directory.js';

describe('desktopAppDataDirectory (issue 20: up says where the app keeps its data)', () => {
  it.each([
    ['linux', {}, '/home/r/.config/Rideport'],
    ['linux', { XDG_CONFIG_HOME: '/cfg' }, '/cfg/Rideport'],
    ['darwin', {}, '/home/r/Library/Application Support/Rideport'],
    ['win32', { APPDATA: '/roaming' }, '/roaming/Rideport'],
  ] as const)('%s %j', (platform, env, expected) => {
    expect(desktopAppDataDirectory(platform, env, '/home/r')).toBe(expected);
  });
});
