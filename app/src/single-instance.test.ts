import { describe, expect, it } from 'vitest';
import { claimSingleInstance } from './single-instance.js';
import { FakeElectron } from './test-support/fake-electron.js';

describe('claimSingleInstance', () => {
  it('keeps the first instance and shows it when a second one starts', () => {
    const electron = new FakeElectron();
    let shown = 0;
    expect(claimSingleInstance(electron.app, () => shown++)).toBe(true);
    expect(electron.quitCalls).toBe(0);
    electron.emitApp('second-instance');
    expect(shown).toBe(1);
  });

  it('quits a second instance without doing anything else', () => {
    const electron = new FakeElectron();
    electron.singleInstanceLock = false;
    let shown = 0;
    expect(claimSingleInstance(electron.app, () => shown++)).toBe(false);
    expect(electron.quitCalls).toBe(1);
    expect(electron.appListeners.get('second-instance')).toBeUndefined();
  });
});
