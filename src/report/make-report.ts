import type { ReportFilter, ReportRow, ReportView } from './aggregate-report.js';
import { aggregateReport } from './aggregate-report.js';
import { type CollectLogsOptions, collectLogs } from './build-report.js';
import { dayOf } from './day-of.js';
import type { ReceiptsOf } from './proxy-receipts-of.js';
import type { ReportBlock } from './report-blocks.js';
import { reportFootnotes } from './report-footnotes.js';

export interface ReportRequest extends ReportFilter {
  /** @default 'session' */
  view?: ReportView;
  /** The time zone days are counted in. @default the machine's */
  timeZone?: string;
  /** The time the blocks view's active block is judged at (epoch ms). @default now */
  now?: number;
}

/** What `barometer report --json` prints and `GET /api/v1/report` answers. */
export interface ReportResult {
  view: ReportView;
  since: string | null;
  until: string | null;
  timeZone: string;
  rows: ReportRow[];
  total: ReportRow;
  /** The blocks view's 5-hour blocks, gaps included (`--view blocks`). */
  blocks?: ReportBlock[];
  footnotes: string[];
  files: { found: number; read: number; cached: number; skipped: { path: string; problem: string }[] };
}

/**
 * `barometer report`: every session log found (or given), each call priced and judged, added up by day, session,
 * project or model, with the total, barometer's what-if beside each row, and the footnotes that explain where
 * ccusage would show other figures.
 */
export async function makeReport(
  request: ReportRequest,
  options: CollectLogsOptions & {
    /** The receipts of the sessions an acting proxy forwarded (`receiptsInDatabase`); none when absent. */
    receiptsOf?: ReceiptsOf;
  },
): Promise<ReportResult> {
  const timeZone = request.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  const collected = await collectLogs(options);
  const view = request.view ?? 'session';
  const filter: ReportFilter = {
    ...(request.since === undefined ? {} : { since: request.since }),
    ...(request.until === undefined ? {} : { until: request.until }),
    ...(request.project === undefined ? {} : { project: request.project }),
    ...(request.agent === undefined ? {} : { agent: request.agent }),
  };
  const receipts = options.receiptsOf
    ? await options.receiptsOf(collected.logs.map((log) => log.session))
    : undefined;
  const report = aggregateReport(
    collected.logs,
    view,
    filter,
    dayOf(timeZone),
    request.now ?? Date.now(),
    receipts,
  );
  return {
    view,
    since: request.since ?? null,
    until: request.until ?? null,
    timeZone,
    rows: report.rows,
    total: report.total,
    ...(report.blocks ? { blocks: report.blocks } : {}),
    footnotes: reportFootnotes(report.total),
    files: {
      found: collected.read + collected.cached,
      read: collected.read,
      cached: collected.cached,
      skipped: collected.skipped,
    },
  };
}
