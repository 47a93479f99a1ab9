/**
 * The settings page (app/static) talks only through the preload bridge: it calls nothing but the
 * bridge methods of the channel list, and its Content Security Policy allows no script but its own.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHANNEL_NAMES } from './ipc-channels.js';

const folder = join(import.meta.dirname, '..', 'static');

describe('settings page', () => {
  it('calls only bridge methods of the channel list', async () => {
    const script = await readFile(join(folder, 'settings.js'), 'utf8');
    const called = [...new Set([...script.matchAll(/\bbridge\.(\w+)\(/g)].map((match) => match[1]!))].sort();
    expect(called.length).toBeGreaterThan(0);
    for (const name of called) expect(CHANNEL_NAMES).toContain(name);
    expect(script).not.toMatch(/\b(require|ipcRenderer|eval)\b/);
  });

  it('loads only its own script and style, under a strict Content Security Policy', async () => {
    const html = await readFile(join(folder, 'settings.html'), 'utf8');
    expect(html).toMatch(
      /http-equiv="Content-Security-Policy"\s+content="default-src 'none'; script-src 'self';/,
    );
    expect([...html.matchAll(/<script\b[^>]*>/g)].map((match) => match[0])).toEqual([
      '<script src="settings.js" defer>',
    ]);
    expect(html).not.toMatch(/\son\w+="/);
  });
});
