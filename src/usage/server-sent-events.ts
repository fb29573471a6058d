import { createParser } from 'eventsource-parser';

/** One event of a server-sent-events stream: its `event:` name (none when it sent none) and its `data:` lines. */
export interface ServerSentEvent {
  event: string | undefined;
  data: string;
}

/** Reads an event stream given piece by piece; each whole event is passed to `onEvent` as soon as it has ended. */
export interface EventReader {
  /** The next piece of the stream's text (any split: mid-line, mid-event, mid-CRLF). */
  feed(text: string): void;
  /** The stream ended: an event the provider did not close with a blank line is read as whole. */
  end(): void;
}

/**
 * A server-sent-events reader on eventsource-parser (the parser the AI SDK's `parseJsonEventStream` uses): the
 * WHATWG rules for lines, fields, comments and CR/LF/CRLF, one event per blank line. Nothing of a stream is kept
 * beyond the event being read.
 */
export function eventReader(onEvent: (event: ServerSentEvent) => void): EventReader {
  const parser = createParser({ onEvent: ({ event, data }) => onEvent({ event, data }) });
  return {
    feed: (text) => parser.feed(text),
    // Two line ends close a last line and its event; after a stream that ended with its blank line they add none.
    end: () => parser.feed('\n\n'),
  };
}

/** An event as a stream carries it, without its closing blank line: its name, then each data line. */
export function eventText({ event, data }: ServerSentEvent): string {
  const lines = event === undefined ? [] : [`event: ${event}`];
  for (const line of data.split('\n')) lines.push(`data: ${line}`);
  return lines.join('\n');
}

/** An event's data as JSON; undefined for `[DONE]` and anything else that is not JSON. */
export function jsonData(data: string): unknown {
  if (data.trim() === '[DONE]') return undefined;
  try {
    return JSON.parse(data);
  } catch {
    // One torn chunk should not hide the usage that a later chunk carries.
    return undefined;
  }
}

/**
 * The JSON payloads of a server-sent-events text (`event: …` / `data: {…}` blocks separated by blank
 * lines). `[DONE]` and payloads that are not JSON are dropped.
 */
export function parseServerSentEvents(body: string): unknown[] {
  const events: unknown[] = [];
  const reader = eventReader(({ data }) => {
    const payload = jsonData(data);
    if (payload !== undefined) events.push(payload);
  });
  reader.feed(body);
  reader.end();
  return events;
}

const CARRIES_USAGE = /"usage(Metadata)?"\s*:\s*\{/;

/**
 * The events of a stream that its usage can be read from, kept as they pass, whatever the stream's length: of each
 * event name (events without one count as one name), the first (Anthropic's `message_start`, a chat stream's first
 * chunk with its model), the latest (cumulative or final: `message_delta`, `response.completed`), and the latest
 * whose data holds a usage object (a chat stream whose usage chunk is not its last). At most three per name: an
 * answer of any size keeps its prompt figure (issue 40: the last 4 MB of the bytes lost `message_start`).
 */
export class UsageEventDigest {
  readonly #kept = new Map<string, { first: Kept; latest?: Kept; usage?: Kept }>();
  readonly #reader = eventReader((event) => this.#take(event));
  #count = 0;

  /** The next piece of the stream's text. */
  feed(text: string): void {
    this.#reader.feed(text);
  }

  /** The kept events, in stream order, as an event-stream text the usage readers take. */
  text(): string {
    this.#reader.end();
    const all = new Map<number, ServerSentEvent>();
    for (const { first, latest, usage } of this.#kept.values())
      for (const one of [first, latest, usage]) if (one) all.set(one.at, one.event);
    return [...all.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, event]) => `${eventText(event)}\n\n`)
      .join('');
  }

  #take(event: ServerSentEvent): void {
    if (event.data.trim() === '[DONE]') return;
    const kept: Kept = { at: this.#count++, event };
    const name = event.event ?? '';
    const slot = this.#kept.get(name);
    if (!slot) {
      this.#kept.set(name, { first: kept });
      return;
    }
    slot.latest = kept;
    if (CARRIES_USAGE.test(event.data)) slot.usage = kept;
  }
}

interface Kept {
  at: number;
  event: ServerSentEvent;
}
