import type { FastifyInstance } from 'fastify';
import { evaluateResolved } from '../../pressure/evaluate.js';
import { NUMERIC_PARAMETER_NAMES, NUMERIC_PARAMETERS } from '../../pressure/parameters.js';
import { parsePressureInput } from '../../pressure/parse.js';
import { sendInvalid } from '../problem.js';

const exampleQuery = [
  ...NUMERIC_PARAMETER_NAMES.map((name) => `${name}=${NUMERIC_PARAMETERS[name].default}`),
  'systemMode=production',
  'agentProfile=balanced',
].join('&');
/** Shown in every 400 of this route so that a caller sees a request that works. */
export const PRESSURE_GET_EXAMPLE = `/api/v1/pressure?${exampleQuery}`;
export const PRESSURE_POST_EXAMPLE = `POST /api/v1/pressure ${JSON.stringify({
  memoryUsedPercent: 72,
  tokenBurnRatePerMin: 55,
  contextDriftPercent: 68,
  tokenBudgetTotal: 100000,
  tokenBudgetUsed: 62000,
  systemMode: 'production',
})}`;

/** `GET|POST /api/v1/pressure`: seed 000's regulator, stateless. */
export function registerPressureRoutes(api: FastifyInstance, context: { now: () => number }): void {
  api.get('/pressure', { config: { evaluation: true } }, async (request, reply) => {
    const parsed = parsePressureInput(request.query, 'text');
    if (!parsed.ok) return sendInvalid(reply, parsed.issues, PRESSURE_GET_EXAMPLE);
    return evaluateResolved(parsed.value, { now: context.now() });
  });
  api.post('/pressure', { config: { evaluation: true } }, async (request, reply) => {
    const parsed = parsePressureInput(request.body ?? {}, 'body');
    if (!parsed.ok) return sendInvalid(reply, parsed.issues, PRESSURE_POST_EXAMPLE);
    return evaluateResolved(parsed.value, { now: context.now() });
  });
}
