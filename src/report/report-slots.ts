import type { ReportCall, ReportSlot } from './log-report.js';

/** A slot's length: a quarter of an hour, the largest that divides every time zone's offset (see `ReportSlot`). */
export const SLOT_MS = 15 * 60 * 1000;

/**
 * The calls of a log added up by quarter hour (UTC) and model, in order of the slots' first calls: the views add
 * slots as they would add the calls (sums, the peak, the counts of caution and critical calls), at a fraction of
 * the size. A call whose time does not parse keeps its own time as its slot's.
 */
export function reportSlots(calls: readonly ReportCall[]): ReportSlot[] {
  const slots = new Map<string, ReportSlot>();
  for (const call of calls) {
    const ms = Date.parse(call.time);
    const time = Number.isNaN(ms) ? call.time : new Date(ms - (ms % SLOT_MS)).toISOString();
    const key = `${time}\\u0000${call.model}`;
    let slot = slots.get(key);
    if (!slot) {
      slot = {
        time,
        firstAt: call.time,
        lastAt: call.time,
        model: call.model,
        calls: 0,
        inputTokens: 0,
        outputTokens: 0,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        costUsd: 0,
        estimatedCostUsd: 0,
        unpricedCalls: 0,
        peakPromptTokens: null,
        cautionCalls: 0,
        criticalCalls: 0,
        streamedOutputTokens: 0,
        streamedCostUsd: 0,
      };
      slots.set(key, slot);
    }
    slot.calls++;
    if (!(Date.parse(call.time) >= Date.parse(slot.firstAt))) slot.firstAt = call.time;
    if (Date.parse(call.time) > Date.parse(slot.lastAt)) slot.lastAt = call.time;
    slot.inputTokens += call.inputTokens;
    slot.outputTokens += call.outputTokens;
    slot.cacheReadTokens += call.cacheReadTokens;
    slot.cacheWriteTokens += call.cacheWriteTokens;
    if (call.costUsd === null) slot.unpricedCalls++;
    else {
      slot.costUsd += call.costUsd;
      if (call.estimated) slot.estimatedCostUsd += call.costUsd;
    }
    if (
      call.promptTokens !== null &&
      (slot.peakPromptTokens === null || call.promptTokens > slot.peakPromptTokens)
    )
      slot.peakPromptTokens = call.promptTokens;
    if (call.health === 'caution') slot.cautionCalls++;
    else if (call.health === 'critical') slot.criticalCalls++;
    slot.streamedOutputTokens += call.streamedOutputTokens;
    slot.streamedCostUsd += call.streamedCostUsd;
  }
  return [...slots.values()];
}
