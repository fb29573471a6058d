import type { PressureLevel, PressureReport } from '../pressure/types.js';
import type { Color, Paint } from './colors.js';

export const LEVEL_COLORS: Readonly<Record<PressureLevel, Color>> = {
  LOW: 'green',
  MODERATE: 'cyan',
  HIGH: 'yellow',
  CRITICAL: 'red',
};

const yesNo = (value: boolean) => (value ? 'yes' : 'no');

/** The human report of `barometer pressure`: the level in its colour, the figures, thresholds, the action. */
export function formatPressureReport(report: PressureReport, paint: Paint): string {
  const p = report.pressure;
  const row = (label: string, value: string) => `  ${label.padEnd(22)}${value}`;
  const minutes =
    p.estimatedMinutesRemaining === null ? 'not depleting (burn 0)' : `${p.estimatedMinutesRemaining}`;
  return [
    `Pressure Level: ${paint(LEVEL_COLORS[p.level], p.level)}  (viability ${p.sessionViability}/100)`,
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
    `Suggested Action: ${paint('bold', p.suggestedAction)}`,
    '',
  ].join('\n');
}
