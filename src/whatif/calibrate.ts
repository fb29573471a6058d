import type { ItemSize } from './item-size.js';
import type { LogHistory } from './log-history.js';

/**
 * How local token counts map onto the provider's prompt tokens for one session, fitted on the session's own
 * recorded usage: `prompt ≈ base + tool × toolScale + text × textScale + reasoning × reasoningScale + items ×
 * itemTokens`, fitted apart on each stretch between compactions and model switches (`segments`, which predict every
 * call); the top-level figures are the fit over the whole session with one offset per compaction segment, which a
 * stretch too short for its own fit falls back on. The base is what the log does not hold (system prompt, tool definitions);
 * `itemTokens` is the framing each content block costs; a segment's offset is what the agent adds after its own
 * compaction without logging it (Claude Code re-reads recent files into a reminder, Codex's encrypted summary).
 */
export interface Calibration {
  baseTokens: number;
  toolScale: number;
  textScale: number;
  reasoningScale: number;
  itemTokens: number;
  /** Offsets of the segments after the first (index 0 is segment 1), in provider tokens. */
  segmentOffsets: number[];
  /** Which columns the chosen fit has (the plausible fit of least error). */
  model: string;
  /** Calls the fit used (calls with usage). */
  calls: number;
  /** Mean of |predicted − recorded| ÷ recorded over those calls, in percent. */
  meanAbsErrorPercent: number;
  /** The largest such error, in percent, and the call it was at. */
  maxAbsErrorPercent: number;
  maxErrorCallIndex: number | null;
  /** The fit of each stretch between compactions and model switches, each with its own error. */
  segments: SegmentCalibration[];
}

/** Per call: the local tokens of its prompt by size class. */
export interface CallFeatures {
  tool: number;
  text: number;
  reasoning: number;
  items: number;
}

/** The local tokens of each call's prompt (items of its segment logged before it), by class. */
export function callFeatures(history: LogHistory, sizes: readonly ItemSize[]): CallFeatures[] {
  const features: CallFeatures[] = [];
  let position = 0;
  let segment = -1;
  const running: CallFeatures = { tool: 0, text: 0, reasoning: 0, items: 0 };
  for (const call of history.calls) {
    if (call.segment !== segment) {
      segment = call.segment;
      running.tool = 0;
      running.text = 0;
      running.reasoning = 0;
      running.items = 0;
      // Items of earlier segments never reach this call's prompt.
      while (position < history.items.length && (history.items[position]?.segment ?? 0) < segment) position++;
    }
    for (; position < call.itemsBefore; position++) {
      const entry = history.items[position];
      const size = sizes[position];
      if (!entry || !size || entry.segment !== segment) continue;
      running[size.sizeClass] += size.tokens;
      running.items += 1;
    }
    features.push({ ...running });
  }
  return features;
}

/** Solves the normal equations of a small least-squares problem; undefined when singular. */
function solve(matrix: number[][], vector: number[]): number[] | undefined {
  const size = vector.length;
  const a = matrix.map((row, index) => [...row, vector[index] as number]);
  for (let column = 0; column < size; column++) {
    let pivot = column;
    for (let row = column + 1; row < size; row++)
      if (Math.abs(a[row]![column]!) > Math.abs(a[pivot]![column]!)) pivot = row;
    if (Math.abs(a[pivot]![column]!) < 1e-9) return undefined;
    [a[column], a[pivot]] = [a[pivot]!, a[column]!];
    for (let row = 0; row < size; row++) {
      if (row === column) continue;
      const factor = a[row]![column]! / a[column]![column]!;
      for (let k = column; k <= size; k++) a[row]![k]! -= factor * a[column]![k]!;
    }
  }
  return a.map((row, index) => row[size]! / row[index]!);
}

/** Least squares of `y ≈ X·β` over the rows; undefined when the columns are not independent. */
function leastSquares(rows: readonly number[][], targets: readonly number[]): number[] | undefined {
  const width = rows[0]?.length ?? 0;
  const normal = Array.from({ length: width }, () => new Array<number>(width).fill(0));
  const right = new Array<number>(width).fill(0);
  rows.forEach((row, index) => {
    for (let i = 0; i < width; i++) {
      right[i]! += row[i]! * targets[index]!;
      for (let j = 0; j < width; j++) normal[i]![j]! += row[i]! * row[j]!;
    }
  });
  return solve(normal, right);
}

