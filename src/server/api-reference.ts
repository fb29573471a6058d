import * as z from 'zod';
import { ArchiveAnswerSchema, ArchiveRecordSchema } from '../contract/archives.js';
import { CompactAnswerSchema } from '../contract/compact.js';
import { DiffOnlyResultSchema, HotStateCheckAnswerSchema } from '../contract/discipline.js';
import { ProblemSchema } from '../contract/problem.js';
import { ReplayCallSchema, ReplayResultSchema, WhatIfSummarySchema } from '../contract/replay.js';
import {
  EvictedSchema,
  EvictionSavingsSchema,
  ProxyStatusSchema,
  SESSION_EVENT_TYPES,
  SessionDeltaSchema,
  SessionEventSchema,
  SessionHealthSchema,
  SessionSignalsSchema,
  SessionSummarySchema,
  SessionTotalsSchema,
  SubAgentsAnswerSchema,
  TimelineMarkerSchema,
  TimelinePointSchema,
  UsageAnswerSchema,
  VerdictSchema,
} from '../contract/sessions.js';
import { DeliverySchema, WebhookViewSchema } from '../contract/webhooks.js';
import {
  type ApiRoute,
  type ErrorResponse,
  openApiPath,
  responseSchema,
  type SuccessResponse,
} from '../http/route-table.js';

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  $ref?: string;
};

function typeText(schema: JsonSchema | undefined): string {
  if (!schema) return 'any';
  if (schema.$ref) return schema.$ref.split('/').at(-1) ?? 'object';
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((value) => JSON.stringify(value)).join(' \\| ');
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) return branches.map(typeText).join(' \\| ');
  if (schema.type === 'array') return `${typeText(schema.items)}[]`;
  if (Array.isArray(schema.type)) return schema.type.join(' \\| ');
  return schema.type ?? 'any';
}

function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  return z.toJSONSchema(schema, { target: 'draft-7', unrepresentable: 'any', io: 'input' }) as JsonSchema;
}

function fieldsOf(schema: z.ZodType): string {
  const json = jsonSchemaOf(schema);
  const properties = json.properties ?? {};
  const required = new Set(json.required ?? []);
  return Object.entries(properties)
    .map(([name, property]) => `\`${name}\`${required.has(name) ? '' : '?'}: ${typeText(property)}`)
    .join(', ');
}

/** Shapes the routes answer with, listed field by field. */
const SHAPES: ReadonlyArray<[string, z.ZodType]> = [
  ['UsageAnswer', UsageAnswerSchema],
  ['Verdict', VerdictSchema],
  ['SessionHealth', SessionHealthSchema],
  ['SessionSignals', SessionSignalsSchema],
  ['SessionSummary', SessionSummarySchema],
  ['ProxyStatus', ProxyStatusSchema],
  ['SessionTotals', SessionTotalsSchema],
  ['SubAgentsAnswer', SubAgentsAnswerSchema],
  ['TimelinePoint', TimelinePointSchema],
  ['TimelineMarker', TimelineMarkerSchema],
  ['Evicted', EvictedSchema],
  ['EvictionSavings', EvictionSavingsSchema],
  ['SessionDelta', SessionDeltaSchema],
  ['ReplayResult', ReplayResultSchema],
  ['ReplayCall', ReplayCallSchema],
  ['WhatIfSummary', WhatIfSummarySchema],
  ['CompactAnswer', CompactAnswerSchema],
  ['ArchiveAnswer', ArchiveAnswerSchema],
  ['ArchiveRecord', ArchiveRecordSchema],
  ['HotStateCheckAnswer', HotStateCheckAnswerSchema],
  ['DiffOnlyResult', DiffOnlyResultSchema],
  ['WebhookView', WebhookViewSchema],
  ['Delivery', DeliverySchema],
  ['Problem', ProblemSchema],
];

/** How a route's answer is named in the reference: its schema's id, its content type, or its description. */
function answerText(response: SuccessResponse | ErrorResponse): string {
  const schema = responseSchema(response);
  if (schema) {
    const id = (schema.meta() as { id?: string } | undefined)?.id;
    const alternative = 'alternativeContentType' in response ? response.alternativeContentType : undefined;
    return `${id ?? 'JSON'}${alternative ? ` (or ${alternative})` : ''}`;
  }
  if ('contentType' in response) return response.contentType;
  return response.description;
}

/**
 * The reference part of docs/sessions-api.md, generated from the route table and the zod schemas so that the
 * document cannot miss a route, a field or an event type (`npm run docs:api` writes it; a test compares).
 */
export function apiReference(routes: readonly ApiRoute[]): string {
  const lines: string[] = ['## Reference (generated from the route table and the schemas)', ''];
  lines.push('### Routes', '');
  for (const route of routes) {
    lines.push(`- \`${route.method} ${openApiPath(route.url)}\`: ${route.summary}.`);
    if (route.body) lines.push(`  Body: ${fieldsOf(route.body) || 'see the OpenAPI document'}.`);
    if (route.textBody) lines.push(`  Body: ${route.textBody}.`);
    const answers = (Object.entries(route.responses) as Array<[string, SuccessResponse | ErrorResponse]>).map(
      ([status, response]) => `${status} ${answerText(response)}`,
    );
    lines.push(`  Answers: ${answers.join('; ')}.`);
  }
  lines.push('', '### Shapes', '');
  for (const [name, schema] of SHAPES) lines.push(`- **${name}**: ${fieldsOf(schema)}`);
  lines.push(
    '',
    'Every time in an answer is an ISO 8601 string (`at`, `timestamp`, `…At`), on every route, stream and tool;',
    'a request may give a time as ISO 8601 or epoch milliseconds.',
  );
  lines.push('', '### Event-stream messages', '');
  lines.push(
    "- `session` (a session stream's first message): a SessionView. `sessions` (the all-sessions stream's first message): `{ sessions: SessionSummary[] }`.",
    '- `update` (a session stream, after each change): a SessionDelta. `session` (the all-sessions stream, after each change): a SessionSummary.',
    '- `deleted`: `{ id, reason: "deleted" | "expired" }`.',
  );
  for (const option of SessionEventSchema.options) {
    const type = option.shape.type.value;
    lines.push(`- \`${type}\` (a session stream, data \`{ sessionId, ...event }\`): ${fieldsOf(option)}`);
  }
  lines.push('', `Event types: ${SESSION_EVENT_TYPES.map((type) => `\`${type}\``).join(', ')}.`);
  return lines.join('\n');
}
