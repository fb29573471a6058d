import type { Color } from '../../src/cli/colors.js';
import { formatPressureReport } from '../../src/cli/format-pressure.js';
import type { PressureReport } from './types.js';

/** A run of text of the CLI report, with the colour the terminal would paint it in. */
export interface ReportSegment {
  text: string;
  color?: Color;
}

// Control characters cannot appear in the report's figures or words, so they delimit painted runs safely.
const START = '\u0001';
const MIDDLE = '\u0002';
const END = '\u0003';

/**
 * The regulator's answer exactly as `barometer pressure` prints it — the CLI's own formatter, not a copy —
 * split into lines of segments so that the page can colour what the terminal colours.
 */
export function cliReportLines(report: PressureReport): ReportSegment[][] {
  const text = formatPressureReport(report, (color, value) => `${START}${color}${MIDDLE}${value}${END}`);
  return text
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => {
      const segments: ReportSegment[] = [];
      const pattern = new RegExp(`${START}([a-z]+)${MIDDLE}([^${END}]*)${END}`, 'g');
      let last = 0;
      for (const match of line.matchAll(pattern)) {
        if (match.index > last) segments.push({ text: line.slice(last, match.index) });
        segments.push({ text: match[2]!, color: match[1] as Color });
        last = match.index + match[0].length;
      }
      if (last < line.length || segments.length === 0) segments.push({ text: line.slice(last) });
      return segments;
    });
}
