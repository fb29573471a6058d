import { z } from 'zod';
import {
  SESSION_EVENT_TYPES,
  SessionDeltaSchema,
  SessionEventSchema,
  SessionHealthSchema,
  SessionSignalsSchema,
  SessionSummarySchema,
  TimelineMarkerSchema,
  TimelinePointSchema,
  UsageAnswerSchema,
  VerdictSchema,
} from '../session/session-schemas.js';
import { type ApiRoute, openApiPath } from './route-table.js';

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
  ['TimelinePoint', TimelinePointSchema],
  ['TimelineMarker', TimelineMarkerSchema],
  ['SessionDelta', SessionDeltaSchema],
];

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
    const answers = Object.entries(route.responses).map(
      ([status, response]) =>
        `${status} ${response.schema ? ((response.schema.meta() as { id?: string } | undefined)?.id ?? 'JSON') : response.description}`,
    );
    lines.push(`  Answers: ${answers.join('; ')}.`);
  }
  lines.push('', '### Shapes', '');
  for (const [name, schema] of SHAPES) lines.push(`- **${name}**: ${fieldsOf(schema)}`);
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
