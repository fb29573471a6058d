import type { FastifyReply, FastifyRequest } from 'fastify';

/** A client that lets this much pile up unread is dropped; its EventSource reconnects and starts afresh. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

/** Keep-alive comments stop proxies and browsers from closing an idle stream. */
const KEEP_ALIVE_MS = 15_000;

export interface EventStream {
  send(event: string, data: unknown): void;
  close(): void;
}

/**
 * Turns a request into a server-sent event stream: takes over the socket from Fastify, writes each event as
 * `event:`/`data:` lines, and calls `onClose` once when the client goes away or the server closes.
 */
export function openEventStream(
  request: FastifyRequest,
  reply: FastifyReply,
  onClose: () => void,
): EventStream {
  reply.hijack();
  const response = reply.raw;
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  response.write('retry: 2000\n\n');
  let closed = false;
  const keepAlive = setInterval(() => response.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
  keepAlive.unref();
  const close = () => {
    if (closed) return;
    closed = true;
    clearInterval(keepAlive);
    onClose();
    if (!response.writableEnded) response.end();
  };
  request.raw.on('close', close);
  response.on('error', close);
  return {
    send(event, data) {
      if (closed) return;
      if (response.writableLength > MAX_BUFFERED_BYTES) {
        close();
        return;
      }
      response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    },
    close,
  };
}
