import { Ajv, type ValidateFunction } from 'ajv';
import * as z from 'zod';
import { type AllowedRange, parseWith, type Result } from './validation.js';

/**
 * A boundary's validator, compiled from its zod schema: `parse` answers a value that satisfies the schema, or the
 * issues (field, value, allowed range) in barometer's words. `schema` is the one source, kept for the documents
 * (OpenAPI, MCP tool schemas) built from it.
 */
export interface CompiledValidator<T> {
  readonly schema: z.ZodType<T>;
  /** Whether a value that passes is checked by the JSON Schema compiled from the schema (else by zod itself). */
  readonly compiled: boolean;
  parse(input: unknown): Result<T>;
  /** Whether a value satisfies the schema, without building an issue (for hot paths). */
  accepts(input: unknown): boolean;
}

/**
 * Fastify's own validator (ajv 8, the version @fastify/ajv-compiler uses), set to read as zod reads: string lengths
 * in code points (ajv's default, as zod counts them), patterns as JavaScript regular expressions without the `u`
 * flag, formats left to the patterns zod writes beside them, nothing coerced.
 */
const AJV_OPTIONS = {
  strict: false,
  unicodeRegExp: false,
  validateFormats: false,
  coerceTypes: false,
} as const;
/** Made on the first compilation, so that importing a boundary's module costs nothing. */
let ajv: Ajv | undefined;

/** Thrown by the JSON Schema conversion's override at a rule JSON Schema cannot hold. */
class InexactSchema extends Error {}

/** The zod types whose parse answers something else than its input, or runs code: no JSON Schema says the same. */
const INEXACT_TYPES: ReadonlySet<string> = new Set([
  // zod merges the two sides of an intersection; JSON Schema's allOf checks each, additionalProperties and all.
  'intersection',
  'transform',
  'pipe',
  'prefault',
  'catch',
  'custom',
  'lazy',
  'promise',
  'function',
]);

/** The schemas whose one refinement JSON Schema holds too (see {@link maxKeys}). */
const STATED_REFINEMENTS = new WeakSet<object>();

/**
 * A record of at most `max` keys: zod's refinement and JSON Schema's `maxProperties`, from the one figure, so that
 * the record still compiles (a bare refinement would make its whole schema fall back to zod).
 */
export function maxKeys<T extends z.ZodRecord>(record: T, max: number, message: string): T {
  const refined = record.refine((value) => Object.keys(value).length <= max, message);
  const limited = refined.meta({ maxProperties: max });
  // The conversion visits the refined schema too, as the parent of the one that carries the keyword.
  STATED_REFINEMENTS.add(refined);
  STATED_REFINEMENTS.add(limited);
  return limited as unknown as T;
}

/** What the conversion reads of a zod type's definition, or of one of its checks. */
interface ZodDef {
  type: string;
  check?: string;
  format?: string;
  pattern?: RegExp;
  catchall?: unknown;
  keyType?: { _zod: { def: { type: string } } };
  checks?: Array<{ _zod: { def: ZodDef } }>;
}

/**
 * Whether JSON Schema holds a check as zod runs it. A refinement is code, which the conversion drops silently (unless
 * its schema states it as a keyword too: {@link maxKeys}); a
 * string format is its pattern, when it has one without flags (ajv's formats are not zod's: they are not run).
 */
function isExactCheck(def: ZodDef, refinementStated: boolean): boolean {
  if (def.check === 'custom') return refinementStated;
  // zod's remainder allows for floating point; ajv's division does not (0.3 is a multiple of 0.1 for zod only).
  if (def.check === 'multiple_of') return false;
  if (def.check !== 'string_format') return true;
  if (def.format === 'base64' || def.format === 'base64url') return false;
  return def.pattern !== undefined && def.pattern.flags === '';
}

interface ExactSchema {
  jsonSchema: Record<string, unknown>;
  /** The defaults of the root object's properties (filled on a copy, never on the caller's object). */
  rootDefaults: Array<[key: string, value: string | number | boolean | null]>;
}

/**
 * The JSON Schema of a zod schema when it says exactly what the schema accepts and the parse returns its input
 * (no refinement, transform or nested default), else undefined.
 */
