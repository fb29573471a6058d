import type { PressureLevel, PressureReport } from '../../src/contract/index.js';

/** The colours `barometer pressure` paints with (src/cli/colors.ts). */
export type ReportColor = 'red' | 'green' | 'yellow' | 'cyan' | 'gray' | 'bold' | 'dim';

/** A run of text of the CLI report, with the colour the terminal would paint it in. */
export interface ReportSegment {
  text: string;
  color?: ReportColor;
}

/** The regulator's levels in the CLI's colours. */
const LEVEL_COLORS: Readonly<Record<PressureLevel, ReportColor>> = {
  LOW: 'green',
  MODERATE: 'cyan',
  HIGH: 'yellow',
  CRITICAL: 'red',
};

const yesNo = (value: boolean) => (value ? 'yes' : 'no');

/**
 * The regulator's answer laid out as `barometer pressure` prints it, in lines of segments so that the page can
 * colour what the terminal colours. The dashboard's own: it imports no code from src (web imports types only),
 * and web/src/cli-report.test.ts checks it against the CLI's formatter on reports across the input space, so the
 * two cannot drift apart unseen.
 */
export function cliReportLines(report: PressureReport): ReportSegment[][] {
  const p = report.pressure;
  const row = (label: string, value: string): ReportSegment[] => [{ text: `  ${label.padEnd(22)}${value}` }];
  const minutes =
    p.estimatedMinutesRemaining === null ? 'not depleting (burn 0)' : `${p.estimatedMinutesRemaining}`;
  return [
    [
      { text: 'Pressure Level: ' },
      { text: p.level, color: LEVEL_COLORS[p.level] },
      { text: `  (viability ${p.sessionViability}/100)` },
    ],
    row('Memory pressure', `${p.memoryPressure}%`),
    row(
      'Token burn rate',
      `${p.tokenBurnRate} (${p.burnRateAcceleration}× the ${report.metadata.systemMode} baseline)`,
    ),
    row('Context drift', `${p.contextDrift}%`),
    row(
      'Tokens remaining',
      p.estimatedTokensRemaining === null ? 'no budget' : `${p.estimatedTokensRemaining}`,
    ),
    row('Minutes remaining', minutes),
    row('Thresholds exceeded', p.thresholdsExceeded.length ? p.thresholdsExceeded.join(', ') : 'none'),
    row(
      'Recommendations',
      `compress ${yesNo(p.recommendations.shouldCompress)}, optimize ${yesNo(p.recommendations.shouldOptimize)}, ` +
        `terminate ${yesNo(p.recommendations.shouldTerminate)}; priority ${p.recommendations.priority}`,
    ),
    row('Profile', `${report.metadata.agentProfile} (${report.metadata.systemMode} mode)`),
    [{ text: 'Suggested Action: ' }, { text: p.suggestedAction, color: 'bold' }],
  ];
}
