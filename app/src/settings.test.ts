import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, SettingsError, SettingsFile, validateSettings } from './settings.js';

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'rideport-settings-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

const remote = { mode: 'remote', url: 'https://rides.example.com/', apiKey: ' key ', email: 'a@example.com' };

describe('validateSettings', () => {
  it('accepts the defaults and fills in missing fields', () => {
    expect(validateSettings(DEFAULT_SETTINGS)).toEqual({ ok: true, settings: DEFAULT_SETTINGS });
    expect(validateSettings({ notifications: false })).toEqual({
      ok: true,
      settings: { ...DEFAULT_SETTINGS, notifications: false },
    });
  });

  it('normalises a remote server and de-duplicates folders', () => {
    const result = validateSettings({ server: remote, folders: ['/rides', '/rides', '/more'] });
    expect(result).toEqual({
      ok: true,
      settings: {
        ...DEFAULT_SETTINGS,
        server: { mode: 'remote', url: 'https://rides.example.com', apiKey: 'key', email: 'a@example.com' },
        folders: ['/rides', '/more'],
      },
    });
  });

  it('names every problem', () => {
    const result = validateSettings({
      server: { mode: 'remote', url: 'ftp://x', apiKey: '', email: 'nobody' },
      folders: ['relative/path', 3],
      firstImport: { kind: 'days', days: 0 },
      startAtLogin: 'yes',
      colour: 'red',
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toEqual(
      expect.arrayContaining([
        'server.url must be an http or https URL',
        'server.apiKey must be a non-empty string',
        'server.email must be an email address',
        "folders: 'relative/path' is not an absolute path",
        "folders: '3' is not an absolute path",
        expect.stringMatching(/^firstImport must be/),
        'startAtLogin must be true or false',
        "unknown setting 'colour'",
      ]),
    );
  });

  it('refuses URLs with credentials in them, and non-objects', () => {
    expect(validateSettings({ server: { ...remote, url: 'https://u:p@example.com' } }).ok).toBe(false);
    expect(validateSettings([]).ok).toBe(false);
    expect(validateSettings(null).ok).toBe(false);
  });
});

describe('SettingsFile', () => {
  it('gives the defaults before anything is saved, and what was saved after', async () => {
    const file = new SettingsFile(folder);
    expect(await file.load()).toEqual({ settings: DEFAULT_SETTINGS, problems: [] });
    await file.save({ ...DEFAULT_SETTINGS, folders: ['/rides'], firstImport: { kind: 'days', days: 30 } });
    expect((await file.load()).settings).toEqual({
      ...DEFAULT_SETTINGS,
      folders: ['/rides'],
      firstImport: { kind: 'days', days: 30 },
    });
  });

  it('writes atomically: no temporary file is left, and invalid settings write nothing', async () => {
    const file = new SettingsFile(folder);
    await file.save(DEFAULT_SETTINGS);
    const before = await readFile(file.path, 'utf8');
    await expect(file.save({ ...DEFAULT_SETTINGS, folders: 'nope' })).rejects.toBeInstanceOf(SettingsError);
    expect(await readFile(file.path, 'utf8')).toBe(before);
    expect(await readdir(folder)).toEqual(['settings.json']);
  });

  it('starts with the defaults and the problems when the file is damaged', async () => {
    const file = new SettingsFile(folder);
    await writeFile(file.path, '{"folders": [');
    expect(await file.load()).toEqual({
      settings: DEFAULT_SETTINGS,
      problems: [`${file.path} is not valid JSON`],
    });
    await writeFile(file.path, JSON.stringify({ devices: 'sometimes' }));
    expect((await file.load()).problems).toEqual(['devices must be true or false']);
  });
});
