import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BarometerValidationError } from '../errors/validation.js';
import { loadConfig } from './load-config.js';

let directory: string;

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'barometer-config-'));
});

afterEach(async () => {
  vi.restoreAllMocks();
  await rm(directory, { recursive: true, force: true });
});

async function expectValidationError(promise: Promise<unknown>): Promise<BarometerValidationError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(BarometerValidationError);
    return error as BarometerValidationError;
  }
  throw new Error('expected a BarometerValidationError');
}

describe('loadConfig from a directory', () => {
  it('reads barometer.config.json', async () => {
    await writeFile(
      join(directory, 'barometer.config.json'),
      JSON.stringify({ models: { 'gpt-5': { context_length: 272_000 } } }),
    );
    expect(await loadConfig(directory)).toEqual({ models: { 'gpt-5': { contextLength: 272_000 } } });
  });

  it('reads a price from YAML', async () => {
    await writeFile(
      join(directory, 'barometer.config.yaml'),
      [
        'models:',
        '  claude-opus-4-6:',
        '    reasoning: true',
        '    price:',
        '      input: 5',
        '      output: 25',
        '      cache_read: 0.5',
        '      cache_write: 6.25',
        '      tiers:',
        '        - { above_tokens: 200000, input: 10, output: 37.5, cache_read: 1, cache_write: 12.5 }',
        '',
      ].join('\n'),
    );
    expect(await loadConfig(directory)).toEqual({
      models: {
        'claude-opus-4-6': {
          reasoning: true,
          price: {
            input: 5,
            output: 25,
            cacheRead: 0.5,
            cacheWrite: 6.25,
            tiers: [{ aboveTokens: 200_000, input: 10, output: 37.5, cacheRead: 1, cacheWrite: 12.5 }],
          },
        },
      },
    });
  });

  it('reads barometer.config.yaml and barometer.config.yml', async () => {
    await writeFile(join(directory, 'barometer.config.yaml'), 'models:\n  gpt-5:\n    tpm_limit: 500000\n');
    expect(await loadConfig(directory)).toEqual({ models: { 'gpt-5': { tpmLimit: 500_000 } } });
    await rm(join(directory, 'barometer.config.yaml'));
    await writeFile(join(directory, 'barometer.config.yml'), 'models:\n  gpt-5:\n    tpm_limit: 600000\n');
    expect(await loadConfig(directory)).toEqual({ models: { 'gpt-5': { tpmLimit: 600_000 } } });
  });

  it('uses the working directory by default', async () => {
    await writeFile(
      join(directory, 'barometer.config.json'),
      '{"models":{"o3":{"optimal_max_tokens":90000}}}',
    );
    vi.spyOn(process, 'cwd').mockReturnValue(directory);
    expect(await loadConfig()).toEqual({ models: { o3: { optimalMaxTokens: 90_000 } } });
  });

  it('returns an empty config when there is no config file', async () => {
    expect(await loadConfig(directory)).toEqual({ models: {} });
  });

  it('refuses to choose between two config files', async () => {
    await writeFile(join(directory, 'barometer.config.json'), '{}');
    await writeFile(join(directory, 'barometer.config.yaml'), '');
    const error = await expectValidationError(loadConfig(directory));
    expect(error.issues[0]?.field).toBe('path');
    expect(error.message).toContain('more than one config file');
  });
});

describe('loadConfig from a file', () => {
  it('reads an explicit file of any supported name', async () => {
    const file = join(directory, 'limits.yml');
    await writeFile(file, 'models:\n  claude-opus-4-6:\n    critical_max_tokens: 160000\n');
    expect(await loadConfig(file)).toEqual({ models: { 'claude-opus-4-6': { criticalMaxTokens: 160_000 } } });
  });

  it('names the bad field and the file', async () => {
    const file = join(directory, 'barometer.config.json');
    await writeFile(file, JSON.stringify({ models: { 'gpt-5': { context_length: 0 } } }));
    const error = await expectValidationError(loadConfig(file));
    expect(error.issues[0]).toMatchObject({ field: 'models.gpt-5.context_length', value: 0 });
    expect(error.message).toContain(file);
  });

  it('reports a YAML syntax error as a validation error', async () => {
    const file = join(directory, 'barometer.config.yaml');
    await writeFile(file, 'models: [unclosed\n');
    const error = await expectValidationError(loadConfig(file));
    expect(error.issues[0]?.message).toMatch(/^not valid YAML/);
  });

  it('rejects a missing path and an unsupported extension', async () => {
    const missing = await expectValidationError(loadConfig(join(directory, 'nope.json')));
    expect(missing.issues[0]).toMatchObject({ field: 'path', message: 'no such file or directory' });
    const file = join(directory, 'barometer.config.toml');
    await writeFile(file, '');
    const unsupported = await expectValidationError(loadConfig(file));
    expect(unsupported.issues[0]?.allowed?.values).toEqual(['.json', '.yaml', '.yml']);
  });
});
