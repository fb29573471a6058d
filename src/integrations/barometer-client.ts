import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { SessionView, UsageAnswer } from '../session/session-schemas.js';

/** Where the service listens unless told otherwise (`--server`, `BAROMETER_URL`). */
export const DEFAULT_SERVER_URL = 'http://127.0.0.1:8797';
/** A request the service has not answered in this time is abandoned. @default 1500 ms */
export const DEFAULT_REQUEST_TIMEOUT_MS = 1500;

/** The service could not be reached (refused, timed out, not HTTP): the agent must carry on regardless. */
export class ServiceUnreachableError extends Error {
  constructor(
    readonly url: string,
    override readonly cause: unknown,
  ) {
    super(
      `barometer service not reachable at ${url}: ${cause instanceof Error ? cause.message : String(cause)}`,
    );
    this.name = 'ServiceUnreachableError';
  }
}

/** The service answered with an error status; `body` is its problem document. */
export class ServiceError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    const detail =
      typeof body === 'object' && body !== null && 'error' in body
        ? String((body as { error: unknown }).error)
        : '';
    super(`barometer service answered ${status}${detail ? `: ${detail}` : ''}`);
    this.name = 'ServiceError';
  }

  /** The machine code of the problem (`BR_ERR_SESSION_NOT_FOUND`, …), when the body has one. */
  get code(): string | undefined {
    const body = this.body;
    return typeof body === 'object' && body !== null && 'code' in body
      ? String((body as { code: unknown }).code)
      : undefined;
  }
}

export interface BarometerClientOptions {
  /** The service's base URL. @default 'http://127.0.0.1:8797' */
  url?: string;
  /** @default 1500 */
  timeoutMs?: number;
  /** Sent as `Authorization: Bearer <key>` to a service that requires API keys. */
  apiKey?: string;
}

/**
 * A small client of barometer's sessions API over `node:http` (no fetch: its first use costs tens of
 * milliseconds, which a hook run on every tool call cannot spare). Every method is one route of
 * docs/sessions-api.md; the service decides, this only carries.
 */
export class BarometerClient {
  readonly url: string;
  readonly #timeoutMs: number;
  readonly #apiKey: string | undefined;

  constructor(options: BarometerClientOptions = {}) {
    this.url = (options.url ?? DEFAULT_SERVER_URL).replace(/\/+$/, '');
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.#apiKey = options.apiKey;
  }

  /** One JSON request; resolves with the status and the parsed body, rejects when the service is unreachable. */
  request(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
    const target = new URL(path, `${this.url}/`);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const outgoing = send(
        target,
        {
          method,
          headers: {
            accept: 'application/json',
            ...(this.#apiKey === undefined ? {} : { authorization: `Bearer ${this.#apiKey}` }),
            ...(payload === undefined
              ? {}
              : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
          },
          timeout: this.#timeoutMs,
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', (error) => reject(new ServiceUnreachableError(this.url, error)));
          response.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown = text;
            try {
              parsed = text === '' ? undefined : JSON.parse(text);
            } catch {
              // Not JSON: keep the text, the caller sees the status.
            }
            resolve({ status: response.statusCode ?? 0, body: parsed });
          });
        },
      );
      outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer within ${this.#timeoutMs} ms`)));
      outgoing.on('error', (error) => reject(new ServiceUnreachableError(this.url, error)));
      outgoing.end(payload);
    });
  }

  async #json(method: string, path: string, body?: unknown): Promise<unknown> {
    const answer = await this.request(method, path, body);
    if (answer.status >= 400) throw new ServiceError(answer.status, answer.body);
    return answer.body;
  }

  /** `GET /api/v1/sessions/:id`, or undefined when there is no such session. */
  async getSession(id: string): Promise<SessionView | undefined> {
    const answer = await this.request('GET', `/api/v1/sessions/${encodeURIComponent(id)}`);
    if (answer.status === 404) return undefined;
    if (answer.status >= 400) throw new ServiceError(answer.status, answer.body);
    return answer.body as SessionView;
  }

  /** `POST /api/v1/sessions` (201), with the options a session is created from. */
  createSession(options: Record<string, unknown>): Promise<SessionView> {
    return this.#json('POST', '/api/v1/sessions', options) as Promise<SessionView>;
  }

  /** `POST /api/v1/sessions/:id/usage` with a usage body (docs/sessions-api.md). */
  postUsage(id: string, body: Record<string, unknown>): Promise<UsageAnswer> {
    return this.#json(
      'POST',
      `/api/v1/sessions/${encodeURIComponent(id)}/usage`,
      body,
    ) as Promise<UsageAnswer>;
  }

  /** `POST /api/v1/sessions/:id/compactions`. */
  recordCompaction(id: string, body: Record<string, unknown>): Promise<unknown> {
    return this.#json('POST', `/api/v1/sessions/${encodeURIComponent(id)}/compactions`, body);
  }
}
