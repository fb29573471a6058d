import { describe, expect, it } from 'vitest';
import { formatPressureReport } from '../../src/cli/format-pressure.js';
import { evaluatePressure, type PressureInput } from '../../src/pressure/index.js';
import { cliReportLines } from './cli-report.js';
import type { PressureReport } from './types.js';

const plain = (_color: string, text: string) => text;

function reportOf(input: PressureInput): PressureReport {
  return evaluatePressure(input, { now: Date.UTC(2026, 1, 17, 15, 30, 45) });
}

describe('cliReportLines', () => {
  const sample = reportOf({
    memoryUsedPercent: 72,
    tokenBurnRatePerMin: 55,
    contextDriftPercent: 68,
    sessionAgeSeconds: 2700,
    tokenBudgetTotal: 100000,
    tokenBudgetUsed: 62000,
    systemMode: 'production',
  });

  it('holds the same text as `barometer pressure` prints without colour', () => {
    const text = cliReportLines(sample)
      .map((line) => line.map((segment) => segment.text).join(''))
      .join('\n');
    expect(`${text}\n`).toBe(formatPressureReport(sample, plain));
  });

  it('colours the level and the action as the terminal does', () => {
    const [headline] = cliReportLines(sample);
    // The seed sample is HIGH (viability 36), which the CLI paints yellow.
    expect(headline).toEqual([
      { text: 'Pressure Level: ' },
      { text: 'HIGH', color: 'yellow' },
      { text: '  (viability 36/100)' },
    ]);
    const last = cliReportLines(sample).at(-1);
    expect(last).toEqual([{ text: 'Suggested Action: ' }, { text: 'compress', color: 'bold' }]);
  });
});
