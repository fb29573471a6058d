import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { MonitorEvent, SessionMonitor } from '../session/session-monitor.js';
import type { SessionEvent, TimelineMarker, TimelinePoint } from '../session/session-schemas.js';
import type { SessionState } from '../session/session-state.js';
import { sessionSummary } from '../session/session-timeline.js';

/** How long changes are gathered before they are sent: one message per session per interval, however busy. */
export const DEFAULT_FLUSH_MS = 100;
/** Event-stream clients at most, over every stream. */
export const DEFAULT_MAX_STREAMS = 1000;
/** A client that lets this much pile up unread is dropped (its EventSource reconnects and starts afresh). */
export const DEFAULT_MAX_BUFFERED_BYTES = 1024 * 1024;
/** Keep-alive comments stop proxies and browsers from closing an idle stream. */
const KEEP_ALIVE_MS = 15_000;

interface Client {
  response: ServerResponse;
  /** The session it follows, or null for the all-sessions stream. */
  sessionId: string | null;
}

interface Pending {
  state: SessionState | null;
  points: TimelinePoint[];
  markers: TimelineMarker[];
  events: SessionEvent[];
}

export interface EventHubOptions {
  flushMs?: number;
  maxStreams?: number;
  maxBufferedBytes?: number;
}

function message(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * The server-sent event streams of the service. Changes from the monitor are gathered for `flushMs` and then
 * serialized once per session for every client: the cost of an update does not grow with the number of
 * clients, and a busy session sends one summary per interval instead of one per update. A session's stream
 * gets every model event and every new timeline point and marker (`event: update` carries only what was
 * added); the all-sessions stream gets the latest summary of each changed session.
 */
export class EventHub {
  readonly #clients = new Set<Client>();
  readonly #bySession = new Map<string, Set<Client>>();
  readonly #pending = new Map<string, Pending>();
  readonly #flushMs: number;
  readonly #maxStreams: number;
  readonly #maxBuffered: number;
  readonly #unsubscribe: () => void;
  #timer: NodeJS.Timeout | undefined;
  #keepAlive: NodeJS.Timeout | undefined;

  constructor(monitor: SessionMonitor, options: EventHubOptions = {}) {
    this.#flushMs = options.flushMs ?? DEFAULT_FLUSH_MS;
    this.#maxStreams = options.maxStreams ?? DEFAULT_MAX_STREAMS;
    this.#maxBuffered = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
    // Every instance's changes: a stream shows the sessions of the whole service, wherever they were updated.
    this.#unsubscribe = monitor.subscribe((event) => this.#accept(event), { remote: true });
  }

  get clients(): number {
    return this.#clients.size;
  }

  /** Whether one more stream may open. */
  hasRoom(): boolean {
    return this.#clients.size < this.#maxStreams;
  }

  get maxStreams(): number {
    return this.#maxStreams;
  }

  /**
   * Turns a request into an event stream (the reply is taken over from Fastify), sends `first`, and keeps the
   * client until it goes away, stops reading, or the hub closes.
   */
  open(request: FastifyRequest, reply: FastifyReply, sessionId: string | null, first: string): void {
    reply.hijack();
    const response = reply.raw;
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    const client: Client = { response, sessionId };
    this.#clients.add(client);
    if (sessionId !== null) {
      const set = this.#bySession.get(sessionId) ?? new Set<Client>();
      this.#bySession.set(sessionId, set);
      set.add(client);
    }
    const drop = () => this.#drop(client);
    request.raw.on('close', drop);
    response.on('error', drop);
    this.#write(client, `retry: 2000\n\n${first}`);
    if (!this.#keepAlive) {
      this.#keepAlive = setInterval(() => {
        for (const each of this.#clients) this.#write(each, ': keep-alive\n\n');
      }, KEEP_ALIVE_MS);
      this.#keepAlive.unref();
    }
  }

  /** Sends what is pending now (tests, shutdown). */
  flush(): void {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    if (this.#pending.size === 0) return;
    const pending = [...this.#pending];
    this.#pending.clear();
    let all = '';
    for (const [id, change] of pending) {
      const summary = change.state ? sessionSummary(change.state) : null;
      if (summary) all += message('session', summary);
      const followers = this.#bySession.get(id);
      if (!followers?.size) continue;
      let text = '';
      for (const event of change.events) text += message(event.type, { sessionId: id, ...event });
      if (summary)
        text += message('update', { sessionId: id, summary, points: change.points, markers: change.markers });
      for (const client of followers) this.#write(client, text);
    }
    if (all) for (const client of this.#clients) if (client.sessionId === null) this.#write(client, all);
  }

  /** Ends every stream and stops listening to the monitor. */
  close(): void {
    this.flush();
    this.#unsubscribe();
    if (this.#keepAlive) clearInterval(this.#keepAlive);
    for (const client of [...this.#clients]) this.#drop(client);
  }

  #accept(event: MonitorEvent): void {
    if (this.#clients.size === 0) return;
    if (event.type === 'deleted') {
      this.flush();
      const text = message('deleted', { id: event.id, reason: event.reason });
      for (const client of [...this.#clients]) {
        if (client.sessionId === null || client.sessionId === event.id) this.#write(client, text);
        if (client.sessionId === event.id) this.#drop(client);
      }
      return;
    }
    if (event.type === 'compacted') return;
    const pending: Pending = this.#pending.get(event.id) ?? {
      state: null,
      points: [],
      markers: [],
      events: [],
    };
    this.#pending.set(event.id, pending);
    pending.state = event.state;
    if (event.type === 'changed' && this.#bySession.has(event.id)) {
      for (const point of event.points) pending.points.push(point);
      for (const marker of event.markers) pending.markers.push(marker);
      for (const each of event.events) pending.events.push(each);
    }
    if (!this.#timer) {
      this.#timer = setTimeout(() => this.flush(), this.#flushMs);
      this.#timer.unref();
    }
  }

  #write(client: Client, text: string): void {
    const response = client.response;
    if (response.writableEnded || response.destroyed) this.#drop(client);
    // A client that stops reading must not hold the server's memory: past the limit it is dropped.
    else if (response.writableLength > this.#maxBuffered) this.#drop(client, true);
    else response.write(text);
  }

  #drop(client: Client, destroy = false): void {
    if (!this.#clients.delete(client)) return;
    if (client.sessionId !== null) {
      const set = this.#bySession.get(client.sessionId);
      set?.delete(client);
      if (set?.size === 0) this.#bySession.delete(client.sessionId);
    }
    if (!client.response.writableEnded) client.response.end();
    // A client that stopped reading loses its socket too, or its unread bytes would stay in memory.
    if (destroy) client.response.socket?.destroy();
  }
}
