import { isoTime } from './iso-time.js';
import type { TimelineMarker, TimelinePoint } from './session-schemas.js';
import {
  capped,
  DEFAULT_TIMELINE_LIMITS,
  type Timeline,
  type TimelineData,
  type TimelineLimits,
} from './timeline.js';

/** The numbers of a point, in this order, in each slot of {@link Columns.numbers}. */
const INDEX = 0;
const AT = 1;
const PROMPT = 2;
const COMPLETION = 3;
const COUNTDOWN = 4;
const VIABILITY = 5;
const BURN_RATE = 6;
const REMINDER = 7;
const NUMBERS = 8;
/** The labels of a point, in this order, in each slot of {@link Columns.labels}. */
const HEALTH = 0;
const REGULATOR_LEVEL = 1;
const ACTION = 2;
const LABELS = 3;

/**
 * The points of one timeline's versions as numbers in a ring of `slots`, where the point recorded at position p
 * (the count of points recorded before it) sits in slot p % slots. `head` is the next position to write. Versions
 * of a timeline share it; only the newest writes into it. One typed array for every number of every slot and one
 * array for the labels: a typed array costs ~200 bytes of its own, and eleven columns of one made an idle session
 * created live hold ~2.5 KB more than the same session read back from its file (issue 29, F7).
 */
class Columns {
  readonly slots: number;
  head = 0;
  /** Per slot: index, at (epoch ms), promptTokens, completionTokens, countdown (NaN for null), viability, burnRate, reminder (1/0). */
  readonly numbers: Float64Array;
  /** Per slot: health, regulatorLevel, action. */
  readonly labels: string[];
  /** Position → the point's timestamp as it was read, for the few whose epoch ms `isoTime` would not write so. */
  foreign: Map<number, string> | undefined;

  constructor(slots: number) {
    this.slots = slots;
    this.numbers = new Float64Array(slots * NUMBERS);
    // Array.from with a function: a packed array of exactly its length (see emptyTokenWindow).
    this.labels = Array.from({ length: slots * LABELS }, () => '');
  }

  /** The point's index in `slot`. */
  indexAt(slot: number): number {
    return this.numbers[slot * NUMBERS + INDEX] as number;
  }

  /** The point's time (epoch ms) in `slot`. */
  atOf(slot: number): number {
    return this.numbers[slot * NUMBERS + AT] as number;
  }

  /** Writes the point of `position` (its time as epoch ms) and moves the head past it. */
  write(position: number, point: TimelinePoint, at: number): void {
    const slot = position % this.slots;
    const n = slot * NUMBERS;
    const numbers = this.numbers;
    numbers[n + INDEX] = point.index;
    numbers[n + AT] = at;
    numbers[n + PROMPT] = point.promptTokens ?? Number.NaN;
    numbers[n + COMPLETION] = point.completionTokens ?? Number.NaN;
    numbers[n + COUNTDOWN] = point.countdown ?? Number.NaN;
    numbers[n + VIABILITY] = point.viability;
    numbers[n + BURN_RATE] = point.burnRate;
    numbers[n + REMINDER] = point.reminder ? 1 : 0;
    const l = slot * LABELS;
    this.labels[l + HEALTH] = point.health;
    this.labels[l + REGULATOR_LEVEL] = point.regulatorLevel;
    this.labels[l + ACTION] = point.action;
    if (this.foreign !== undefined && this.foreign.size > 0) this.foreign.delete(position - this.slots);
    this.head = position + 1;
  }

  /** Keeps the timestamp text of `position` as it was read. */
  keepForeign(position: number, text: string): void {
    this.foreign ??= new Map();
    this.foreign.set(position, text);
  }

  pointAt(position: number): TimelinePoint {
    const slot = position % this.slots;
    const n = slot * NUMBERS;
    const l = slot * LABELS;
    const numbers = this.numbers;
    const prompt = numbers[n + PROMPT] as number;
    const completion = numbers[n + COMPLETION] as number;
    const countdown = numbers[n + COUNTDOWN] as number;
    return {
      index: numbers[n + INDEX] as number,
      timestamp:
        (this.foreign !== undefined && this.foreign.size > 0 && this.foreign.get(position)) ||
        isoTime(numbers[n + AT] as number),
      promptTokens: Number.isNaN(prompt) ? null : prompt,
      completionTokens: Number.isNaN(completion) ? null : completion,
      health: this.labels[l + HEALTH] as TimelinePoint['health'],
      regulatorLevel: this.labels[l + REGULATOR_LEVEL] as TimelinePoint['regulatorLevel'],
      viability: numbers[n + VIABILITY] as number,
      burnRate: numbers[n + BURN_RATE] as number,
      action: this.labels[l + ACTION] as TimelinePoint['action'],
      countdown: Number.isNaN(countdown) ? null : countdown,
      reminder: numbers[n + REMINDER] === 1,
    };
  }
}

/** The ring's first size: a timeline read back from Redis for one update holds a point, a young session a few. */
const FIRST_SLOTS = 8;

/**
 * The slots of a ring holding `count` points and one spare: doubled from 8 as a timeline grows (each doubling copies
 * its points once), at most the limit and its spare.
 */
function slotsFor(count: number, limits: Readonly<TimelineLimits>): number {
  const most = limits.points + 1;
  let slots = FIRST_SLOTS;
  while (slots < count + 1 && slots < most) slots *= 2;
  return Math.min(slots, most);
}