/** One candidate fit: its columns, and how its coefficients read as a calibration. */
interface Shape {
  name: string;
  columns: (f: CallFeatures) => number[];
  read: (
    beta: readonly number[],
  ) => Pick<Calibration, 'toolScale' | 'textScale' | 'reasoningScale' | 'itemTokens'>;
}

const SHAPES: readonly Shape[] = [
  {
    name: 'tool, text, reasoning, items',
    columns: (f) => [f.tool, f.text, f.reasoning, f.items],
    read: ([t, x, r, i]) => ({ toolScale: t!, textScale: x!, reasoningScale: r!, itemTokens: i! }),
  },
  {
    name: 'tool, text and reasoning, items',
    columns: (f) => [f.tool, f.text + f.reasoning, f.items],
    read: ([t, x, i]) => ({ toolScale: t!, textScale: x!, reasoningScale: x!, itemTokens: i! }),
  },
  {
    name: 'tool, text, reasoning',
    columns: (f) => [f.tool, f.text, f.reasoning],
    read: ([t, x, r]) => ({ toolScale: t!, textScale: x!, reasoningScale: r!, itemTokens: 0 }),
  },
  {
    name: 'tool, text (reasoning not sent)',
    columns: (f) => [f.tool, f.text],
    read: ([t, x]) => ({ toolScale: t!, textScale: x!, reasoningScale: 0, itemTokens: 0 }),
  },
  {
    name: 'one scale',
    columns: (f) => [f.tool + f.text + f.reasoning],
    read: ([t]) => ({ toolScale: t!, textScale: t!, reasoningScale: t!, itemTokens: 0 }),
  },
];

/**
 * A fit is believed only within these bounds: a tool token is 0.5–3 provider tokens (Claude counts about 1.07–1.10
 * per o200k token on tool results; redacted text sized at 4 characters per token may need up to 2), other text up
 * to 20 (it is little text carrying each message's framing), reasoning 0–5 (0: the provider drops it), 0–500 tokens
 * of framing per item, a base of at least 0.
 */
function plausible(
  calibration: Pick<Calibration, 'toolScale' | 'textScale' | 'reasoningScale' | 'itemTokens' | 'baseTokens'>,
): boolean {
  return (
    calibration.baseTokens >= 0 &&
    calibration.toolScale >= 0.5 &&
    calibration.toolScale <= 3 &&
    calibration.textScale >= 0.05 &&
    calibration.textScale <= 20 &&
    calibration.reasoningScale >= 0 &&
    calibration.reasoningScale <= 5 &&
    calibration.itemTokens >= 0 &&
    calibration.itemTokens <= 500
  );
}

/** Where a calibration segment starts: the log's start, a compaction (the agent's or the user's), a model switch. */
export type SegmentStart = 'start' | 'compaction' | 'manual compaction' | 'model switch';

/** The fit of one stretch of calls between compactions and model switches. */
export interface SegmentCalibration {
  /** First and last call (`LogCall.index`) of the stretch. */
  fromCall: number;
  toCall: number;
  start: SegmentStart;
  model: string | null;
  baseTokens: number;
  toolScale: number;
  textScale: number;
  reasoningScale: number;
  itemTokens: number;
  /** Which columns the fit has; `base only (session scales)` when the stretch is too short for its own. */
  fit: string;
  calls: number;
  meanAbsErrorPercent: number;
  maxAbsErrorPercent: number;
}

type Scales = Pick<Calibration, 'toolScale' | 'textScale' | 'reasoningScale' | 'itemTokens'>;
type Used = LogHistory['calls'][number];

const scaled = (scales: Scales, f: CallFeatures) =>
  f.tool * scales.toolScale +
  f.text * scales.textScale +
  f.reasoning * scales.reasoningScale +
  f.items * scales.itemTokens;