function exactJsonSchema(schema: z.ZodType): ExactSchema | undefined {
  const rootDefaults: ExactSchema['rootDefaults'] = [];
  try {
    const { $schema: _ignored, ...jsonSchema } = z.toJSONSchema(schema, {
      target: 'draft-07',
      io: 'input',
      unrepresentable: 'throw',
      override: ({ zodSchema, jsonSchema, path }) => {
        const def = zodSchema._zod.def as ZodDef;
        // zod's number is finite; JSON Schema's is any number, Infinity included (a library caller can pass one).
        if (def.type === 'number') {
          jsonSchema.maximum ??= Number.MAX_VALUE;
          jsonSchema.minimum ??= -Number.MAX_VALUE;
        }
        const checks = [...(def.checks ?? []), ...('check' in def ? [{ _zod: { def } }] : [])];
        const stated = STATED_REFINEMENTS.has(zodSchema);
        if (!checks.every((check) => isExactCheck(check._zod.def, stated))) throw new InexactSchema();
        if (INEXACT_TYPES.has(def.type)) throw new InexactSchema();
        // A plain z.object drops unknown keys from its answer: the compiled check would answer them.
        if (def.type === 'object' && def.catchall === undefined) throw new InexactSchema();
        // A record keyed by an enum or a literal wants every key (zod's exhaustive record); by a string, any key.
        if (def.type === 'record' && def.keyType?._zod.def.type !== 'string') throw new InexactSchema();
        if (def.type === 'default') {
          const key = path[1];
          const value = jsonSchema.default;
          // Only a plain value at the root's own properties: one shared object would be every answer's.
          if (path.length !== 2 || path[0] !== 'properties' || typeof key !== 'string')
            throw new InexactSchema();
          if (value !== null && typeof value === 'object') throw new InexactSchema();
          if (!rootDefaults.some(([known]) => known === key))
            rootDefaults.push([key, value as string | number | boolean | null]);
        }
      },
    }) as Record<string, unknown>;
    return { jsonSchema, rootDefaults };
  } catch {
    return undefined;
  }
}

/**
 * Compiles a zod schema into the validator of a boundary. Where the schema converts exactly to JSON Schema, a value
 * is accepted by ajv's compiled check (a tenth of zod's cost on the pressure body: decision 104); a value it refuses,
 * and every value of a schema that does not convert exactly, goes through zod, which words the issues. The rule is
 * written once, in the schema.
 * @example
 * const validator = compileValidator(PressureInputSchema, pressureParameterRange);
 * validator.parse({ memoryUsedPercent: 120 }) // { ok: false, issues: [{ field: 'memoryUsedPercent', … }] }
 */
export function compileValidator<T>(
  schema: z.ZodType<T>,
  allowedFor?: (field: string) => AllowedRange | undefined,
): CompiledValidator<T> {
  // Compiled on first use: a module that declares a boundary costs its importer nothing until a value arrives.
  let built: Pick<CompiledValidator<T>, 'compiled' | 'parse' | 'accepts'> | undefined;
  const build = () => {
    built ??= buildValidator(schema, allowedFor);
    return built;
  };
  return {
    schema,
    get compiled() {
      return build().compiled;
    },
    parse: (input) => build().parse(input),
    accepts: (input) => build().accepts(input),
  };
}

function buildValidator<T>(
  schema: z.ZodType<T>,
  allowedFor: ((field: string) => AllowedRange | undefined) | undefined,
): Pick<CompiledValidator<T>, 'compiled' | 'parse' | 'accepts'> {
  const exact = exactJsonSchema(schema);
  let check: ValidateFunction | undefined;
  if (exact) {
    try {
      ajv ??= new Ajv(AJV_OPTIONS);
      check = ajv.compile(exact.jsonSchema);
    } catch {
      check = undefined;
    }
  }
  const explain = (input: unknown): Result<T> => parseWith(schema, input, allowedFor);
  if (check === undefined || exact === undefined)
    return { compiled: false, parse: explain, accepts: (input) => schema.safeParse(input).success };
  const accepts = check;
  const defaults = exact.rootDefaults;
  return {
    compiled: true,
    accepts: (input) => accepts(input),
    parse:
      defaults.length === 0
        ? (input) => (accepts(input) ? { ok: true, value: input as T } : explain(input))
        : (input) => {
            if (!accepts(input)) return explain(input);
            return { ok: true, value: withDefaults(input as Record<string, unknown>, defaults) as T };
          },
  };
}

/** The value with the schema's defaults where it has nothing: the value itself when none is missing, else a copy. */
function withDefaults(
  value: Record<string, unknown>,
  defaults: ExactSchema['rootDefaults'],
): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const [key, fallback] of defaults) {
    if (value[key] !== undefined) continue;
    // Object.assign rather than a spread: a spread copy given one more key costs ten times as much under V8.
    copy ??= Object.assign({}, value);
    copy[key] = fallback;
  }
  return copy ?? value;
}
