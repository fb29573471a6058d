import { describe, expect, it } from 'vitest';
import { buildWhatIfReport, type WhatIfReportParts } from './build-what-if-report.js';
import type { Calibration } from './calibrate.js';
import { WhatIfLedger } from './what-if-ledger.js';

const calibration: Calibration = {
  baseTokens: 10_000,
  toolScale: 1,
  textScale: 1,
  reasoningScale: 1,
  itemTokens: 0,
  segmentOffsets: [],
  model: 'scales',
  calls: 0,
  meanAbsErrorPercent: 0,
  maxAbsErrorPercent: 0,
  maxErrorCallIndex: null,
  segments: [],
};

function parts(overrides: Partial<WhatIfReportParts> = {}): WhatIfReportParts {
  const ledger = new WhatIfLedger({ priceOf: () => null, source: 'claude-code', compactionPoint: null });
  ledger.real.promptTokens = 1_000;
  ledger.policy.promptTokens = 686;
  return {
    ledger,
    recordedCompactions: 2,
    manualCompactions: 1,
    evictions: [],
    recaps: 0,
    rereads: { trims: 1, count: 2, quoted: 1, tokens: 40 },
    archivedItems: 3,
    archivedBytes: 900,
    verified: 3,
    failures: [],
    compactionPoint: 150_000,
    calibration,
    ...overrides,
  };
}

describe('buildWhatIfReport', () => {
  it('gives the saving to one decimal, the compactions of each side, and the policy’s counts', () => {
    const report = buildWhatIfReport(parts());
    // (1,000 − 686) ÷ 1,000 = 31.4%.
    expect(report.savedPercent).toBe(31.4);
    expect(report.real.compactions).toBe(2);
    expect(report.policy).toMatchObject({
      promptTokens: 686,
      compactions: 1,
      evictions: 0,
      trimmedAtArrival: 1,
      rereads: 2,
      quotedRereads: 1,
      rereadTokens: 40,
      archivedItems: 3,
      archivedBytes: 900,
    });
    expect(report.archiveVerified).toBe(true);
  });

  it('leaves the cost saving unknown when a side’s cost is, and gives it when both are known', () => {
    expect(buildWhatIfReport(parts()).costSavedPercent).toBeNull();
    const known = parts();
    known.ledger.real.costUsd = 2;
    known.ledger.policy.costUsd = 2.5;
    // A what-if that costs more: a negative saving, −25%.
    expect(buildWhatIfReport(known).costSavedPercent).toBe(-25);
  });

  it('saves 0% of a session of no prompt tokens', () => {
    const empty = parts();
    empty.ledger.real.promptTokens = 0;
    empty.ledger.policy.promptTokens = 0;
    expect(buildWhatIfReport(empty).savedPercent).toBe(0);
  });

  it('verifies the archive only when every record read back matched, and shows the first ten failures', () => {
    expect(buildWhatIfReport(parts({ verified: 2 })).archiveVerified).toBe(false);
    const failures = Array.from({ length: 12 }, (_, index) => `record ${index} differs`);
    const report = buildWhatIfReport(parts({ verified: 3, failures }));
    expect(report.archiveVerified).toBe(false);
    expect(report.archiveFailures).toEqual(failures.slice(0, 10));
  });
});
