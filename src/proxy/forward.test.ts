import { describe, expect, it } from 'vitest';
import { downstreamHeaders, upstreamHeaders } from './forward.js';

describe('hop-by-hop headers (RFC 9110 §7.6.1)', () => {
  it('drops the headers an agent’s Connection header names, and the hop-by-hop ones, going upstream', () => {
    const out = upstreamHeaders({
      connection: 'keep-alive, X-Agent-Hop',
      'x-agent-hop': 'for the proxy only',
      'keep-alive': 'timeout=5',
      te: 'trailers',
      'transfer-encoding': 'chunked',
      host: '127.0.0.1:8797',
      'x-api-key': 'sk-test',
      'x-barometer-session': 's1',
    });
    expect(out).toEqual({ 'x-api-key': 'sk-test', 'accept-encoding': 'identity' });
  });

  it('drops the headers named by every one of an upstream’s repeated Connection headers (undici gives an array)', () => {
    const out = downstreamHeaders({
      connection: ['keep-alive', 'x-first-hop'],
      'x-first-hop': 'a',
      'x-second-hop': 'b',
      'content-type': 'text/event-stream',
    } as never);
    expect(out).toEqual({ 'x-second-hop': 'b', 'content-type': 'text/event-stream' });
  });
});
