import type { ReportResult, ReportRowAnswer } from '../contract/report.js';

/** A report's columns: header, and the cell of a row as text (exact, for CSV) and as shown (the table). */
interface Column {
  header: string;
  exact: (row: ReportRowAnswer) => string;
  shown?: (row: ReportRowAnswer) => string;
  left?: true;
}

/** 1234567 → "1.23M": tokens in a table a person reads; CSV and JSON keep every digit. */
export function compactNumber(value: number): string {
  const size = Math.abs(value);
  if (size >= 1e9) return `${(value / 1e9).toFixed(2)}B`;
  if (size >= 1e6) return `${(value / 1e6).toFixed(2)}M`;
  if (size >= 1e4) return `${(value / 1e3).toFixed(1)}K`;
  return String(value);
}

const dollars = (value: number | null) =>
  value === null ? '—' : `${value <= -0.005 ? '−' : ''}$${Math.abs(value).toFixed(2)}`;
const tokens = (value: number | null) => (value === null ? '—' : compactNumber(value));
const percent = (value: number) => `${value.toFixed(1)}%`;

/** A session's agent or project; the total row's count of them when there are several. */
const listed = (names: readonly string[], plural: string) =>
  names.length > 1 ? `${names.length} ${plural}` : (names[0] ?? '');

const KEY_HEADERS: Readonly<Record<ReportResult['view'], string>> = {
  daily: 'day',
  session: 'session',
  project: 'project',
  model: 'model',
  blocks: 'block start',
};

type Block = NonNullable<ReportResult['blocks']>[number];

/** `10:00–15:00Z` of a block's start and end, or its day and hours when the block is another day's. */
function blockHours(block: Block): string {
  return `${block.start.slice(0, 10)} ${block.start.slice(11, 16)}–${block.end.slice(11, 16)}Z`;
}

/** A block's windows as the logs record them: `5h 27% (resets 16:40Z) · 7d 8%`, the share red-free text. */
export function blockWindowsText(block: Block): string {
  return block.windows
    .map((window) => {
      const reset = window.resetsAt === null ? '' : ` resets ${window.resetsAt.slice(11, 16)}Z`;
      const binds =
        window.bindsBeforeReset && window.runsOutAt !== null
          ? ` runs out ${window.runsOutAt.slice(11, 16)}Z`
          : '';
      return `${window.label} ${Math.round(window.usedPercent)}%${binds}${window.windowMinutes !== null && window.windowMinutes <= 300 ? reset : ''}`;
    })
    .join(' · ');
}

/** The blocks view's own columns, read from the block a row is the sum of. */
function blockColumns(blocks: ReadonlyMap<string, Block>): Column[] {
  const of = (row: ReportRowAnswer) => blocks.get(row.key);
  return [
    {
      header: 'status',
      exact: (row) => {
        const block = of(row);
        return block === undefined ? '' : block.active ? 'active' : 'ended';
      },
      left: true,
    },
    {
      header: 'tokens/min',
      exact: (row) => (of(row)?.burn ? String(Math.round(of(row)?.burn?.tokensPerMinute ?? 0)) : ''),
      shown: (row) => (of(row)?.burn ? compactNumber(Math.round(of(row)?.burn?.tokensPerMinute ?? 0)) : '—'),
    },
    {
      header: '$/h',
      exact: (row) => (of(row)?.burn ? (of(row)?.burn?.costPerHour ?? 0).toFixed(6) : ''),
      shown: (row) => (of(row)?.burn ? dollars(of(row)?.burn?.costPerHour ?? 0) : '—'),
    },
    {
      header: 'projected',
      exact: (row) => {
        const projection = of(row)?.projection;
        return projection ? `${projection.totalTokens} ${projection.totalCostUsd.toFixed(2)}` : '';
      },
      shown: (row) => {
        const projection = of(row)?.projection;
        return projection
          ? `${compactNumber(projection.totalTokens)} ${dollars(projection.totalCostUsd)} in ${projection.remainingMinutes} min`
          : '—';
      },
    },
    {
      header: 'windows',
      exact: (row) => {
        const block = of(row);
        return block === undefined ? '' : blockWindowsText(block);
      },
      left: true,
    },
  ];
}

