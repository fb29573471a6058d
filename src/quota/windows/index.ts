export { windowsFromCodex } from './codex-rate-limits.js';
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
export {
  attributeWindows,
  MAX_WINDOW_SAMPLES,
  observeWindow,
  samePeriod,
  trackWindows,
  type WindowTrack,
  WindowTrackSchema,
} from './window-track.js';
