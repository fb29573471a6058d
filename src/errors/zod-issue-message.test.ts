import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ZOD_DEFAULT_WORDING } from '../test-helpers/zod-default-wording.js';
import { parseWith } from './validation.js';

function messagesOf(schema: z.ZodType, input: unknown): Array<{ field: string; message: string }> {
  const parsed = parseWith(schema, input);
  if (parsed.ok) throw new Error('expected a refusal');
  return parsed.issues.map(({ field, message }) => ({ field, message }));
}

describe('parseWith words every zod issue in barometer’s terms', () => {
  it('says what type a field must be, and that a missing one is required', () => {
    const schema = z.strictObject({
      tokens: z.number(),
      name: z.string(),
      on: z.boolean(),
      list: z.array(z.string()),
    });
    expect(messagesOf(schema, { tokens: 'x', on: 'yes', list: {} })).toEqual([
      { field: 'tokens', message: 'must be a number' },
      { field: 'name', message: 'is required (a string)' },
      { field: 'on', message: 'must be true or false' },
      { field: 'list', message: 'must be an array' },
    ]);
  });

  it('names a whole number, and NaN, as a number the field cannot take', () => {
    expect(messagesOf(z.object({ n: z.int() }), { n: 1.5 })).toEqual([
      { field: 'n', message: 'must be a whole number' },
    ]);
    expect(messagesOf(z.object({ n: z.number() }), { n: Number.NaN })).toEqual([
      { field: 'n', message: 'must be a number' },
    ]);
  });

  it('states bounds as at least / greater than / at most / less than, sizes in their unit', () => {
    const schema = z.object({
      low: z.number().min(1),
      above: z.number().gt(0),
      high: z.number().max(10),
      below: z.number().lt(10),
      name: z.string().min(1),
      code: z.string().min(3),
      tags: z.array(z.string()).max(2),
    });
    expect(
      messagesOf(schema, {
        low: 0,
        above: 0,
        high: 11,
        below: 10,
        name: '',
        code: 'ab',
        tags: ['a', 'b', 'c'],
      }),
    ).toEqual([
      { field: 'low', message: 'must be at least 1' },
      { field: 'above', message: 'must be greater than 0' },
      { field: 'high', message: 'must be at most 10' },
      { field: 'below', message: 'must be less than 10' },
      { field: 'name', message: 'must not be empty' },
      { field: 'code', message: 'must have at least 3 characters' },
      { field: 'tags', message: 'must hold at most 2 items' },
    ]);
  });

  it('lists the values an enum, a literal or a discriminated union takes', () => {
    const message = z.discriminatedUnion('role', [
      z.object({ role: z.literal('user'), text: z.string() }),
      z.object({ role: z.literal('tool'), id: z.string() }),
    ]);
    expect(
      messagesOf(z.object({ level: z.enum(['low', 'high']), only: z.literal('x'), message }), {
        level: 'mid',
        only: 'y',
        message: { role: 'bot' },
      }),
    ).toEqual([
      { field: 'level', message: 'must be one of low, high' },
      { field: 'only', message: 'must be x' },
      { field: 'message.role', message: 'must be one of user, tool' },
    ]);
  });

  it('names the types a union takes, and a format or pattern a string must have', () => {
    const schema = z.object({
      content: z.union([z.string(), z.array(z.string()), z.null()]),
      at: z.iso.datetime(),
      id: z.string().regex(/^rsv_/),
      key: z.string().startsWith('whsec_'),
    });
    expect(messagesOf(schema, { content: 5, at: 'noon', id: 'x', key: 'k' })).toEqual([
      { field: 'content', message: 'must be a string, an array or null' },
      { field: 'at', message: 'must be an ISO 8601 date and time, such as 2026-11-22T10:00:00Z' },
      { field: 'id', message: 'must match the pattern /^rsv_/' },
      { field: 'key', message: 'must start with "whsec_"' },
    ]);
  });

  it('keeps a message the schema sets itself, and words a bare refinement', () => {
    const schema = z.object({
      share: z.number().max(1, 'must be a share of at most 1'),
      even: z.number().refine((value) => value % 2 === 0),
    });
    expect(messagesOf(schema, { share: 2, even: 3 })).toEqual([
      { field: 'share', message: 'must be a share of at most 1' },
      { field: 'even', message: 'is not valid' },
    ]);
  });

  it('reports an unknown key as an unknown parameter, one issue per key', () => {
    expect(messagesOf(z.strictObject({ a: z.number() }), { a: 1, b: 2, c: 3 })).toEqual([
      { field: 'b', message: 'unknown parameter' },
      { field: 'c', message: 'unknown parameter' },
    ]);
  });

  it('never lets zod’s default wording through, for any issue these schemas raise', () => {
    const schema = z.strictObject({
      a: z.number().int().min(0).max(5).multipleOf(2),
      b: z.record(z.string().regex(/^k/), z.number()),
      c: z.set(z.number()),
      d: z.tuple([z.string()]),
      e: z.email(),
      f: z.url(),
    });
    const parsed = parseWith(schema, {
      a: 3.5,
      b: { x: 1 },
      c: new Set(['x']),
      d: [1],
      e: 'no',
      f: 'no',
      g: 1,
    });
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.issues.length).toBeGreaterThanOrEqual(6);
    for (const issue of parsed.issues) expect(issue.message, issue.field).not.toMatch(ZOD_DEFAULT_WORDING);
  });
});