function columns(view: ReportResult['view'], result?: ReportResult): Column[] {
  const blocks = new Map(
    (result?.blocks ?? []).filter((block) => !block.gap).map((block) => [block.start, block]),
  );
  return [
    {
      header: KEY_HEADERS[view],
      exact: (row) => row.key,
      ...(view === 'blocks'
        ? {
            shown: (row: ReportRowAnswer) =>
              blocks.has(row.key) ? blockHours(blocks.get(row.key) as Block) : row.key,
          }
        : {}),
      left: true,
    },
    ...(view === 'blocks' ? blockColumns(blocks) : []),
    ...(view === 'session'
      ? [
          {
            header: 'agent',
            exact: (row: ReportRowAnswer) => listed(row.agents, 'agents'),
            left: true as const,
          },
          {
            header: 'project',
            exact: (row: ReportRowAnswer) => listed(row.projects, 'projects'),
            left: true as const,
          },
        ]
      : []),
    { header: 'calls', exact: (row) => String(row.calls) },
    { header: 'input', exact: (row) => String(row.inputTokens), shown: (row) => tokens(row.inputTokens) },
    { header: 'output', exact: (row) => String(row.outputTokens), shown: (row) => tokens(row.outputTokens) },
    {
      header: 'cache read',
      exact: (row) => String(row.cacheReadTokens),
      shown: (row) => tokens(row.cacheReadTokens),
    },
    {
      header: 'cache write',
      exact: (row) => String(row.cacheWriteTokens),
      shown: (row) => tokens(row.cacheWriteTokens),
    },
    {
      header: 'cost',
      exact: (row) => row.costUsd.toFixed(6),
      // `~`: part of the cost is at a family estimate's price; `*`: some calls could not be priced.
      shown: (row) =>
        `${row.estimatedCostUsd > 0 ? '~' : ''}${dollars(row.costUsd)}${row.unpricedCalls > 0 ? '*' : ''}`,
    },
    {
      header: 'compactions',
      exact: (row) => `${row.autoCompactions}/${row.manualCompactions}`,
    },
    {
      header: 'peak prompt',
      exact: (row) => (row.peakPromptTokens === null ? '' : String(row.peakPromptTokens)),
      shown: (row) => tokens(row.peakPromptTokens),
    },
    {
      header: 'caution',
      exact: (row) => String(row.cautionPercent),
      shown: (row) => percent(row.cautionPercent),
    },
    {
      header: 'critical',
      exact: (row) => String(row.criticalPercent),
      shown: (row) => percent(row.criticalPercent),
    },
    {
      header: 'what-if saved tokens',
      exact: (row) => (row.whatIf.sessions === 0 ? '' : String(row.whatIf.savedPromptTokens)),
      shown: (row) => (row.whatIf.sessions === 0 ? '—' : tokens(row.whatIf.savedPromptTokens)),
    },
    {
      header: 'what-if saved $',
      exact: (row) =>
        row.whatIf.sessions === 0 || row.whatIf.savedCostUsd === null
          ? ''
          : row.whatIf.savedCostUsd.toFixed(6),
      shown: (row) => (row.whatIf.sessions === 0 ? '—' : dollars(row.whatIf.savedCostUsd)),
    },
    {
      // Measured, not forecast: the receipts of the sessions an acting proxy forwarded (docs/rules.md, "Proxy receipts").
      header: 'proxy saved $',
      exact: (row) => (row.proxy.sessions === 0 ? '' : row.proxy.savedUsd.toFixed(6)),
      shown: (row) => (row.proxy.sessions === 0 ? '—' : dollars(row.proxy.savedUsd)),
    },
    {
      header: 'compactions avoided',
      exact: (row) => (row.whatIf.sessions === 0 ? '' : String(row.whatIf.compactionsAvoided)),
      shown: (row) => (row.whatIf.sessions === 0 ? '—' : String(row.whatIf.compactionsAvoided)),
    },
  ];
}

function footer(result: ReportResult): string[] {
  const lines = result.footnotes.map((note, index) => `[${index + 1}] ${note}`);
  const { files } = result;
  lines.push(
    `${files.found} log files (${files.read} read, ${files.cached} from the cache)` +
      (files.skipped.length > 0
        ? `, ${files.skipped.length} skipped: not session logs of a known agent`
        : '') +
      `; days in ${result.timeZone}; compactions: the agent's own/manual; caution, critical: share of calls.`,
  );
  return lines;
}

/** The report as an aligned text table, the total row last, the footnotes under it. */
export function formatReportTable(result: ReportResult): string {
  const list = columns(result.view, result);
  const cells = [...result.rows, result.total].map((row) =>
    list.map((column) => (column.shown ?? column.exact)(row)),
  );
  const header = list.map((column) => column.header);
  const widths = list.map((_, index) =>
    Math.max(header[index]!.length, ...cells.map((row) => row[index]!.length)),
  );
  const line = (values: readonly string[]) =>
    values
      .map((value, index) =>
        list[index]!.left ? value.padEnd(widths[index]!) : value.padStart(widths[index]!),
      )
      .join('  ')
      .trimEnd();
  const rule = widths.map((width) => '─'.repeat(width)).join('  ');
  const body = cells.slice(0, -1).map(line);
  return `${[line(header), rule, ...body, rule, line(cells.at(-1)!), '', ...footer(result)].join('\n')}\n`;
}

/** The report as a Markdown table, for pasting in an issue or a chat. */
export function formatReportMarkdown(result: ReportResult): string {
  const list = columns(result.view, result);
  const escapePipes = (text: string) => text.replace(/\|/g, '\\|');
  const row = (values: readonly string[]) => `| ${values.map(escapePipes).join(' | ')} |`;
  const lines = [
    row(list.map((column) => column.header)),
    `|${list.map((column) => (column.left ? ' --- ' : ' ---: ')).join('|')}|`,
    ...result.rows.map((entry) => row(list.map((column) => (column.shown ?? column.exact)(entry)))),
    row(list.map((column) => `**${(column.shown ?? column.exact)(result.total)}**`)),
  ];
  return `${[...lines, '', ...footer(result)].join('\n')}\n`;
}

/** The report as CSV (RFC 4180 quoting), every figure exact, the total row last. */
export function formatReportCsv(result: ReportResult): string {
  const list = columns(result.view, result);
  const quote = (text: string) => (/[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);
  const lines = [
    list.map((column) => quote(column.header)).join(','),
    ...[...result.rows, result.total].map((row) => list.map((column) => quote(column.exact(row))).join(',')),
  ];
  return `${lines.join('\r\n')}\r\n`;
}
