import { describe, expect, it } from 'vitest';
import { dayOf } from './day-of.js';
import type { ReportCall } from './log-report.js';
import { reportSlots } from './report-slots.js';

function call(time: string, model: string, figures: Partial<ReportCall> = {}): ReportCall {
  return {
    time,
    model,
    inputTokens: 10,
    outputTokens: 5,
    cacheReadTokens: 100,
    cacheWriteTokens: 20,
    costUsd: 1,
    estimated: false,
    promptTokens: 130,
    health: 'healthy',
    streamedOutputTokens: 0,
    streamedCostUsd: 0,
    ...figures,
  };
}

/** A time zone's offset from UTC at an instant, in minutes (`GMT+05:45` → 345). */
function offsetMinutes(format: Intl.DateTimeFormat, at: Date): number {
  const name = format.formatToParts(at).find((part) => part.type === 'timeZoneName')?.value ?? 'GMT';
  const match = /^GMT([+-])(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(name);
  if (!match) return 0;
  const minutes = Number(match[2]) * 60 + Number(match[3]) + Number(match[4] ?? 0) / 60;
  return match[1] === '-' ? -minutes : minutes;
}

describe('reportSlots', () => {
  it('adds up the calls of one model in one quarter hour, and keeps models and quarters apart', () => {
    const slots = reportSlots([
      call('2026-01-01T10:00:00Z', 'opus', { streamedOutputTokens: 3, streamedCostUsd: 0.25 }),
      call('2026-01-01T10:14:59.999Z', 'opus', {
        health: 'caution',
        promptTokens: 150_000,
        costUsd: 2,
        estimated: true,
        streamedOutputTokens: 4,
        streamedCostUsd: 0.5,
      }),
      call('2026-01-01T10:05:00Z', 'sonnet', { costUsd: null, health: 'critical', promptTokens: 190_000 }),
      call('2026-01-01T10:15:00Z', 'opus', { health: 'unknown', promptTokens: null, costUsd: null }),
    ]);
    expect(slots).toEqual([
      {
        time: '2026-01-01T10:00:00.000Z',
        // The first and last calls' own times: the blocks view measures the gaps between calls with them.
        firstAt: '2026-01-01T10:00:00Z',
        lastAt: '2026-01-01T10:14:59.999Z',
        model: 'opus',
        calls: 2,
        inputTokens: 20,
        outputTokens: 10,
        cacheReadTokens: 200,
        cacheWriteTokens: 40,
        costUsd: 3,
        // The second call's 2 dollars were at a family estimate's price.
        estimatedCostUsd: 2,
        unpricedCalls: 0,
        peakPromptTokens: 150_000,
        cautionCalls: 1,
        criticalCalls: 0,
        streamedOutputTokens: 7,
        streamedCostUsd: 0.75,
      },
      expect.objectContaining({
        time: '2026-01-01T10:00:00.000Z',
        model: 'sonnet',
        calls: 1,
        costUsd: 0,
        unpricedCalls: 1,
        criticalCalls: 1,
      }),
      expect.objectContaining({
        time: '2026-01-01T10:15:00.000Z',
        model: 'opus',
        calls: 1,
        unpricedCalls: 1,
        peakPromptTokens: null,
      }),
    ]);
  });

  it('reads a time with an offset as the instant it names', () => {
    expect(reportSlots([call('2026-01-01T11:20:00+01:00', 'opus')])[0]!.time).toBe(
      '2026-01-01T10:15:00.000Z',
    );
  });

  it('rests on every time zone the runtime knows being a whole number of quarter hours off UTC since 1990', () => {
    const odd: string[] = [];
    for (const zone of Intl.supportedValuesOf('timeZone')) {
      const format = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
      for (let year = 1990; year <= 2035; year++) {
        for (const month of [0, 6]) {
          const minutes = offsetMinutes(format, new Date(Date.UTC(year, month, 1)));
          if (minutes % 15 !== 0) odd.push(`${zone} ${year}-${month + 1}: ${minutes} min`);
        }
      }
    }
    expect(odd).toEqual([]);
  });

  it('puts each call on the day it has alone, in zones a quarter or half hour off the hour', () => {
    // A call every 7 minutes for two days: many land in the last quarter hour before a local midnight.
    const calls = Array.from({ length: (48 * 60) / 7 }, (_, index) =>
      call(new Date(Date.UTC(2026, 2, 1) + index * 7 * 60_000).toISOString(), 'opus'),
    );
    const slots = reportSlots(calls);
    for (const zone of ['Asia/Kathmandu', 'Australia/Eucla', 'Pacific/Chatham', 'America/St_Johns', 'UTC']) {
      const day = dayOf(zone);
      const byCall = new Map<string, number>();
      for (const one of calls) byCall.set(day(one.time), (byCall.get(day(one.time)) ?? 0) + 1);
      const bySlot = new Map<string, number>();
      for (const slot of slots) bySlot.set(day(slot.time), (bySlot.get(day(slot.time)) ?? 0) + slot.calls);
      expect(bySlot, zone).toEqual(byCall);
    }
  });
});
