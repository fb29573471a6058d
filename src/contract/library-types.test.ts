import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type { CappedHotState } from '../discipline/cap-hot-state.js';
import type { BudgetDecision } from '../discipline/enforce-budget.js';
import type { BudgetCheck } from '../discipline/validate-budgets.js';
import type { DiffOnlyResult } from '../discipline/validate-diff-only.js';
import type { PressureReport as LibraryPressureReport } from '../pressure/types.js';
import type { ReportResult as LibraryReportResult } from '../report/make-report.js';
import type { DeliveryAttempt, Delivery as StoredDelivery } from '../server/webhooks/webhook-service.js';
import type { ReplayResult as LibraryReplayResult } from '../session/replay.js';
import type { CompactAnswer as LibraryCompactAnswer } from '../session/session-monitor.js';
import type { WhatIfCorpusAggregate, WhatIfCorpusRow } from '../session/what-if-corpus.js';
import type { WhatIfReplayResult } from '../session/what-if-replay.js';
import type { DecodedArchive, ArchiveRecord as LibraryArchiveRecord } from '../store/archive.js';
import type {
  ArchiveRecordSchema,
  BudgetCheckSchema,
  BudgetDecisionSchema,
  CappedHotStateSchema,
  CompactAnswerSchema,
  DeliveryAttemptSchema,
  DeliverySchema,
  DiffOnlyResultSchema,
  PressureReportSchema,
  ReplayResultSchema,
  ReportResultSchema,
  SkippedRegionSchema,
  WhatIfCorpusSchema,
} from './index.js';

/**
 * Whether two types agree: each assignable to the other, deeply (a field missing, added, made nullable or optional
 * on one side only breaks it). Not type identity: an intersection and the flattened object it equals agree.
 */
type Agree<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/**
 * The library returns some answers under TypeScript types of its own (interfaces with their JSDoc, beside the code
 * that builds them); the contract describes the same answers with zod schemas. These checks fail the typecheck when
 * the two part: a field added, removed, made nullable or optional on one side only (the drift the dashboard's hand
 * copy of these shapes had). `npm run typecheck` runs them; the test runner sees them pass.
 */
describe('the library’s answer types agree with the contract’s schemas', () => {
  it('the check itself tells a drifted field (nullable, optional, missing) from an intersection spelled flat', () => {
    expectTypeOf<Agree<{ a: number }, { a: number | null }>>().toEqualTypeOf<false>();
    expectTypeOf<Agree<{ a: number }, { a?: number }>>().toEqualTypeOf<false>();
    expectTypeOf<Agree<{ a: number }, { a: number; b: string }>>().toEqualTypeOf<false>();
    expectTypeOf<Agree<{ a: number } & { b: string }, { a: number; b: string }>>().toEqualTypeOf<true>();
  });

  it('replay: the timeline, and the what-if beside it', () => {
    expectTypeOf<
      Agree<LibraryReplayResult, Omit<z.infer<typeof ReplayResultSchema>, 'whatIf'>>
    >().toEqualTypeOf<true>();
    expectTypeOf<
      Agree<WhatIfReplayResult['whatIf'], NonNullable<z.infer<typeof ReplayResultSchema>['whatIf']>>
    >().toEqualTypeOf<true>();
    expectTypeOf<
      Agree<
        { sessions: WhatIfCorpusRow[]; aggregate: WhatIfCorpusAggregate },
        z.infer<typeof WhatIfCorpusSchema>
      >
    >().toEqualTypeOf<true>();
  });

  it('report: the rows, the total and the footnotes', () => {
    expectTypeOf<Agree<LibraryReportResult, z.infer<typeof ReportResultSchema>>>().toEqualTypeOf<true>();
  });

  it('context discipline: the capped state, the budget check, the budgeter’s decision, the diff check', () => {
    expectTypeOf<Agree<CappedHotState, z.infer<typeof CappedHotStateSchema>>>().toEqualTypeOf<true>();
    expectTypeOf<Agree<BudgetCheck, z.infer<typeof BudgetCheckSchema>>>().toEqualTypeOf<true>();
    expectTypeOf<Agree<BudgetDecision, z.infer<typeof BudgetDecisionSchema>>>().toEqualTypeOf<true>();
    expectTypeOf<Agree<DiffOnlyResult, z.infer<typeof DiffOnlyResultSchema>>>().toEqualTypeOf<true>();
  });

  it('compaction: what the monitor answers, less `ok` and the policy (which no surface sends)', () => {
    expectTypeOf<
      Agree<
        Omit<Extract<LibraryCompactAnswer, { ok: true }>, 'ok' | 'policy'>,
        z.infer<typeof CompactAnswerSchema>
      >
    >().toEqualTypeOf<true>();
  });

  it('archives: a record, and the regions skipped', () => {
    expectTypeOf<Agree<LibraryArchiveRecord, z.infer<typeof ArchiveRecordSchema>>>().toEqualTypeOf<true>();
    expectTypeOf<
      Agree<DecodedArchive['skipped'][number], z.infer<typeof SkippedRegionSchema>>
    >().toEqualTypeOf<true>();
  });

  it('the regulator’s report', () => {
    expectTypeOf<Agree<LibraryPressureReport, z.infer<typeof PressureReportSchema>>>().toEqualTypeOf<true>();
  });

  it('webhook deliveries: stored with epoch ms, answered with ISO 8601, the same otherwise', () => {
    expectTypeOf<Agree<DeliveryAttempt, z.infer<typeof DeliveryAttemptSchema>>>().toEqualTypeOf<true>();
    expectTypeOf<
      Agree<
        Omit<StoredDelivery, 'nextAttemptAt' | 'attempts'>,
        Omit<z.infer<typeof DeliverySchema>, 'nextAttemptAt' | 'attempts'>
      >
    >().toEqualTypeOf<true>();
    expectTypeOf<Agree<StoredDelivery['nextAttemptAt'], number | null>>().toEqualTypeOf<true>();
    expectTypeOf<
      Agree<z.infer<typeof DeliverySchema>['nextAttemptAt'], string | null>
    >().toEqualTypeOf<true>();
  });
});
