import { describe, expect, it } from 'vitest';
import { describeEvent, eventTime } from './event-text.js';

describe('describeEvent', () => {
  it('shows a level change as from → to', () => {
    expect(describeEvent('level_changed', { sessionId: 's1', from: 'healthy', to: 'caution' })).toBe(
      'Health level changed: healthy → caution',
    );
  });

  it('quotes the reminder text after the other fields', () => {
    expect(
      describeEvent('reminder_added', { sessionId: 's1', id: 'context_health', text: 'Clear your mind' }),
    ).toBe('Reminder added: id context_health, “Clear your mind”');
  });

  it('lists scalar fields and skips nested ones', () => {
    expect(describeEvent('countdown', { sessionId: 's1', remaining: 3, detail: { a: 1 } })).toBe(
      'Countdown: remaining 3',
    );
  });

  it('leaves out the event time, which the list shows on its own', () => {
    expect(
      describeEvent('verdict_changed', {
        sessionId: 's1',
        at: '2026-01-01T00:00:00.000Z',
        from: 'continue',
        to: 'compress',
      }),
    ).toBe('Verdict changed: continue → compress');
  });

  it('falls back to the event name', () => {
    expect(describeEvent('forced_new_round', { sessionId: 's1' })).toBe('Forced new round');
    expect(describeEvent('something_new', null)).toBe('something_new');
  });
});

describe('eventTime', () => {
  it("takes the event's own ISO 8601 time, else the time it was received", () => {
    const received = '2026-01-01T00:00:09.000Z';
    expect(eventTime({ type: 'countdown', at: '2026-01-01T00:00:01.500Z' }, received)).toBe(
      '2026-01-01T00:00:01.500Z',
    );
    expect(eventTime({ type: 'countdown' }, received)).toBe(received);
    expect(eventTime({ at: 'yesterday' }, received)).toBe(received);
    expect(eventTime(null, received)).toBe(received);
  });
});
