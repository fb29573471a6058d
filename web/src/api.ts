import type {
  ApiProblem,
  ArchiveAnswer,
  PressureReport,
  ReplayResult,
  ReportResult,
  SampleInfo,
  SessionView,
  SubAgentsAnswer,
} from '../../src/contract/index.js';

/** A non-2xx answer of the API, with its problem body when it had one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: ApiProblem | null,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

const API = '/api/v1';

/** Where the dashboard keeps the API key a protected service asked for (this tab only). */
const KEY_STORAGE = 'barometer-api-key';
/** Listeners told when the service answers 401: the shell then asks for a key. */
const unauthorizedListeners = new Set<() => void>();

export function apiKey(): string | null {
  try {
    return window.sessionStorage.getItem(KEY_STORAGE);
  } catch {
    return null;
  }
}

export function setApiKey(key: string | null): void {
  try {
    if (key === null) window.sessionStorage.removeItem(KEY_STORAGE);
    else window.sessionStorage.setItem(KEY_STORAGE, key);
  } catch {
    // Storage refused (private mode): the key lasts until the page is left.
  }
}

/** Called whenever the API answers 401; returns the unsubscribe function. */
export function onUnauthorized(listener: () => void): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

/** Retries of a request the server answered 429 (nothing of it was applied, so a retry is safe). */
export const MAX_RATE_LIMIT_RETRIES = 3;
/** The longest wait the dashboard accepts before giving up and showing the error. */
const MAX_RETRY_WAIT_MS = 30_000;

/**
 * How long to wait before retrying a 429: the server's `Retry-After` (seconds, or an HTTP date), else one second
 * doubled per attempt; undefined when the wait is too long to be worth it.
 */
export function retryDelayMs(
  retryAfter: string | null,
  attempt: number,
  now = Date.now(),
): number | undefined {
  let ms = 1000 * 2 ** attempt;
  if (retryAfter !== null && retryAfter.trim() !== '') {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds)) ms = seconds * 1000;
    else {
      const at = Date.parse(retryAfter);
      if (Number.isFinite(at)) ms = at - now;
    }
  }
  ms = Math.max(0, ms);
  return ms > MAX_RETRY_WAIT_MS ? undefined : ms;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function request<T>(path: string, init: RequestInit = {}): Promise<T> {
  let response: Response;
  for (let attempt = 0; ; attempt++) {
    try {
      const key = apiKey();
      response = await fetch(path, {
        ...init,
        headers: {
          accept: 'application/json',
          ...(key ? { authorization: `Bearer ${key}` } : {}),
          ...init.headers,
        },
      });
    } catch (error) {
      throw new ApiError(0, null, `The barometer server did not answer (${(error as Error).message})`);
    }
    if (response.status !== 429 || attempt >= MAX_RATE_LIMIT_RETRIES) break;
    const wait = retryDelayMs(response.headers.get('retry-after'), attempt);
    if (wait === undefined) break;
    await sleep(wait);
  }
  if (response.status === 401) for (const listener of unauthorizedListeners) listener();
  const text = await response.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (!response.ok) {
    const problem = isProblem(body) ? body : null;
    throw new ApiError(
      response.status,
      problem,
      problem?.error ?? `${init.method ?? 'GET'} ${path} failed with HTTP ${response.status}`,
    );
  }
  return body as T;
}

function isProblem(body: unknown): body is ApiProblem {
  return typeof body === 'object' && body !== null && typeof (body as ApiProblem).error === 'string';
}

const json = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

export const api = {
  /** One page of the sessions (100, in id order); `nextCursor` fetches the next, null after the last. */
  listSessions: (cursor?: string | null) =>
    request<{ sessions: SessionView[]; nextCursor: string | null }>(
      `${API}/sessions?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    ),
  getSession: (id: string) => request<SessionView>(`${API}/sessions/${encodeURIComponent(id)}`),
  /** A session's sub-agents and its totals with them. */
  getSubAgents: (id: string) =>
    request<SubAgentsAnswer>(`${API}/sessions/${encodeURIComponent(id)}/sub-agents`),
  /** The originals an eviction archived (`<session>/<task>`), every whole record. */
  getArchive: (sessionId: string, taskId: string) =>
    request<ArchiveAnswer>(`${API}/archives/${encodeURIComponent(sessionId)}/${encodeURIComponent(taskId)}`),
  listSamples: async () => (await request<{ samples: SampleInfo[] }>(`${API}/samples`)).samples,
  loadSample: (name: string) =>
    request<SessionView>(`${API}/samples/${encodeURIComponent(name)}/load`, { method: 'POST' }),
  evaluatePressure: (input: Record<string, number | string>) =>
    request<PressureReport>(`${API}/pressure`, json(input)),
  /** Uploads a recorded log as text; the server detects its format unless one is given. */
  replay: (
    text: string,
    options: {
      format?: string;
      model?: string;
      contextWindow?: number;
      whatIf?: boolean;
      policy?: string;
    } = {},
  ) => {
    const query = new URLSearchParams({ format: options.format || 'auto' });
    if (options.model) query.set('model', options.model);
    if (options.contextWindow) query.set('contextWindow', String(options.contextWindow));
    if (options.whatIf) query.set('whatIf', 'true');
    if (options.whatIf && options.policy) query.set('policy', options.policy);
    return request<ReplayResult>(`${API}/replay?${query}`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: text,
    });
  },
  /** The report over the agents' logs on the service's machine (`barometer report --json`). */
  report: (query: { view?: string; since?: string; until?: string; project?: string; agent?: string }) => {
    const parameters = new URLSearchParams(
      Object.entries(query).filter((entry): entry is [string, string] => Boolean(entry[1])),
    );
    return request<ReportResult>(`${API}/report?${parameters}`);
  },
  /** The service's OpenAPI document: the regulator form reads its inputs and defaults from it. */
  openApi: () => request<Record<string, unknown>>('/openapi.json'),
};

/** The URL of a server-sent event stream: every session, or one. */
export function eventsUrl(sessionId?: string): string {
  const url =
    sessionId === undefined ? `${API}/events` : `${API}/sessions/${encodeURIComponent(sessionId)}/events`;
  // EventSource cannot send headers: the streams take the key as access_token.
  const key = apiKey();
  return key ? `${url}?access_token=${encodeURIComponent(key)}` : url;
}
