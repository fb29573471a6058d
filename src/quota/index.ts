export {
  DEFAULT_MAX_WAIT_SECONDS,
  type QuotaAdvice,
  type QuotaAdviceInput,
  quotaAdvice,
} from './quota-advice.js';
export {
  QUOTA_DIMENSIONS,
  type QuotaDimension,
  type QuotaDimensionInput,
  type QuotaStanding,
  quotaStandings,
  type ReportedDimension,
} from './quota-standings.js';
export {
  QUOTA_LABELS,
  type QuotaSurvival,
  quotaSurvival,
  quotaWaitSeconds,
  type SurvivalCheck,
  survivalText,
  tightestTokenQuota,
} from './quota-survival.js';
export {
  addTokens,
  emptyTokenWindow,
  type TokenEvent,
  TokenEventSchema,
  type TokenWindow,
  TokenWindowSchema,
  type TokenWindowSpec,
  TPM_WINDOW_MS,
  tokensInWindow,
  windowEntries,
  windowExpiryAtMost,
  windowTokens,
} from './token-window.js';
