import * as z from 'zod';
import {
  AGENT_PROFILES,
  ENUM_PARAMETERS,
  NUMERIC_PARAMETER_NAMES,
  NUMERIC_PARAMETERS,
  type NumericParameterName,
  SYSTEM_MODES,
} from './parameters.js';

function numberSchema(name: NumericParameterName) {
  const spec = NUMERIC_PARAMETERS[name];
  const range = spec.max === undefined ? `≥ ${spec.min}` : `from ${spec.min} to ${spec.max}`;
  let schema = z.number({ error: `must be a number ${range}` }).min(spec.min, `must be ${range}`);
  if (spec.max !== undefined) schema = schema.max(spec.max, `must be ${range}`);
  return schema.meta({ description: spec.description, default: spec.default });
}

/** Query-string values arrive as text: accept plain decimal numbers only, so '' or '12abc' is an error. */
const NUMERIC_TEXT = /^\s*-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$/;
function fromQueryText(value: unknown): unknown {
  return typeof value === 'string' && NUMERIC_TEXT.test(value) ? Number(value) : value;
}

const numericShape = Object.fromEntries(
  NUMERIC_PARAMETER_NAMES.map((name) => [name, numberSchema(name).optional()]),
) as {
  [K in NumericParameterName]: z.ZodOptional<z.ZodNumber>;
};

export const SystemModeSchema = z
  .enum(SYSTEM_MODES, { error: `must be one of ${SYSTEM_MODES.join(', ')}` })
  .meta({ description: ENUM_PARAMETERS.systemMode.description, default: ENUM_PARAMETERS.systemMode.default });
export const AgentProfileSchema = z
  .enum(AGENT_PROFILES, { error: `must be one of ${AGENT_PROFILES.join(', ')}` })
  .meta({
    description: ENUM_PARAMETERS.agentProfile.description,
    default: ENUM_PARAMETERS.agentProfile.default,
  });

/** The regulator's input as a JSON body: numbers must be numbers, unknown keys are rejected. */
export const PressureInputSchema = z
  .strictObject({
    ...numericShape,
    systemMode: SystemModeSchema.optional(),
    agentProfile: AgentProfileSchema.optional(),
  })
  .meta({ description: 'Inputs of the context-pressure regulator' });

/** The same input as a query string: numeric text becomes a number, a repeated parameter is an error. */
export const PressureQuerySchema = z.strictObject({
  ...(Object.fromEntries(
    NUMERIC_PARAMETER_NAMES.map((name) => [name, z.preprocess(fromQueryText, numberSchema(name)).optional()]),
  ) as { [K in NumericParameterName]: z.ZodOptional<z.ZodPipe<z.ZodTransform, z.ZodNumber>> }),
  systemMode: SystemModeSchema.optional(),
  agentProfile: AgentProfileSchema.optional(),
});

export const PressureLevelSchema = z.enum(['LOW', 'MODERATE', 'HIGH', 'CRITICAL']);
export const PrioritySchema = z.enum(['urgent', 'high', 'normal', 'low']);
export const SuggestedActionSchema = z.enum(['continue', 'optimize', 'compress', 'terminate']);
export const ThresholdCodeSchema = z.enum([
  'memory_warning',
  'memory_critical',
  'token_budget_10_percent',
  'token_budget_5_percent',
  'elevated_drift',
  'drift_critical',
  'session_too_long',
  'eol_approaching',
]);

export const PressureRecommendationsSchema = z.strictObject({
  shouldCompress: z.boolean(),
  shouldOptimize: z.boolean(),
  shouldTerminate: z.boolean(),
  priority: PrioritySchema,
});

export const PressureAssessmentSchema = z.strictObject({
  level: PressureLevelSchema,
  sessionViability: z.number().int().min(0).max(100),
  memoryPressure: z.number().int().min(0).max(100),
  tokenBurnRate: z.number().int().min(0).max(100),
  contextDrift: z.number().int().min(0).max(100),
  estimatedTokensRemaining: z.number().int().min(0).nullable(),
  estimatedMinutesRemaining: z.number().min(0).nullable(),
  burnRateAcceleration: z.number().min(0),
  recommendations: PressureRecommendationsSchema,
  thresholdsExceeded: z.array(ThresholdCodeSchema),
  suggestedAction: SuggestedActionSchema,
});

/** The body of a 200 answer from `/api/v1/pressure`. */
export const PressureReportSchema = z
  .strictObject({
    timestamp: z.string(),
    pressure: PressureAssessmentSchema,
    metadata: z.strictObject({ systemMode: SystemModeSchema, agentProfile: AgentProfileSchema }),
  })
  .meta({ description: 'The pressure report: the body of a 200 answer' });
