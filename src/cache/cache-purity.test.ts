import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/* DESIGN.md: decision modules are pure — no I/O, no clock (time is a parameter), no randomness. */

const FOLDER = fileURLToPath(new URL('.', import.meta.url));
const sources = readdirSync(FOLDER)
  .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
  .map((name) => ({ name, text: readFileSync(join(FOLDER, name), 'utf8') }));

describe('src/cache is a pure decision module', () => {
  it('has its sources', () => {
    expect(sources.map((source) => source.name)).toContain('anthropic-prompt-cache.ts');
  });

  it.each(sources)('$name reads no clock, draws no random number and loads no Node module', ({ text }) => {
    const code = text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
    expect(code).not.toMatch(/\bDate\.now\(|\bnew Date\(|performance\.now\(|Math\.random\(|from 'node:/);
  });
});
