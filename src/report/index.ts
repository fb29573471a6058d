export {
  aggregateReport,
  REPORT_VIEWS,
  type Report,
  type ReportFilter,
  type ReportRow,
  type ReportView,
} from './aggregate-report.js';
export { type CollectedLogs, type CollectLogsOptions, collectLogs } from './build-report.js';
export { dayOf } from './day-of.js';
export { defaultLogRoots, discoverLogs, type FoundLog, type LogRoot } from './discover-logs.js';
export type { LogReport, ReportCall, ReportCompaction, ReportSlot, ReportWhatIf } from './log-report.js';
export { type ReceiptsOf, receiptsInDatabase } from './proxy-receipts-of.js';
export { type LogPlace, ReportPricing, readLogReport } from './read-log-report.js';
export { type CachedLog, REPORT_CACHE_FORMAT, ReportCache } from './report-cache.js';
export { reportSlots } from './report-slots.js';
