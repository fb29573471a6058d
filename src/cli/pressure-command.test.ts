import { describe, expect, it } from 'vitest';
import { memoryIo } from '../test-helpers/memory-io.js';
import { run } from './program.js';

const NOW = Date.UTC(2026, 1, 17, 15, 30, 45);
const SAMPLE_FLAGS = [
  '--memory-used-percent',
  '72',
  '--token-burn-rate-per-min',
  '55',
  '--context-drift-percent',
  '68',
  '--session-age-seconds',
  '2700',
  '--token-budget-total',
  '100000',
  '--token-budget-used',
  '62000',
  '--context-window-max-bytes',
  '200000',
  '--context-window-used-bytes',
  '144000',
  '--system-mode',
  'production',
  '--agent-profile',
  'balanced',
];

async function cli(args: string[], options: Parameters<typeof memoryIo>[0] = {}) {
  const terminal = memoryIo(options);
  const code = await run(args, { io: terminal.io, now: () => NOW });
  return { code, stdout: terminal.stdout, stderr: terminal.stderr };
}

describe('barometer pressure', () => {
  it('prints exactly the HTTP 200 body with --json for the seed sample', async () => {
    const { code, stdout } = await cli(['pressure', ...SAMPLE_FLAGS, '--json']);
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect(report).toEqual({
      timestamp: '2026-02-17T15:30:45Z',
      pressure: {
        level: 'HIGH',
        sessionViability: 36,
        memoryPressure: 72,
        tokenBurnRate: 55,
        contextDrift: 68,
        estimatedTokensRemaining: 38000,
        estimatedMinutesRemaining: 690.9,
        burnRateAcceleration: 1.57,
        recommendations: {
          shouldCompress: true,
          shouldOptimize: true,
          shouldTerminate: false,
          priority: 'high',
        },
        thresholdsExceeded: ['memory_warning', 'elevated_drift'],
        suggestedAction: 'compress',
      },
      metadata: { systemMode: 'production', agentProfile: 'balanced' },
    });
  });

  it('prints the level, the figures, the thresholds and the suggested action for people', async () => {
    const { stdout } = await cli(['pressure', ...SAMPLE_FLAGS]);
    expect(stdout).toContain('Pressure Level: HIGH');
    expect(stdout).toContain('viability 36/100');
    expect(stdout).toContain('memory_warning, elevated_drift');
    expect(stdout).toMatch(/^Suggested Action: compress$/m);
    expect(stdout).not.toContain('\u001b[');
  });

  it('colours the level (HIGH yellow, CRITICAL red, LOW green, MODERATE cyan) on a terminal', async () => {
    const high = await cli(['pressure', ...SAMPLE_FLAGS], { tty: true });
    expect(high.stdout).toContain('\u001b[33mHIGH\u001b[0m');
    const critical = await cli(
      ['pressure', '--memory-used-percent', '99', '--token-burn-rate-per-min', '150'],
      { tty: true },
    );
    expect(critical.stdout).toContain('\u001b[31mCRITICAL\u001b[0m');
    const low = await cli(['pressure', '--memory-used-percent', '10', '--token-burn-rate-per-min', '10'], {
      tty: true,
    });
    expect(low.stdout).toContain('\u001b[32mLOW\u001b[0m');
    const moderate = await cli(['pressure'], { tty: true });
    expect(moderate.stdout).toContain('\u001b[36mMODERATE\u001b[0m');
  });

  it('respects NO_COLOR', async () => {
    const { stdout } = await cli(['pressure', ...SAMPLE_FLAGS], { tty: true, env: { NO_COLOR: '1' } });
    expect(stdout).toContain('Pressure Level: HIGH');
    expect(stdout).not.toContain('\u001b[');
  });

  it('exits 2 naming the field and the flag for a bad value', async () => {
    const { code, stderr, stdout } = await cli(['pressure', '--memory-used-percent', '120']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain('memoryUsedPercent (--memory-used-percent): must be from 0 to 100');
    expect(stderr).toContain('120');
  });

  it.each([
    [['--token-burn-rate-per-min', 'fast'], 'tokenBurnRatePerMin'],
    [['--system-mode', 'staging'], 'systemMode'],
    [['--agent-profile', 'greedy'], 'agentProfile'],
    [['--token-budget-total', '10000', '--token-budget-used', '20000'], 'tokenBudgetUsed'],
    [['--context-window-max-bytes', '500'], 'contextWindowMaxBytes'],
  ])('exits 2 for %j naming %s', async (flags, field) => {
    const { code, stderr } = await cli(['pressure', ...flags]);
    expect(code).toBe(2);
    expect(stderr).toContain(field);
  });

  it('exits 2 for an unknown flag', async () => {
    const { code, stderr } = await cli(['pressure', '--memory', '50']);
    expect(code).toBe(2);
    expect(stderr).toContain("unknown option '--memory'");
  });

  it('documents every flag in --help', async () => {
    const { code, stdout } = await cli(['pressure', '--help']);
    expect(code).toBe(0);
    for (const flag of [
      '--memory-used-percent',
      '--token-burn-rate-per-min',
      '--context-drift-percent',
      '--session-age-seconds',
      '--token-budget-total',
      '--token-budget-used',
      '--context-window-max-bytes',
      '--context-window-used-bytes',
      '--system-mode',
      '--agent-profile',
      '--json',
      '--interactive',
    ]) {
      expect(stdout).toContain(flag);
    }
    const top = await cli(['--help']);
    expect(top.stdout).toContain('pressure');
    expect(top.stdout).toContain('serve');
  });
});

describe('barometer pressure --interactive', () => {
  it('asks each input with its default in brackets and keeps the default on Enter', async () => {
    const answers = ['72', '55', '68', '', '', '62000', '', '', '', ''].join('\n');
    const { code, stdout } = await cli(['pressure', '--interactive'], { stdin: `${answers}\n` });
    expect(code).toBe(0);
    expect(stdout).toContain('memoryUsedPercent');
    expect(stdout).toContain('[45]');
    expect(stdout).toContain('[production]');
    expect(stdout).toMatch(/^Suggested Action: compress$/m);
    expect(stdout).toContain('viability 36/100');
  });

  it('asks again with the reason after a bad answer', async () => {
    const answers = [
      '150',
      'abc',
      '72',
      '55',
      '68',
      '',
      '',
      '62000',
      '',
      '',
      'staging',
      'production',
      '',
    ].join('\n');
    const { code, stdout } = await cli(['pressure', '-i'], { stdin: `${answers}\n` });
    expect(code).toBe(0);
    expect(stdout.match(/✗ must be/g)).toHaveLength(3);
    expect(stdout).toContain('must be one of demo, production, diagnostic');
    expect(stdout).toContain('viability 36/100');
  });

  it('re-asks the used budget when it exceeds the total given before', async () => {
    const answers = ['', '', '', '', '5000', '6000', '4000', '', '', '', ''].join('\n');
    const { code, stdout } = await cli(['pressure', '-i', '--json'], { stdin: `${answers}\n` });
    expect(code).toBe(0);
    expect(stdout).toContain('must be ≤ tokenBudgetTotal (5000)');
    expect(JSON.parse(stdout.slice(stdout.indexOf('{'))).pressure.estimatedTokensRemaining).toBe(1000);
  });
});
