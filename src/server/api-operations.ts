import type { z } from 'zod';
import { SessionOptionsSchema } from '../session/session-options.js';
import { UsageInputSchema } from '../session/usage-input.js';
import type { OpenApiOperation } from './openapi.js';
import {
  CompactRequestSchema,
  DiffCheckSchema,
  EnforceRequestSchema,
  HotStateCheckSchema,
} from './routes/discipline.js';

const id = [{ name: 'id', in: 'path' as const, description: 'The session id' }];
const json = (description: string) => ({ description });

/**
 * The /api/v1 operations besides the pressure endpoint, with the zod schemas their routes validate with.
 * Response bodies are documented in docs/sessions-api.md; their shapes are TypeScript types of the library.
 */
export const API_OPERATIONS: OpenApiOperation[] = [
  {
    path: '/api/v1/sessions',
    method: 'post',
    summary: 'Create a monitored session for a model (and agent, limits, budget)',
    requestBody: SessionOptionsSchema,
    responses: { '201': json('The session view'), '409': json('A session with that id exists') },
  },
  {
    path: '/api/v1/sessions',
    method: 'get',
    summary: 'List sessions, most recently updated first',
    responses: { '200': json('{ sessions: [view] }') },
  },
  {
    path: '/api/v1/sessions/{id}',
    method: 'get',
    summary: 'Read a session view',
    parameters: id,
    responses: { '200': json('The session view'), '404': json('No such session') },
  },
  {
    path: '/api/v1/sessions/{id}',
    method: 'delete',
    summary: 'Delete a session',
    parameters: id,
    responses: { '204': json('Deleted'), '404': json('No such session') },
  },
  {
    path: '/api/v1/sessions/{id}/usage',
    method: 'post',
    summary: "Post one generation's usage (normalized, or a raw provider response) and get the verdict",
    parameters: id,
    requestBody: UsageInputSchema,
    responses: {
      '200': json('{ verdict, health, signals, regulator, trigger, events, session }'),
      '404': json('No such session'),
    },
  },
  {
    path: '/api/v1/sessions/{id}/events',
    method: 'get',
    summary: 'Server-sent events of one session',
    parameters: id,
    responses: { '200': json('text/event-stream') },
  },
  {
    path: '/api/v1/events',
    method: 'get',
    summary: 'Server-sent events of every session',
    responses: { '200': json('text/event-stream') },
  },
  {
    path: '/api/v1/replay',
    method: 'post',
    summary:
      'Replay a recorded agent session log (body: the log as text); query: format, model, contextWindow',
    parameters: [
      { name: 'format', in: 'query', description: 'auto | claude-code | codex | gemini-cli | openhands' },
      { name: 'model', in: 'query', description: "Overrides the log's model" },
      { name: 'contextWindow', in: 'query', description: 'Overrides the window, in tokens' },
    ],
    responses: { '200': json('{ format, model, contextWindow, calls, compactions, summary }') },
  },
  {
    path: '/api/v1/samples',
    method: 'get',
    summary: 'The bundled sample sessions',
    responses: { '200': json('{ samples }') },
  },
  {
    path: '/api/v1/samples/{name}/load',
    method: 'post',
    summary: 'Load a bundled sample into a new live session',
    parameters: [{ name: 'name', in: 'path' }],
    responses: { '201': json('The session view'), '404': json('No such sample') },
  },
  {
    path: '/api/v1/hot-state/check',
    method: 'post',
    summary: 'Validate a hot state, cap it to a token budget, and check the prompt budgets',
    requestBody: HotStateCheckSchema,
    responses: { '200': json('{ capped, budgets }') },
  },
  {
    path: '/api/v1/hot-state/enforce',
    method: 'post',
    summary:
      'Run the budgeter on a hot state: pass, compress, reference (lists stored as artifacts) or reject',
    requestBody: EnforceRequestSchema,
    responses: { '200': json('The decision') },
  },
  {
    path: '/api/v1/diff/check',
    method: 'post',
    summary: 'Check that an output is diff-only (unified diff or JSON Patch)',
    requestBody: DiffCheckSchema,
    responses: { '200': json('{ ok, kind, reasons, ... }') },
  },
  {
    path: '/api/v1/compact',
    method: 'post',
    summary: 'Compact an OpenAI chat history: recap and flush, archiving what it replaces',
    requestBody: CompactRequestSchema,
    responses: {
      '200': json('{ before, after, archives, messages, counter }'),
      '422': json('Refused: the result would not be smaller'),
    },
  },
  {
    path: '/api/v1/archives/{session}/{task}',
    method: 'get',
    summary: 'Read an archive (records), or one item exactly with ?item=ID',
    parameters: [
      { name: 'session', in: 'path' },
      { name: 'task', in: 'path' },
      {
        name: 'item',
        in: 'query',
        description: 'One item id: its archived content, byte for byte, as text/plain',
      },
    ],
    responses: {
      '200': json('{ sessionId, taskId, records } or the item'),
      '404': json('No such archive or item'),
    },
  },
  {
    path: '/api/v1/artifacts/{id}',
    method: 'get',
    summary: 'Read a stored artifact by its sha256 id',
    parameters: [{ name: 'id', in: 'path' }],
    responses: { '200': json('The artifact bytes'), '404': json('No such artifact') },
  },
];

/** Every schema above must convert: a test walks this list. */
export const API_REQUEST_SCHEMAS: z.ZodType[] = API_OPERATIONS.flatMap((operation) =>
  operation.requestBody ? [operation.requestBody] : [],
);
