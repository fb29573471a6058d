import { describe, expect, it } from 'vitest';
import { formatClock } from './format.js';
import { proxyNote } from './proxy-text.js';

const since = '2026-11-22T12:30:00.000Z';
const until = '2026-11-22T12:34:00.000Z';
const pause = { stage: 'record' as const, code: 'BR_ERR_STORE_UNAVAILABLE', message: 'Redis is away', since };

describe('proxyNote', () => {
  it('says nothing of a session no proxy has seen', () => {
    expect(proxyNote(null)).toBeNull();
  });

  it('says an observed session goes to the provider as sent', () => {
    expect(proxyNote({ mode: 'observe', acting: false, pause: null })).toEqual({
      warning: false,
      text: "Observed through barometer's proxy: every request goes to the provider as the agent sent it.",
    });
  });

  it('warns while the proxy passes the requests on unedited, naming the stage and the error', () => {
    const note = proxyNote({ mode: 'act', acting: false, pause: { ...pause, until: null } });
    expect(note?.warning).toBe(true);
    expect(note?.text).toBe(
      `barometer's proxy sends this session's requests with no new edits since ${formatClock(since)}: recording an answer failed (BR_ERR_STORE_UNAVAILABLE: Redis is away). It acts again once recording works.`,
    );
  });

  it('says when an acting proxy last paused, and why', () => {
    const note = proxyNote({
      mode: 'act',
      acting: true,
      pause: { ...pause, stage: 'session', code: null, message: 'full', until },
    });
    expect(note?.warning).toBe(false);
    expect(note?.text).toMatch(/^barometer's proxy acts on this session: /);
    expect(note?.text).toContain(
      `From ${formatClock(since)} to ${formatClock(until)} it sent the requests with no new edits: creating the session failed (full).`,
    );
  });
});
