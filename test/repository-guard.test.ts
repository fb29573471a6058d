import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { repositorySnapshot, stateFolderSnapshot, writesBetween } from './repository-guard.js';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function fakeRepository(): string {
  const root = mkdtempSync(join(tmpdir(), 'barometer-guard-'));
  roots.push(root);
  mkdirSync(join(root, 'src'));
  writeFileSync(join(root, 'package.json'), '{}');
  return root;
}

describe('the repository guard (vitest global setup)', () => {
  it('finds a .barometer data dir that a test left in the repository root', () => {
    const root = fakeRepository();
    const before = repositorySnapshot(root);
    mkdirSync(join(root, '.barometer', 'webhooks'), { recursive: true });
    writeFileSync(join(root, '.barometer', 'webhooks', 'webhooks.json'), '{}');
    expect(writesBetween(before, repositorySnapshot(root))).toEqual([
      '.barometer',
      '.barometer/webhooks',
      '.barometer/webhooks/webhooks.json',
    ]);
  });

  it('finds a write into a .barometer that was there before (a developer’s own), and a new top-level entry', () => {
    const root = fakeRepository();
    mkdirSync(join(root, '.barometer', 'sessions'), { recursive: true });
    const snapshot = join(root, '.barometer', 'sessions', 'state.json');
    writeFileSync(snapshot, '{}');
    utimesSync(snapshot, new Date(2026, 0, 1), new Date(2026, 0, 1));
    const before = repositorySnapshot(root);
    writeFileSync(snapshot, '{"sessions":[]}');
    writeFileSync(join(root, 'stray.log'), 'x');
    expect(writesBetween(before, repositorySnapshot(root)).sort()).toEqual(
      ['.barometer/sessions/state.json', 'stray.log'].sort(),
    );
  });

  it('lets the build, the dependencies and the e2e screenshots be, and sees nothing when nothing was written', () => {
    const root = fakeRepository();
    const before = repositorySnapshot(root);
    for (const output of ['dist', 'test-artifacts', 'coverage']) mkdirSync(join(root, output));
    expect(writesBetween(before, repositorySnapshot(root))).toEqual([]);
  });

  it('finds a state folder made by the run, and a session or an archive written two levels into one that was there', () => {
    const root = fakeRepository();
    const state = join(root, 'state', 'barometer');
    const before = stateFolderSnapshot(state);
    mkdirSync(join(state, 'archives', 's1'), { recursive: true });
    expect(writesBetween(before, stateFolderSnapshot(state)).sort()).toEqual([
      '.',
      'archives',
      'archives/s1',
    ]);
    mkdirSync(join(state, 'sessions'));
    utimesSync(join(state, 'sessions'), new Date(2026, 0, 1), new Date(2026, 0, 1));
    utimesSync(state, new Date(2026, 0, 1), new Date(2026, 0, 1));
    const quiet = stateFolderSnapshot(state);
    writeFileSync(join(state, 'sessions', 'agent-7.json'), '{}');
    writeFileSync(join(state, 'archives', 's1', 'subtask-1.log'), '{}');
    // Two levels deep are listed; a file deeper than that shows as its folder's change.
    expect(writesBetween(quiet, stateFolderSnapshot(state)).sort()).toEqual([
      'archives/s1',
      'sessions',
      'sessions/agent-7.json',
    ]);
  });
});
