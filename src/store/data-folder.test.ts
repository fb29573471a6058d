import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { legacyNotice, resolveDataFolder } from './data-folder.js';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function place() {
  const root = mkdtempSync(join(tmpdir(), 'barometer-data-folder-'));
  roots.push(root);
  const cwd = join(root, 'project');
  mkdirSync(cwd);
  const env = { HOME: join(root, 'home'), XDG_STATE_HOME: join(root, 'state') };
  return { root, cwd, env, state: join(root, 'state', 'barometer') };
}

describe('resolveDataFolder', () => {
  it('is the state folder by default, never a folder of the working directory', () => {
    const { cwd, env, state } = place();
    expect(resolveDataFolder({ env, cwd, platform: 'linux' })).toEqual({
      path: state,
      source: 'default',
      stateFolder: state,
    });
  });

  it('takes --data-dir, then BAROMETER_DATA_DIR, each relative to the working directory', () => {
    const { cwd, env } = place();
    const withVariable = { ...env, BAROMETER_DATA_DIR: 'from-env' };
    expect(resolveDataFolder({ flag: 'from-flag', env: withVariable, cwd, platform: 'linux' })).toMatchObject(
      {
        path: join(cwd, 'from-flag'),
        source: '--data-dir',
      },
    );
    expect(resolveDataFolder({ env: withVariable, cwd, platform: 'linux' })).toMatchObject({
      path: join(cwd, 'from-env'),
      source: 'BAROMETER_DATA_DIR',
    });
  });

  it('keeps using a ./.barometer an earlier version left, unless told not to look (legacy: false)', () => {
    const { cwd, env, state } = place();
    mkdirSync(join(cwd, '.barometer'));
    expect(resolveDataFolder({ env, cwd, platform: 'linux' })).toMatchObject({
      path: join(cwd, '.barometer'),
      source: 'legacy',
    });
    expect(resolveDataFolder({ env, cwd, platform: 'linux', legacy: false }).path).toBe(state);
    // The flag and the variable still win over it.
    expect(resolveDataFolder({ flag: 'x', env, cwd, platform: 'linux' }).source).toBe('--data-dir');
  });

  it('says in one line where the default is now and how to move, as mkdir and mv commands', () => {
    const { cwd, env, state, root } = place();
    mkdirSync(join(cwd, '.barometer'));
    const notice = legacyNotice(resolveDataFolder({ env, cwd, platform: 'linux' }));
    expect(notice).not.toContain('\n');
    expect(notice).toBe(
      `barometer: using ${cwd}/.barometer, left by an earlier version; the default data folder is now ${state} (to move: stop barometer, then mkdir -p '${root}/state' && mv '${cwd}/.barometer' '${state}'; or keep this one with --data-dir or BAROMETER_DATA_DIR)`,
    );
    mkdirSync(state, { recursive: true });
    expect(legacyNotice(resolveDataFolder({ env, cwd, platform: 'linux' }))).toContain(
      `it exists already: move what you want to keep from '${cwd}/.barometer' into it`,
    );
  });
});
