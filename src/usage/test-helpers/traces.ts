import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/** test/fixtures/traces of the repository (see its SOURCES.md), resolved from src/usage/test-helpers/. */
export const TRACES = new URL('../../../test/fixtures/traces/', import.meta.url);

export function readTrace(path: string): string {
  return readFileSync(new URL(path, TRACES), 'utf8');
}

/** One recorded HTTP exchange of a cassette: the request URI and the response as recorded. */
export interface RecordedResponse {
  uri: string;
  /** `parsed_body` when the cassette kept the JSON, else the raw `body.string` (SSE text). */
  body: unknown;
  /** The recorded status code. */
  status: number;
  /** The recorded response headers, names lower-cased, the first value of each. */
  headers: Record<string, string>;
}

interface CassetteInteraction {
  request: { uri: string };
  response: {
    parsed_body?: unknown;
    body?: { string: string };
    status?: { code?: number };
    headers?: Record<string, string[]>;
  };
}

/** The responses of an api-cassettes/*.yaml recording, in order. */
export function loadCassette(name: string): RecordedResponse[] {
  const cassette = parse(readTrace(`api-cassettes/${name}`)) as { interactions: CassetteInteraction[] };
  return cassette.interactions.map(({ request, response }) => ({
    uri: request.uri,
    body: response.parsed_body ?? response.body?.string,
    status: response.status?.code ?? 200,
    headers: Object.fromEntries(
      Object.entries(response.headers ?? {}).map(([name, values]) => [name.toLowerCase(), String(values[0])]),
    ),
  }));
}
