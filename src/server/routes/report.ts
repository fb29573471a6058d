import { join } from 'node:path';
import type { z } from 'zod';
import { ReportQuerySchema, ReportResultSchema } from '../../contract/report.js';
import type { ApiRoute } from '../../http/route-table.js';
import type { BarometerConfig } from '../../models/barometer-config.js';
import type { LogRoot } from '../../report/discover-logs.js';
import { makeReport } from '../../report/make-report.js';
import type { ReceiptsOf } from '../../report/proxy-receipts-of.js';
import { DATABASE_FILE } from '../../store/state-database.js';

const EXAMPLE = 'GET /api/v1/report?view=daily&since=2026-01-01&agent=claude-code';

export interface ReportRouteOptions {
  /** The folders the report reads: the agents' default places for the user the service runs as. */
  roots: readonly LogRoot[];
  /** The data directory; the per-file cache is kept in its database, `<dataDir>/barometer.db`. */
  dataDir: string;
  config?: BarometerConfig;
  /** The receipts of the sessions the service's proxy forwarded (from its monitor); none when absent. */
  receiptsOf?: ReceiptsOf;
}

/** `GET /api/v1/report`: the same report as `barometer report --json`, over the logs of the service's machine. */
export function reportRoutes(options: ReportRouteOptions): ApiRoute[] {
  // One report at a time: each reads and rewrites the same cache, and a second would redo the first's work.
  let running: Promise<unknown> = Promise.resolve();
  return [
    {
      method: 'GET',
      url: '/api/v1/report',
      scope: 'json',
      summary:
        "What the agents on this machine cost, by day, session, project or model, with barometer's what-if beside each row (the logs in the agents' default places)",
      query: ReportQuerySchema,
      example: EXAMPLE,
      responses: {
        '200': {
          description: '{ view, since, until, timeZone, rows, total, footnotes, files }',
          schema: ReportResultSchema,
        },
      },
      handler: async (request) => {
        const { whatIf, ...filter } = request.query as z.output<typeof ReportQuerySchema>;
        const run = running.then(() =>
          makeReport(filter, {
            roots: options.roots,
            cacheFile: join(options.dataDir, DATABASE_FILE),
            archiveDir: join(options.dataDir, 'archives'),
            whatIf: whatIf !== 'false',
            ...(options.config ? { config: options.config } : {}),
            ...(options.receiptsOf ? { receiptsOf: options.receiptsOf } : {}),
          }),
        );
        running = run.catch(() => undefined);
        return run;
      },
    },
  ];
}
