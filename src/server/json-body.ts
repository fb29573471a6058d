import { BarometerValidationError } from '../errors/validation.js';

/**
 * The API's JSON body parser: plain JSON.parse. Fastify's default parser refuses a body holding a `__proto__` or
 * `constructor` key as "invalid JSON"; here such a key stays an ordinary own property, so the strict schema that
 * reads every body names it as an unknown field. Nothing merges a body into another object before that check
 * (JSON.parse itself defines `__proto__` as an own property, it does not set the prototype).
 */
export function parseJsonBody(
  _request: unknown,
  body: string,
  done: (error: Error | null, value?: unknown) => void,
): void {
  if (body === '') {
    done(
      Object.assign(new Error('Body cannot be empty when content-type is set to application/json'), {
        code: 'FST_ERR_CTP_EMPTY_JSON_BODY',
        statusCode: 400,
      }),
    );
    return;
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    done(
      Object.assign(new Error(`Body is not valid JSON: ${(error as Error).message}`), {
        code: 'FST_ERR_CTP_INVALID_JSON_BODY',
        statusCode: 400,
      }),
    );
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
    );
    return;
  }
  done(null, value);
}
