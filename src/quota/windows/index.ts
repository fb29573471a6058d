export { windowsFromCodex } from './codex-rate-limits.js';
export {
  measureWindowLevers,
  type WindowLeverCall,
  type WindowLeverConversation,
  type WindowLeverMeasure,
  type WindowLeverTally,
} from './measure-window-levers.js';
export {
  type StatuslineRateLimits,
  StatuslineRateLimitsSchema,
  windowsFromStatusline,
} from './statusline-rate-limits.js';
export { readUnifiedHeaders, type UnifiedHeaders } from './unified-headers.js';
export {
  KNOWN_WINDOW_MINUTES,
  type UsageWindow,
  UsageWindowSchema,
  WINDOW_SOURCES,
  WINDOW_STATUSES,
  type WindowSource,
  type WindowStatus,
  windowLabel,
  windowMinutesOf,
} from './usage-window.js';
export { LONGEST_WAITED_WINDOW_MINUTES, type WindowAdvice, windowAdvice } from './window-advice.js';
export {
  BURN_LOOKBACK_SHARE,
  forecastWindow,
  type WindowForecast,
  type WindowThreshold,
} from './window-forecast.js';
export { WINDOW_LEVERS, type WindowLever, WindowPolicySchema } from './window-lever-names.js';
export {
  decideWindowLevers,
  WINDOW_LOWERED_BUDGET_TOKENS,
  type WindowLeverDecision,
  type WindowLeverInput,
  type WindowWaitNow,
  windowBinds,
} from './window-levers.js';
export {
  attributeWindows,
  MAX_WINDOW_SAMPLES,
  observeWindow,
  samePeriod,
  trackWindows,
  type WindowTrack,
  WindowTrackSchema,
} from './window-track.js';