/** The plausible fit of least mean error over these calls, with one offset per `offsetOf` group after the first. */
function bestFit(
  used: readonly Used[],
  features: readonly CallFeatures[],
  offsets: number,
  offsetOf: (call: Used) => number,
): (Scales & { baseTokens: number; offsets: number[]; name: string; error: number }) | undefined {
  const targets = used.map((call) => call.usage!.promptTokens);
  const offsetColumns = (group: number) =>
    Array.from({ length: offsets }, (_, index) => (group === index + 1 ? 1 : 0));
  let best: ReturnType<typeof bestFit>;
  for (const shape of SHAPES) {
    const rows = used.map((call) => [
      1,
      ...shape.columns(features[call.index]!),
      ...offsetColumns(offsetOf(call)),
    ]);
    const beta = rows.length > rows[0]!.length ? leastSquares(rows, targets) : undefined;
    if (!beta || beta.some((value) => !Number.isFinite(value))) continue;
    const width = shape.columns(features[0]!).length;
    const scales = shape.read(beta.slice(1, 1 + width));
    const candidate = {
      baseTokens: beta[0]!,
      ...scales,
      offsets: beta.slice(1 + width),
      name: shape.name,
      error: 0,
    };
    if (!plausible(candidate)) continue;
    candidate.error =
      used.reduce((sum, call, index) => {
        const predicted =
          candidate.baseTokens +
          (candidate.offsets[offsetOf(call) - 1] ?? 0) +
          scaled(candidate, features[call.index]!);
        return sum + Math.abs(predicted - targets[index]!) / targets[index]!;
      }, 0) / used.length;
    if (!best || candidate.error < best.error) best = candidate;
  }
  return best;
}

/**
 * The stretches of calls a calibration fits apart: a new one at every compaction (the agent's or the user's: the
 * prompt is rebuilt) and at every model switch (another tokenizer counts the same text).
 */
export function calibrationSegments(
  history: LogHistory,
): Array<{ fromCall: number; toCall: number; start: SegmentStart; model: string | null }> {
  const stretches: Array<{ fromCall: number; toCall: number; start: SegmentStart; model: string | null }> =
    [];
  for (const call of history.calls) {
    const last = stretches[stretches.length - 1];
    const previous = history.calls[call.index - 1];
    const model = call.model ?? last?.model ?? null;
    if (last && previous && previous.segment === call.segment && model === last.model) {
      last.toCall = call.index;
      continue;
    }
    const start: SegmentStart = !last
      ? 'start'
      : previous && previous.segment !== call.segment
        ? history.segmentStarts?.[call.segment - 1]?.trigger === 'manual'
          ? 'manual compaction'
          : 'compaction'
        : 'model switch';
    stretches.push({ fromCall: call.index, toCall: call.index, start, model });
  }
  return stretches;
}

/**
 * Fits the calibration of one session by least squares over its calls with usage. Each stretch between compactions
 * and model switches is fitted on its own (its own base, scales and error): each candidate fit (every class apart
 * with a framing cost per item; text and reasoning together; without the framing; without reasoning; one scale) is
 * solved, and of those whose coefficients are plausible the one with the least mean error is taken. A stretch too
 * short for a plausible fit of its own keeps the scales fitted on the whole session (one offset per compaction
 * segment) and fits only its base. The per-call error is reported, never hidden.
 */
