import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CredentialStore } from './credentials.js';
import { FakeSafeStorage } from './test-support/fake-electron.js';

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'rideport-credentials-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

const token = { url: 'https://rides.example.com', email: 'a@example.com', authToken: 'secret-token-123' };

describe('CredentialStore', () => {
  it('round-trips the token encrypted, without the secret in the file', async () => {
    const store = new CredentialStore(new FakeSafeStorage(), folder);
    expect(await store.saveRemoteToken(token)).toEqual({ plainText: false, reason: null });
    const file = await readFile(store.path, 'utf8');
    expect(file).not.toContain('secret-token-123');
    expect(Buffer.from((JSON.parse(file) as { remote: string }).remote, 'base64').toString()).not.toContain(
      'secret-token-123',
    );
    expect((JSON.parse(file) as { storage: string }).storage).toBe('safeStorage');
    expect(await store.loadRemoteToken(token.url)).toEqual(token);
    if (process.platform !== 'win32') expect((await stat(store.path)).mode & 0o777).toBe(0o600);
  });

  it('never hands a token to another server', async () => {
    const store = new CredentialStore(new FakeSafeStorage(), folder);
    await store.saveRemoteToken(token);
    expect(await store.loadRemoteToken('https://elsewhere.example.com')).toBeNull();
  });

  it('still works without encryption, and says it is plain text', async () => {
    const safeStorage = new FakeSafeStorage();
    safeStorage.available = false;
    const store = new CredentialStore(safeStorage, folder);
    const protection = await store.saveRemoteToken(token);
    expect(protection.plainText).toBe(true);
    expect(protection.reason).toMatch(/unencrypted/);
    expect((JSON.parse(await readFile(store.path, 'utf8')) as { storage: string }).storage).toBe('plain');
    expect(await store.loadRemoteToken(token.url)).toEqual(token);
  });

  it("reports Linux's basic_text backend as plain text though encryption is 'available'", () => {
    const safeStorage = new FakeSafeStorage();
    safeStorage.backend = 'basic_text';
    safeStorage.getSelectedStorageBackend = () => safeStorage.backend ?? 'unknown';
    const store = new CredentialStore(safeStorage, folder);
    expect(store.protection()).toEqual({
      plainText: true,
      reason: expect.stringMatching(/plain text/) as string,
    });
    safeStorage.backend = 'gnome_libsecret';
    expect(store.protection().plainText).toBe(false);
  });

  it('gives null for a missing, damaged or undecryptable file, and clears', async () => {
    const store = new CredentialStore(new FakeSafeStorage(), folder);
    expect(await store.loadRemoteToken(token.url)).toBeNull();
    await writeFile(store.path, 'not json');
    expect(await store.loadRemoteToken(token.url)).toBeNull();
    await writeFile(store.path, JSON.stringify({ version: 1, storage: 'safeStorage', remote: 'AAAA' }));
    expect(await store.loadRemoteToken(token.url)).toBeNull();
    await store.saveRemoteToken(token);
    await store.clear();
    expect(await store.loadRemoteToken(token.url)).toBeNull();
  });

  it('encrypt and decrypt are promises that reject instead of throwing', async () => {
    const safeStorage = new FakeSafeStorage();
    const store = new CredentialStore(safeStorage, folder);
    const encrypted = await store.encrypt('hello');
    expect(await store.decrypt(encrypted.data, encrypted.storage)).toBe('hello');
    await expect(store.decrypt(Buffer.from('garbage'), 'safeStorage')).rejects.toThrow(/decrypting/);
  });
});
