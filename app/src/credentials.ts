/**
 * Secrets kept by the desktop app (issue 7: "credentials kept with `safeStorage` through an async
 * wrapper, with a visible warning when the platform falls back to plain text"): the remote server's
 * auth token, encrypted with safeStorage in `credentials.json` in userData (mode 0600). Never the
 * password: sign-in trades it for a token at once.
 *
 * Where safeStorage cannot encrypt (no keychain / secret service), or encrypts with a fixed key
 * (Linux's `basic_text` backend), the credentials still work, but `protection().plainText` is true and
 * the settings page and tray tooltip say so.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { SafeStorageLike } from './electron-api.js';
import { writeFileAtomically } from '@rideport/files';

export interface RemoteToken {
  /** the server it was issued by: a token is never sent to another */
  url: string;
  email: string;
  authToken: string;
}

export interface CredentialProtection {
  plainText: boolean;
  /** why, for the warning; null when encrypted by the platform */
  reason: string | null;
}

interface StoredFile {
  version: 1;
  storage: 'safeStorage' | 'plain';
  /** base64 of the encrypted (or, for 'plain', the plain) JSON of the RemoteToken */
  remote: string;
}

export class CredentialStore {
  readonly path: string;

  constructor(
    private readonly safeStorage: SafeStorageLike,
    userDataFolder: string,
  ) {
    this.path = join(userDataFolder, 'credentials.json');
  }

  /** How secrets are kept right now (call after app ready: before it, Linux reports no encryption). */
  protection(): CredentialProtection {
    if (!this.safeStorage.isEncryptionAvailable()) {
      return {
        plainText: true,
        reason: 'the system keychain is not available, so credentials are stored unencrypted',
      };
    }
    if (this.safeStorage.getSelectedStorageBackend?.() === 'basic_text') {
      return {
        plainText: true,
        reason:
          'no secret service (GNOME Keyring, KWallet) was found, so credentials are stored as plain text',
      };
    }
    return { plainText: false, reason: null };
  }

  /** safeStorage.encryptString as a promise; plain bytes where the platform cannot encrypt. */
  encrypt(text: string): Promise<{ data: Buffer; storage: StoredFile['storage'] }> {
    return new Promise((resolve, reject) => {
      try {
        if (this.safeStorage.isEncryptionAvailable()) {
          resolve({ data: this.safeStorage.encryptString(text), storage: 'safeStorage' });
        } else {
          resolve({ data: Buffer.from(text, 'utf8'), storage: 'plain' });
        }
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  /** safeStorage.decryptString as a promise. */
  decrypt(data: Buffer, storage: StoredFile['storage']): Promise<string> {
    return new Promise((resolve, reject) => {
      try {
        resolve(storage === 'plain' ? data.toString('utf8') : this.safeStorage.decryptString(data));
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  async saveRemoteToken(token: RemoteToken): Promise<CredentialProtection> {
    const { data, storage } = await this.encrypt(JSON.stringify(token));
    const stored: StoredFile = { version: 1, storage, remote: data.toString('base64') };
    await writeFileAtomically(this.path, `${JSON.stringify(stored)}\n`, { mode: 0o600, folderMode: 0o700 });
    return this.protection();
  }

  /**
   * The saved token, or null when there is none, it cannot be decrypted any more (the keychain was
   * reset: the user signs in again), or it was issued by another server than `url`.
   */
  async loadRemoteToken(url: string): Promise<RemoteToken | null> {
    let stored: Partial<StoredFile>;
    try {
      stored = JSON.parse(await readFile(this.path, 'utf8')) as Partial<StoredFile>;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' || error instanceof SyntaxError) return null;
      throw error;
    }
    if (
      typeof stored.remote !== 'string' ||
      (stored.storage !== 'plain' && stored.storage !== 'safeStorage')
    ) {
      return null;
    }
    try {
      const token = JSON.parse(
        await this.decrypt(Buffer.from(stored.remote, 'base64'), stored.storage),
      ) as Partial<RemoteToken>;
      if (
        typeof token.url !== 'string' ||
        typeof token.email !== 'string' ||
        typeof token.authToken !== 'string'
      ) {
        return null;
      }
      return token.url === url ? { url: token.url, email: token.email, authToken: token.authToken } : null;
    } catch {
      return null;
    }
  }

  async clear(): Promise<void> {
    await rm(this.path, { force: true });
  }
}