export function calibrate(history: LogHistory, features: readonly CallFeatures[]): Calibration {
  const segments = Math.max(0, ...history.calls.map((call) => call.segment));
  const used = history.calls.filter((call) => call.usage !== null && call.usage.promptTokens > 0);
  const whole = bestFit(used, features, segments, (call) => call.segment);
  const first = used[0];
  const firstFeatures = first ? features[first.index]! : { tool: 0, text: 0, reasoning: 0, items: 0 };
  // No believable fit (too few calls): the first call's prompt as the base, local tokens at face value.
  const session: Scales & { baseTokens: number; offsets: number[]; name: string } = whole ?? {
    baseTokens: Math.max(
      0,
      first
        ? first.usage!.promptTokens - firstFeatures.tool - firstFeatures.text - firstFeatures.reasoning
        : 0,
    ),
    toolScale: 1,
    textScale: 1,
    reasoningScale: 1,
    itemTokens: 0,
    offsets: new Array<number>(segments).fill(0),
    name: 'face value (no plausible fit)',
  };
  const stretches = calibrationSegments(history).map((stretch): SegmentCalibration => {
    const calls = used.filter((call) => call.index >= stretch.fromCall && call.index <= stretch.toCall);
    const own = calls.length > 0 ? bestFit(calls, features, 0, () => 0) : undefined;
    // The session's scales with a base of the stretch's own: the fallback of a short stretch, and a candidate of
    // every stretch (a least-squares fit weighs the large prompts; the error is measured per call).
    const residuals = calls.map((call) => call.usage!.promptTokens - scaled(session, features[call.index]!));
    const segment = history.calls[stretch.fromCall]?.segment ?? 0;
    const shared = {
      ...session,
      baseTokens:
        residuals.length > 0
          ? residuals.reduce((a, b) => a + b, 0) / residuals.length
          : session.baseTokens + (segment > 0 ? (session.offsets[segment - 1] ?? 0) : 0),
      name: `base only (session scales: ${session.name})`,
    };
    const sharedError =
      calls.reduce(
        (sum, call, index) =>
          sum + Math.abs(shared.baseTokens - residuals[index]!) / call.usage!.promptTokens,
        0,
      ) / Math.max(1, calls.length);
    const fit: Scales & { baseTokens: number; name: string } = own && own.error <= sharedError ? own : shared;
    return {
      ...stretch,
      baseTokens: fit.baseTokens,
      toolScale: fit.toolScale,
      textScale: fit.textScale,
      reasoningScale: fit.reasoningScale,
      itemTokens: fit.itemTokens,
      fit: fit.name,
      calls: calls.length,
      meanAbsErrorPercent: 0,
      maxAbsErrorPercent: 0,
    };
  });
  const calibration: Calibration = {
    baseTokens: session.baseTokens,
    toolScale: session.toolScale,
    textScale: session.textScale,
    reasoningScale: session.reasoningScale,
    itemTokens: session.itemTokens,
    segmentOffsets: session.offsets,
    model: session.name,
    calls: used.length,
    meanAbsErrorPercent: 0,
    maxAbsErrorPercent: 0,
    maxErrorCallIndex: null,
    segments: stretches,
  };
  return withErrors(calibration, used, features);
}

function withErrors(
  calibration: Calibration,
  used: readonly LogHistory['calls'][number][],
  features: readonly CallFeatures[],
): Calibration {
  let total = 0;
  const sums = new Map<SegmentCalibration, number>();
  for (const call of used) {
    const recorded = call.usage!.promptTokens;
    const error =
      (Math.abs(predictedPrompt(calibration, features[call.index]!, call.index) - recorded) / recorded) * 100;
    total += error;
    if (error > calibration.maxAbsErrorPercent) {
      calibration.maxAbsErrorPercent = error;
      calibration.maxErrorCallIndex = call.index;
    }
    const segment = segmentOf(calibration, call.index);
    if (segment) {
      sums.set(segment, (sums.get(segment) ?? 0) + error);
      segment.maxAbsErrorPercent = Math.max(segment.maxAbsErrorPercent, error);
    }
  }
  calibration.meanAbsErrorPercent = used.length > 0 ? total / used.length : 0;
  for (const segment of calibration.segments)
    segment.meanAbsErrorPercent = segment.calls > 0 ? (sums.get(segment) ?? 0) / segment.calls : 0;
  return calibration;
}

/** The calibration segment a call belongs to (the last one starting at or before it). */
export function segmentOf(calibration: Calibration, callIndex: number): SegmentCalibration | undefined {
  const { segments } = calibration;
  let low = 0;
  let high = segments.length - 1;
  let found: SegmentCalibration | undefined;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const segment = segments[middle]!;
    if (segment.fromCall <= callIndex) {
      found = segment;
      low = middle + 1;
    } else high = middle - 1;
  }
  return found;
}

/** The provider tokens one item of a class and local size takes, by a segment's fit. */
export function calibratedTokens(
  fit: Scales,
  sizeClass: keyof Omit<CallFeatures, 'items'>,
  tokens: number,
): number {
  const scale =
    sizeClass === 'tool' ? fit.toolScale : sizeClass === 'text' ? fit.textScale : fit.reasoningScale;
  return tokens * scale + fit.itemTokens;
}

/** The prompt tokens the calibration predicts for a call's features (by the fit of the call's segment). */
export function predictedPrompt(calibration: Calibration, features: CallFeatures, callIndex: number): number {
  const fit = segmentOf(calibration, callIndex) ?? calibration;
  return fit.baseTokens + scaled(fit, features);
}
