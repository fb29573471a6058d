import type { Calibration } from './calibrate.js';
import type { WhatIfLedger } from './what-if-ledger.js';
import type { WhatIfEviction, WhatIfReport } from './what-if-report.js';

/** What the report adds up: a finished what-if run's parts. */
export interface WhatIfReportParts {
  ledger: WhatIfLedger;
  /** The recorded session's compactions (its segments after the first). */
  recordedCompactions: number;
  /** The compactions the user asked for, which the what-if makes too. */
  manualCompactions: number;
  evictions: WhatIfEviction[];
  recaps: number;
  rereads: { trims: number; count: number; quoted: number; tokens: number };
  archivedItems: number;
  archivedBytes: number;
  /** The archive read back (`verifyArchive`): the records that matched the log, and what did not. */
  verified: number;
  failures: string[];
  compactionPoint: number | null;
  calibration: Calibration;
}

/** A saving as a percentage of what it is of, to one decimal; 0 of nothing. */
const percent = (saved: number, of: number) => (of > 0 ? Math.round((saved / of) * 1000) / 10 : 0);

/**
 * The what-if's report: both sides' totals (each with its compactions: the recorded ones, and on barometer's side
 * the user's own, its recaps counted apart), the savings in tokens and in cost (null when either cost is unknown),
 * and the archive verified only when every record read back matched. The ledger's totals are completed in place.
 */
export function buildWhatIfReport(parts: WhatIfReportParts): WhatIfReport {
  const { ledger } = parts;
  const real = ledger.real;
  const policy = ledger.policy;
  real.compactions = parts.recordedCompactions;
  policy.compactions = parts.manualCompactions;
  return {
    real,
    policy: {
      ...policy,
      evictions: parts.evictions.length,
      recaps: parts.recaps,
      trimmedAtArrival: parts.rereads.trims,
      archivedItems: parts.archivedItems,
      archivedBytes: parts.archivedBytes,
      rereads: parts.rereads.count,
      quotedRereads: parts.rereads.quoted,
      rereadTokens: parts.rereads.tokens,
      callsAboveCompactionPoint: ledger.aboveCompactionPoint,
    },
    savedPercent: percent(real.promptTokens - policy.promptTokens, real.promptTokens),
    costSavedPercent:
      real.costUsd !== null && policy.costUsd !== null
        ? percent(real.costUsd - policy.costUsd, real.costUsd)
        : null,
    archiveVerified: parts.failures.length === 0 && parts.verified === parts.archivedItems,
    archiveFailures: parts.failures.slice(0, 10),
    compactionPoint: parts.compactionPoint,
    calibration: parts.calibration,
    evictions: parts.evictions,
    calls: ledger.calls,
    unpricedCalls: ledger.unpricedCalls,
  };
}
