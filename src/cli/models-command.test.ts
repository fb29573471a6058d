import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findModel } from '../models/find-model.js';
import { memoryIo } from '../test-helpers/memory-io.js';
import { run } from './program.js';

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** Runs `barometer models …` in this process, in a fresh folder (or `cwd`). */
async function models(args: string[], cwd?: string) {
  const folder = cwd ?? mkdtempSync(join(tmpdir(), 'barometer-models-'));
  if (!cwd) folders.push(folder);
  const terminal = memoryIo({ env: {} });
  terminal.io.cwd = folder;
  const code = await run(['models', ...args], { io: terminal.io });
  return { code, stdout: terminal.stdout, stderr: terminal.stderr };
}

describe('barometer models <name>', () => {
  it("says claude-opus-5-5 (Claude Code's default) is estimated from claude-opus-4-8, each figure with its source", async () => {
    const { code, stdout } = await models(['claude-opus-5-5', '--agent', 'claude-code']);
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    expect(lines[0]).toBe('claude-opus-5-5');
    expect(lines).toContain(
      '  known        the registry does not list it: figures estimated from claude-opus-4-8',
    );
    expect(lines).toContain(
      '  family rule  claude-opus-5-5 is of the family claude-opus-*; claude-opus-4-8 is the newest known claude-opus-* model listed by anthropic',
    );
    // claude-opus-4-8's listing: 1,000,000 window, 128,000 output, $5 / $25 / $0.5 / $6.25.
    expect(lines).toContain('  window       1,000,000 tokens (family estimate)');
    expect(lines).toContain(
      "  measured at  167,000 tokens (family estimate): Claude Code's window: at most 200,000, less the 33,000 it keeps",
    );
    expect(lines).toContain('  max output   128,000 tokens (family estimate)');
    expect(lines).toContain(
      '  price        input $5, output $25, cache read $0.5, cache write $6.25 per million tokens (family estimate)',
    );
    expect(lines).toContain('  reasoning    yes (family estimate)');
    expect(stdout).toContain(
      '{ "models": { "claude-opus-5-5": { "context_length": 1000000, "price": { "input": 5, "output": 25 } } } }',
    );
  });

  it('gives the same as JSON, and a listed model as the registry', async () => {
    const { stdout } = await models(['claude-opus-5-5', '--json']);
    expect(JSON.parse(stdout)).toMatchObject({
      model: 'claude-opus-5-5',
      known: 'family-estimate',
      estimatedFrom: 'claude-opus-4-8',
      family: 'claude-opus-*',
      contextLength: { value: 1_000_000, source: 'family-estimate' },
      effectiveWindow: { value: 1_000_000, source: 'family-estimate' },
      price: { value: { input: 5, output: 25 }, source: 'family-estimate' },
      agent: null,
    });
    const listed = JSON.parse((await models(['claude-opus-4-6', '--json'])).stdout);
    expect(listed).toMatchObject({
      known: 'registry',
      registryId: 'anthropic/claude-opus-4-6',
      match: 'exact',
      estimatedFrom: null,
      contextLength: { value: findModel('claude-opus-4-6')?.contextLength, source: 'registry' },
    });
  });

  it('shows the config entry winning over the estimate, from the file in the working directory', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'barometer-models-config-'));
    folders.push(cwd);
    writeFileSync(
      join(cwd, 'barometer.config.json'),
      JSON.stringify({ models: { 'claude-opus-5-5': { price: { input: 6, output: 30 } } } }),
    );
    const { stdout } = await models(['claude-opus-5-5'], cwd);
    expect(stdout).toContain('  price        input $6, output $30 per million tokens (config file)');
    expect(stdout).toContain('  window       1,000,000 tokens (family estimate)');
    expect(stdout).toContain('  config       the entry "claude-opus-5-5" applies');
    const summary = await models([], cwd);
    expect(summary.stdout).toContain(`Config: ${join(cwd, 'barometer.config.json')} (1 model entry)`);
  });

  it('says what a session of a model nobody knows will be', async () => {
    const { code, stdout } = await models(['acme-7']);
    expect(code).toBe(0);
    expect(stdout).toContain(
      '  known        nothing knows it (not the registry, no known model of the family acme-*, no config entry): its sessions have no window (health unknown) and its calls no price',
    );
    expect(stdout).toContain('  price        unknown: calls are unpriced');
  });

  it('refuses an agent it does not know, naming the allowed ones (exit 2)', async () => {
    const { code, stderr } = await models(['claude-opus-5-5', '--agent', 'cursor']);
    expect(code).toBe(2);
    expect(stderr).toContain(
      '--agent must be one of claude-code, codex, gemini-cli, openhands, pi; got "cursor"',
    );
  });
});

describe('barometer models (no name)', () => {
  it('summarizes the registry: models, listings, providers, families, its source, and how to add an entry', async () => {
    const { code, stdout } = await models([]);
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /^barometer knows [\d,]+ models in 5,044 listings of [\d,]+ providers, [\d,]+ families/,
    );
    expect(stdout).toContain('models.dev');
    expect(stdout).toContain('generated 2026-11-22');
    expect(stdout).toContain('put a barometer.config.json in the working directory');
    const json = JSON.parse((await models(['--json'])).stdout);
    expect(json).toMatchObject({
      listings: 5044,
      generated: '2026-11-22',
      configEntries: 0,
      configPath: null,
    });
    expect(json.families).toBeGreaterThan(100);
  });
});
