import type { ItemSize } from './item-size.js';
import type { LogHistory } from './log-history.js';

/**
 * How local token counts map onto the provider's prompt tokens for one session, fitted on the session's own
 * recorded usage: `prompt ≈ base + segment offset + tool × toolScale + text × textScale + reasoning ×
 * reasoningScale + items × itemTokens`. The base is what the log does not hold (system prompt, tool definitions);
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

/**
 * Fits the calibration of one session by least squares over its calls with usage. Each candidate fit (every
 * class apart with a framing cost per item; text and reasoning together; without the framing; without reasoning;
 * one scale) is solved with one offset per segment after the first; of those whose coefficients are plausible,
 * the one with the least mean error is taken. The per-call error is reported, never hidden.
 */
export function calibrate(history: LogHistory, features: readonly CallFeatures[]): Calibration {
  const segments = Math.max(0, ...history.calls.map((call) => call.segment));
  const used = history.calls.filter((call) => call.usage !== null && call.usage.promptTokens > 0);
  const targets = used.map((call) => call.usage!.promptTokens);
  const offsetColumns = (segment: number) =>
    Array.from({ length: segments }, (_, index) => (segment === index + 1 ? 1 : 0));
  let best: Calibration | undefined;
  for (const shape of SHAPES) {
    const rows = used.map((call) => [
      1,
      ...shape.columns(features[call.index]!),
      ...offsetColumns(call.segment),
    ]);
    const beta = rows.length > rows[0]!.length ? leastSquares(rows, targets) : undefined;
    if (!beta || beta.some((value) => !Number.isFinite(value))) continue;
    const width = shape.columns(features[0]!).length;
    const candidate = withErrors(
      {
        baseTokens: beta[0]!,
        ...shape.read(beta.slice(1, 1 + width)),
        segmentOffsets: beta.slice(1 + width),
        model: shape.name,
        calls: used.length,
        meanAbsErrorPercent: 0,
        maxAbsErrorPercent: 0,
        maxErrorCallIndex: null,
      },
      used,
      features,
    );
    if (plausible(candidate) && (!best || candidate.meanAbsErrorPercent < best.meanAbsErrorPercent))
      best = candidate;
  }
  if (best) return best;
  // No believable fit (too few calls): the first call's prompt as the base, local tokens at face value.
  const first = used[0];
  const firstFeatures = first ? features[first.index]! : { tool: 0, text: 0, reasoning: 0, items: 0 };
  return withErrors(
    {
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
      segmentOffsets: new Array<number>(segments).fill(0),
      model: 'face value (no plausible fit)',
      calls: used.length,
      meanAbsErrorPercent: 0,
      maxAbsErrorPercent: 0,
      maxErrorCallIndex: null,
    },
    used,
    features,
  );
}

function withErrors(
  calibration: Calibration,
  used: readonly LogHistory['calls'][number][],
  features: readonly CallFeatures[],
): Calibration {
  let total = 0;
  for (const call of used) {
    const recorded = call.usage!.promptTokens;
    const error =
      (Math.abs(predictedPrompt(calibration, features[call.index]!, call.segment) - recorded) / recorded) *
      100;
    total += error;
    if (error > calibration.maxAbsErrorPercent) {
      calibration.maxAbsErrorPercent = error;
      calibration.maxErrorCallIndex = call.index;
    }
  }
  calibration.meanAbsErrorPercent = used.length > 0 ? total / used.length : 0;
  return calibration;
}

/** The provider tokens one item of a class and local size takes, by the calibration. */
export function calibratedTokens(
  calibration: Calibration,
  sizeClass: keyof Omit<CallFeatures, 'items'>,
  tokens: number,
): number {
  const scale =
    sizeClass === 'tool'
      ? calibration.toolScale
      : sizeClass === 'text'
        ? calibration.textScale
        : calibration.reasoningScale;
  return tokens * scale + calibration.itemTokens;
}

/** The prompt tokens the calibration predicts for a call's features. */
export function predictedPrompt(calibration: Calibration, features: CallFeatures, segment: number): number {
  return (
    calibration.baseTokens +
    (segment > 0 ? (calibration.segmentOffsets[segment - 1] ?? 0) : 0) +
    features.tool * calibration.toolScale +
    features.text * calibration.textScale +
    features.reasoning * calibration.reasoningScale +
    features.items * calibration.itemTokens
  );
}
