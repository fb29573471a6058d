import { errorCodes } from 'fastify';
import { describe, expect, it } from 'vitest';
import { isErrorCode } from '../errors/error-catalogue.js';
import { codeOfError } from './error-handler.js';
import {
  codeOfStatus,
  FASTIFY_ERROR_CODES,
  FASTIFY_SETUP_CODES_WITH_CLIENT_STATUS,
} from './fastify-error-codes.js';

/** The status of each error Fastify declares, read from the installed Fastify (lib/errors.js). */
function fastifyStatuses(): Map<string, number> {
  const statuses = new Map<string, number>();
  for (const [name, FastifyErrorClass] of Object.entries(errorCodes)) {
    const error = new (FastifyErrorClass as new (...args: unknown[]) => { statusCode?: number })(
      'a',
      'b',
      'c',
    );
    statuses.set(name, error.statusCode ?? 500);
  }
  return statuses;
}

describe("Fastify's errors", () => {
  it('maps every code a client can cause (status other than 500) to a catalogued code', () => {
    const setup = new Set<string>(FASTIFY_SETUP_CODES_WITH_CLIENT_STATUS);
    const unmapped = [...fastifyStatuses()]
      .filter(
        ([name, status]) => status !== 500 && !setup.has(name) && !Object.hasOwn(FASTIFY_ERROR_CODES, name),
      )
      .map(([name, status]) => `${name} (${status})`);
    expect(unmapped).toEqual([]);
  });

  it('lists only codes the installed Fastify declares', () => {
    const declared = fastifyStatuses();
    const listed = [...Object.keys(FASTIFY_ERROR_CODES), ...FASTIFY_SETUP_CODES_WITH_CLIENT_STATUS];
    expect(listed.filter((name) => !declared.has(name))).toEqual([]);
    expect(Object.values(FASTIFY_ERROR_CODES).every(isErrorCode)).toBe(true);
  });

  it('answers every other Fastify code BR_ERR_INTERNAL', () => {
    for (const [name, status] of fastifyStatuses()) {
      if (Object.hasOwn(FASTIFY_ERROR_CODES, name)) continue;
      const error = new (errorCodes[name as keyof typeof errorCodes] as new (...args: unknown[]) => Error)(
        'a',
      );
      expect(codeOfError(error), `${name} (${status})`).toBe('BR_ERR_INTERNAL');
    }
  });

  it('answers an error with a status but no code by its status, and a Node errno as a fault', () => {
    expect(codeOfError(Object.assign(new Error('Range Not Satisfiable'), { statusCode: 416 }))).toBe(
      'BR_ERR_RANGE_NOT_SATISFIABLE',
    );
    expect(codeOfError(Object.assign(new Error('x'), { status: 412 }))).toBe('BR_ERR_PRECONDITION_FAILED');
    expect(codeOfError(Object.assign(new Error('EACCES'), { code: 'EACCES', statusCode: 400 }))).toBe(
      'BR_ERR_INTERNAL',
    );
    expect(codeOfError(new Error('no status'))).toBe('BR_ERR_INTERNAL');
    expect(codeOfError('a string thrown')).toBe('BR_ERR_INTERNAL');
    expect(codeOfStatus(418)).toBe('BR_ERR_BAD_REQUEST');
    expect(codeOfStatus(502)).toBe('BR_ERR_INTERNAL');
  });
});
