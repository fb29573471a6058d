import { describe, expect, it } from 'vitest';
import { stateFolder } from './state-folder.js';

describe('stateFolder', () => {
  // The rules of docs/rules.md ("Where barometer keeps its data"), one row each: platform, environment, home → folder.
  it.each([
    ['linux', {}, '/home/ada', '/home/ada/.local/state/barometer'],
    ['linux', { XDG_STATE_HOME: '/var/ada/state' }, '/home/ada', '/var/ada/state/barometer'],
    // The XDG spec: an empty variable takes the default; a relative one is invalid and ignored.
    ['linux', { XDG_STATE_HOME: '' }, '/home/ada', '/home/ada/.local/state/barometer'],
    ['linux', { XDG_STATE_HOME: 'state' }, '/home/ada', '/home/ada/.local/state/barometer'],
    ['freebsd', { XDG_STATE_HOME: '/s' }, '/home/ada', '/s/barometer'],
    ['darwin', {}, '/Users/ada', '/Users/ada/Library/Application Support/barometer'],
    // macOS has its own place; XDG variables are a Linux desktop convention.
    ['darwin', { XDG_STATE_HOME: '/x' }, '/Users/ada', '/Users/ada/Library/Application Support/barometer'],
    [
      'win32',
      { LOCALAPPDATA: 'C:\\Users\\ada\\AppData\\Local' },
      'C:\\Users\\ada',
      'C:\\Users\\ada\\AppData\\Local\\barometer',
    ],
    ['win32', {}, 'C:\\Users\\ada', 'C:\\Users\\ada\\AppData\\Local\\barometer'],
    ['win32', { LOCALAPPDATA: 'relative' }, 'D:\\ada', 'D:\\ada\\AppData\\Local\\barometer'],
  ] as const)('%s with %o and home %s: %s', (platform, env, home, expected) => {
    expect(stateFolder({ platform, env, home })).toBe(expected);
  });
});
