import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as frontDoor from './index.js';
import * as internal from './internal.js';

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('the front door (import … from "barometer")', () => {
  const names = Object.keys(frontDoor);

  it('names at most 60 things at run time', () => {
    expect(names.length).toBeGreaterThan(0);
    expect(names.length).toBeLessThanOrEqual(60);
  });

  it("documents each of them in the README's API section", () => {
    const api = README.slice(README.indexOf('## API'), README.indexOf('\n## ', README.indexOf('## API') + 1));
    expect(api.length).toBeGreaterThan(0);
    expect(names.filter((name) => !api.includes(`\`${name}\``))).toEqual([]);
  });

  it('gives the same objects as barometer/internal, which holds every building block', () => {
    const front: Record<string, unknown> = { ...frontDoor };
    const everything: Record<string, unknown> = { ...internal };
    for (const name of names) expect(everything[name], name).toBe(front[name]);
    expect(Object.keys(everything).length).toBeGreaterThan(names.length);
  });

  it('re-exports nothing with export *', () => {
    for (const file of ['index.ts', 'internal.ts']) {
      expect(readFileSync(new URL(`./${file}`, import.meta.url), 'utf8')).not.toMatch(/export \*/);
    }
  });
});
