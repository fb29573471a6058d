import type { FastifyBodyParser, FastifyInstance } from 'fastify';
import { BarometerValidationError } from '../errors/validation.js';

/**
 * The API's JSON body parser: Fastify's own (its errors, FST_ERR_CTP_EMPTY_JSON_BODY and
 * FST_ERR_CTP_INVALID_JSON_BODY, answered BR_ERR_MALFORMED_JSON), with `__proto__` and `constructor` keys left as
 * they are. By default Fastify refuses such a body as "invalid JSON"; with both actions `ignore` it is JSON.parse's
 * answer, where such a key is an ordinary own property, so the strict schema that reads every body names it as an
 * unknown field. Nothing merges a body into another object before that check (JSON.parse defines `__proto__` as an
 * own property, it does not set the prototype).
 */
export function jsonBodyParser(app: FastifyInstance): FastifyBodyParser<string> {
  const parse = app.getDefaultJsonParser('ignore', 'ignore');
  return (request, body, done) => {
    parse(request, body, (error, value) => {
      if (error) {
        done(body === '' ? error : withWhere(error, body), undefined);
        return;
      }
      // `null` is JSON but no route's body: refused here, rather than read as "no body" by a route's defaults
      // (issue 29, F12: a null compaction body was recorded as an empty one).
      if (value === null) {
        done(
          new BarometerValidationError(
            [{ field: '(body)', value: null, message: 'must be a JSON object, not null' }],
            'request body',
          ),
          undefined,
        );
        return;
      }
      done(null, value);
    });
  };
}

/**
 * Fastify's invalid-JSON error with JSON.parse's words added (where parsing stopped, as the error catalogue
 * promises): Fastify's parser drops them. Parsed again only on this error path.
 */
function withWhere(error: Error, body: string): Error {
  try {
    JSON.parse(body);
  } catch (syntax) {
    error.message = `${error.message}: ${(syntax as Error).message}`;
  }
  return error;
}
