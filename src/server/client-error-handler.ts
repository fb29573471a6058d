import { type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import { ERROR_CATALOGUE, type ErrorCode } from '../errors/error-catalogue.js';

/** A problem body as raw HTTP/1.1 bytes, for the answers given before Fastify sees a request. */
function rawAnswer(code: ErrorCode, error: string): string {
  const status = ERROR_CATALOGUE[code].status;
  const body = JSON.stringify({ error, code });
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
    'content-type: application/json; charset=utf-8\r\n' +
    `content-length: ${Buffer.byteLength(body)}\r\n` +
    'connection: close\r\n\r\n' +
    body
  );
}

/**
 * Fastify's `clientErrorHandler`: what Node's HTTP server hands over when a request cannot become one — its
 * headers and body did not arrive within `requestTimeout` (408), its headers overflow (431), or it is not
 * HTTP (400). Fastify's own answers carry no code; these carry the catalogue's.
 */
export function buildClientErrorHandler(requestTimeoutMs: number, log: () => FastifyBaseLogger) {
  return function handleClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
    // A reset connection has nobody to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    let answer: string;
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      answer = rawAnswer(
        'BR_ERR_REQUEST_TIMEOUT',
        `The request did not arrive whole within ${requestTimeoutMs} ms; the connection is closed`,
      );
    } else if (error.code === 'HPE_HEADER_OVERFLOW') {
      answer = rawAnswer('BR_ERR_HEADERS_TOO_LARGE', ERROR_CATALOGUE.BR_ERR_HEADERS_TOO_LARGE.meaning);
    } else {
      answer = rawAnswer('BR_ERR_BAD_REQUEST', 'The request is not valid HTTP/1.1');
    }
    log().debug({ err: error }, 'client error');
    // As Node's own handler: never write into a response that has already begun.
    const response = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (socket.writable && !response?.headersSent) socket.write(answer);
    socket.destroy(error);
  };
}

/** The answer to a request that arrives while the server closes (Fastify's own carries no code). */
export function answerClosing(response: ServerResponse): void {
  const { status } = ERROR_CATALOGUE.BR_ERR_UNAVAILABLE;
  const body = JSON.stringify({
    error: 'The server is shutting down; retry the request',
    code: 'BR_ERR_UNAVAILABLE',
  });
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  });
  response.end(body);
}
