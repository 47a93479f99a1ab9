/**
 * Everything in a folder, for tests that a refusal "changes nothing" (issue 17): every file's bytes (as
 * a SHA-256) and every folder, by path relative to the folder.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { LOCK_FILE } from '../data-layout.js';

export function snapshotDirectory(root: string): Record<string, string> {
  const snapshot: Record<string, string> = {};
  const visit = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      const name = relative(root, path);
      if (entry.isDirectory()) {
        snapshot[name] = 'folder';
        visit(path);
      } else if (entry.name === LOCK_FILE) {
        // Never opened: closing a handle on it would drop a lock this process holds (db/file-lock.ts).
        snapshot[name] = `${statSync(path).size} bytes`;
      } else {
        snapshot[name] = createHash('sha256').update(readFileSync(path)).digest('hex');
      }
    }
  };
  visit(root);
  return snapshot;
}
