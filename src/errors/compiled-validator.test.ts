import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { IdSchema } from '../ids/id-schema.js';
import { ReservationRequestSchema } from '../pools/pool-schemas.js';
import { pressureParameterRange } from '../pressure/parse.js';
import { PressureInputSchema, PressureQuerySchema } from '../pressure/schemas.js';
import { ManualUsageInputSchema } from '../session/usage-input.js';
import { compileValidator, maxKeys } from './compiled-validator.js';
import { parseWith } from './validation.js';

/** Values that sit on the edges of the boundaries' rules: types, ranges, whole numbers, ids, enums. */
const edgeValue = fc.oneof(
  fc.integer({ min: -5, max: 1_000_001 }),
  fc.double({ noDefaultInfinity: false, noNaN: false }),
  fc.constantFrom(0, -0, 1.5, 1000, 2 ** 53, 2 ** 53 - 1, 1e21, Number.MAX_VALUE),
  fc.constantFrom(
    '12',
    '',
    'agent-1',
    'a..b',
    '-x',
    'x'.repeat(129),
    'low',
    'normal',
    'production',
    'toString',
  ),
  fc.constantFrom(null, true, false, [], {}, undefined),
);

/** A body of the schema's keys (some of them), an unknown one, and the names that trip up a hand-made walk. */
function bodies(keys: readonly string[]) {
  return fc.dictionary(fc.constantFrom(...keys, 'extra', '__proto__', 'toString', 'constructor'), edgeValue, {
    maxKeys: 6,
  });
}

/** Each schema compiled once (a compilation takes a millisecond or so). */
const compiledOf = new Map<z.ZodType, ReturnType<typeof compileValidator>>();

/** The compiled validator answers as zod does: the same acceptance, value and issues. */
function agreesWithZod<T>(schema: z.ZodType<T>, input: unknown) {
  let compiled = compiledOf.get(schema);
  if (compiled === undefined) {
    compiled = compileValidator(schema as z.ZodType, pressureParameterRange);
    compiledOf.set(schema, compiled);
  }
  const byZod = parseWith(schema, input, pressureParameterRange);
  const parsed = compiled.parse(input);
  expect(parsed).toEqual(byZod);
  expect(compiled.accepts(input)).toBe(byZod.ok);
}

describe('compileValidator', () => {
  it('compiles the hot boundaries to JSON Schema checks (pressure body, usage record, reservation, id)', () => {
    for (const schema of [PressureInputSchema, ManualUsageInputSchema, ReservationRequestSchema, IdSchema])
      expect(compileValidator(schema as z.ZodType).compiled).toBe(true);
  });

  it('answers every pressure body as zod does, issues and allowed ranges included', () => {
    fc.assert(
      fc.property(bodies(Object.keys(PressureInputSchema.shape)), (body) =>
        agreesWithZod(PressureInputSchema, body),
      ),
      { numRuns: 2000 },
    );
  });

  it('answers every reservation as zod does, with the default priority on a copy, never on the caller’s object', () => {
    fc.assert(
      fc.property(bodies(Object.keys(ReservationRequestSchema.shape)), (body) => {
        const before = { ...body };
        agreesWithZod(ReservationRequestSchema, body);
        expect(body).toEqual(before);
      }),
      { numRuns: 2000 },
    );
    const request = { agentId: 'a1', tokens: 5 };
    const parsed = compileValidator(ReservationRequestSchema).parse(request);
    expect(parsed).toEqual({ ok: true, value: { agentId: 'a1', tokens: 5, priority: 'normal' } });
    expect(request).toEqual({ agentId: 'a1', tokens: 5 });
  });

  it('answers every id as zod does, ".." and the length limit included', () => {
    fc.assert(
      fc.property(
        fc.oneof(edgeValue, fc.string({ maxLength: 140 }), fc.stringMatching(/^[a-z.]{1,6}$/)),
        (id) => agreesWithZod(IdSchema, id),
      ),
      { numRuns: 2000 },
    );
  });

  it('refuses what JSON Schema allows and zod does not: infinities and NaN from a library caller', () => {
    const validator = compileValidator(z.strictObject({ age: z.number().min(0).optional() }));
    expect(validator.compiled).toBe(true);
    for (const age of [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NaN])
      expect(validator.accepts({ age })).toBe(false);
  });

  it('counts string lengths in code points, as zod does', () => {
    const schema = z.strictObject({ model: z.string().max(3) });
    agreesWithZod(schema, { model: '😀😀😀' });
    agreesWithZod(schema, { model: '😀😀😀😀' });
  });

  it('leaves to zod a schema JSON Schema cannot say exactly: a refinement, a transform, a stripping object', () => {
    const refined = z.strictObject({ a: z.number().refine((value) => value !== 3, 'not 3') });
    const transformed = PressureQuerySchema;
    const stripping = z.object({ a: z.number() });
    const merged = z.intersection(z.strictObject({ a: z.number() }), z.strictObject({ b: z.number() }));
    const exhaustive = z.record(z.enum(['low', 'high']), z.number());
    const stepped = z.number().multipleOf(0.1);
    for (const schema of [refined, transformed, stripping, merged, exhaustive, stepped] as z.ZodType[])
      expect(compileValidator(schema).compiled).toBe(false);
    // zod's answers, which the compiled checks would have got wrong.
    expect(compileValidator(merged).parse({ a: 1, b: 2 }).ok).toBe(true);
    expect(compileValidator(exhaustive).parse({ low: 1 }).ok).toBe(false);
    expect(compileValidator(stepped).parse(0.3).ok).toBe(true);
    expect(compileValidator(refined).parse({ a: 3 })).toMatchObject({
      ok: false,
      issues: [{ message: 'not 3' }],
    });
    expect(compileValidator(stripping).parse({ a: 1, b: 2 })).toEqual({ ok: true, value: { a: 1 } });
  });

  it('compiles a record limited by maxKeys, and refuses one key too many with zod’s words', () => {
    const schema = z.strictObject({
      headers: maxKeys(z.record(z.string(), z.string()), 2, 'at most 2 headers'),
    });
    const validator = compileValidator(schema);
    expect(validator.compiled).toBe(true);
    expect(validator.accepts({ headers: { a: '1', b: '2' } })).toBe(true);
    expect(validator.parse({ headers: { a: '1', b: '2', c: '3' } })).toMatchObject({
      ok: false,
      issues: [{ field: 'headers', message: 'at most 2 headers' }],
    });
  });
});