/**
 * A timeline whose points are kept as numbers in columns and made as objects only when read (`points`, once per
 * version). An object kept per update for the session's next 500 updates was the costliest thing a usage post left
 * behind (each survived young-generation collections and died in the old one; decision 014): columns keep none.
 *
 * A value like any {@link Timeline}: recording on the newest version writes into the shared columns, recording on
 * an older one copies its points into columns of its own. The ring grows by doubling up to its limit and keeps
 * one slot more than its points, so the version a record was made from still reads whole (a store that calls its change twice on one record records twice
 * on the same version). A version two records behind the newest may have lost its oldest point to the ring; reading
 * it throws rather than answer a point it no longer holds. Nothing of it is enumerable but `markers`, so that a
 * spread copy (the stores empty their lists that way) carries no column.
 */
export class ColumnTimeline implements Timeline {
  readonly markers: readonly TimelineMarker[];
  #limits: Readonly<TimelineLimits>;
  /** Undefined until the first point: a timeline that stays empty allocates no column. */
  #columns: Columns | undefined;
  /** This version's points are at positions [head − length, head). */
  #head = 0;
  #length = 0;
  #points: TimelinePoint[] | undefined;

  constructor(
    limits: Readonly<TimelineLimits> = DEFAULT_TIMELINE_LIMITS,
    markers: readonly TimelineMarker[] = [],
  ) {
    this.#limits = limits;
    this.markers = markers;
  }

  /**
   * A timeline's last points and markers in columns. A point whose timestamp is not what `isoTime` writes for its
   * time (not written by this program) keeps its text as it was.
   */
  static from(
    data: TimelineData,
    limits: Readonly<TimelineLimits> = DEFAULT_TIMELINE_LIMITS,
  ): ColumnTimeline {
    const timeline = new ColumnTimeline(limits, capped([], data.markers, limits.markers));
    const points = data.points;
    const first = Math.max(0, points.length - limits.points);
    if (first === points.length) return timeline;
    const columns = new Columns(slotsFor(points.length - first + 1, limits));
    for (let index = first; index < points.length; index++) {
      const point = points[index] as TimelinePoint;
      const at = Date.parse(point.timestamp);
      const position = columns.head;
      columns.write(position, point, Number.isFinite(at) ? at : 0);
      if (!Number.isFinite(at) || isoTime(at) !== point.timestamp)
        columns.keepForeign(position, point.timestamp);
    }
    timeline.#columns = columns;
    timeline.#head = columns.head;
    timeline.#length = columns.head;
    return timeline;
  }

  get limits(): Readonly<TimelineLimits> {
    return this.#limits;
  }

  record(point: TimelinePoint, at: number, markers: readonly TimelineMarker[]): ColumnTimeline {
    const limits = this.#limits;
    let columns = this.#columns;
    if (columns === undefined) columns = new Columns(slotsFor(1, limits));
    else if (columns.head !== this.#head || columns.slots < Math.min(this.#length + 2, limits.points + 1)) {
      // An older version (copied), or a ring without room for the new point and its spare slot (grown).
      columns = this.#copied(Math.max(columns.slots, slotsFor(this.#length + 1, limits)));
    }
    columns.write(this.#head, point, at);
    return this.#version(
      columns,
      this.#head + 1,
      Math.min(this.#length + 1, this.#limits.points),
      markers.length ? capped(this.markers, markers, this.#limits.markers) : this.markers,
    );
  }

  mark(markers: readonly TimelineMarker[]): ColumnTimeline {
    if (markers.length === 0) return this;
    return this.#version(
      this.#columns,
      this.#head,
      this.#length,
      capped(this.markers, markers, this.#limits.markers),
    );
  }

  /** The points, oldest first, as objects (made when first read). */
  get points(): TimelinePoint[] {
    if (this.#points !== undefined) return this.#points;
    const points: TimelinePoint[] = [];
    const columns = this.#readable();
    if (columns !== undefined)
      for (let position = this.#head - this.#length; position < this.#head; position++)
        points.push(columns.pointAt(position));
    this.#points = points;
    return points;
  }

  toJSON(): TimelineData {
    return { points: this.points, markers: this.markers as TimelineMarker[] };
  }

  #version(
    columns: Columns | undefined,
    head: number,
    length: number,
    markers: readonly TimelineMarker[],
  ): ColumnTimeline {
    const next = new ColumnTimeline(this.#limits, markers);
    next.#columns = columns;
    next.#head = head;
    next.#length = length;
    return next;
  }

  /** This version's columns, checked to still hold all of its points. */
  #readable(): Columns | undefined {
    const columns = this.#columns;
    if (columns !== undefined && this.#head - this.#length < columns.head - columns.slots) {
      throw new Error(
        `This timeline version (${this.#head} points recorded) was read after its columns moved on to ${columns.head}: only the newest version and the one before it are kept readable`,
      );
    }
    return columns;
  }

  /** Columns of its own, of `slots`, holding this version's points at the same positions. */
  #copied(slots: number): Columns {
    const source = this.#readable() as Columns;
    const columns = new Columns(slots);
    for (let position = this.#head - this.#length; position < this.#head; position++) {
      columns.write(position, source.pointAt(position), source.atOf(position % source.slots));
      const foreign = source.foreign?.get(position);
      if (foreign !== undefined) columns.keepForeign(position, foreign);
    }
    return columns;
  }
}
