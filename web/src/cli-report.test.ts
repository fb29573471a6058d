import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatPressureReport } from '../../src/cli/format-pressure.js';
import type { PressureReport } from '../../src/contract/index.js';
import { evaluatePressure, type PressureInput } from '../../src/pressure/index.js';
import { cliReportLines, type ReportSegment } from './cli-report.js';

function reportOf(input: PressureInput): PressureReport {
  return evaluatePressure(input, { now: Date.UTC(2026, 1, 17, 15, 30, 45) });
}

// Control characters cannot appear in the report's figures or words, so they delimit painted runs safely.
const START = '\u0001';
const MIDDLE = '\u0002';
const END = '\u0003';

/** What the CLI's own formatter prints, split into segments where it paints: the oracle the page must match. */
function cliSegments(report: PressureReport): ReportSegment[][] {
  const text = formatPressureReport(report, (color, value) => `${START}${color}${MIDDLE}${value}${END}`);
  return text
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => {
      const segments: ReportSegment[] = [];
      const pattern = new RegExp(`${START}([a-z]+)${MIDDLE}([^${END}]*)${END}`, 'g');
      let last = 0;
      for (const match of line.matchAll(pattern)) {
        if (match.index > last) segments.push({ text: line.slice(last, match.index) });
        segments.push({ text: match[2]!, color: match[1] as ReportSegment['color'] });
        last = match.index + match[0].length;
      }
      if (last < line.length || segments.length === 0) segments.push({ text: line.slice(last) });
      return segments;
    });
}

const inputs = fc.record(
  {
    memoryUsedPercent: fc.double({ min: 0, max: 100, noNaN: true }),
    tokenBurnRatePerMin: fc.double({ min: 0, max: 200, noNaN: true }),
    contextDriftPercent: fc.double({ min: 0, max: 100, noNaN: true }),
    sessionAgeSeconds: fc.integer({ min: 0, max: 100_000 }),
    tokenBudgetTotal: fc.constant(100_000),
    tokenBudgetUsed: fc.integer({ min: 0, max: 100_000 }),
    systemMode: fc.constantFrom('demo', 'production', 'diagnostic' as const),
    agentProfile: fc.constantFrom('minimal', 'balanced', 'aggressive' as const),
  },
  { requiredKeys: [] },
);

describe('cliReportLines (the dashboard’s own layout of the CLI report)', () => {
  const sample = reportOf({
    memoryUsedPercent: 72,
    tokenBurnRatePerMin: 55,
    contextDriftPercent: 68,
    sessionAgeSeconds: 2700,
    tokenBudgetTotal: 100000,
    tokenBudgetUsed: 62000,
    systemMode: 'production',
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

  it('holds exactly the text and colours `barometer pressure` prints, over the whole input space', () => {
    expect(cliReportLines(sample)).toEqual(cliSegments(sample));
    // Every level, no budget, a burn of 0 (no minutes): the branches of the layout.
    for (const input of [
      {},
      { tokenBurnRatePerMin: 0 },
      { memoryUsedPercent: 99 },
      { memoryUsedPercent: 0 },
    ]) {
      const report = reportOf(input);
      expect(cliReportLines(report)).toEqual(cliSegments(report));
    }
    fc.assert(
      fc.property(inputs, (input) => {
        const report = reportOf(input);
        expect(cliReportLines(report)).toEqual(cliSegments(report));
      }),
      { numRuns: 300 },
    );
  });
});
