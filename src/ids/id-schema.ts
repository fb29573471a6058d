import * as z from 'zod';

/**
 * The one id rule of barometer, for sessions, tasks, archives and artifacts: a letter or digit first, then
 * letters, digits, `.`, `_`, `-`; at most 128 characters; never `..`. Ids become path segments of the API and
 * names of files under the data dir, so an id accepted anywhere is usable on every route and as a file name
 * (the server raises Fastify's 100-character path-parameter limit to fit it).
 */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
export const MAX_ID_LENGTH = 128;

export const IdSchema = z
  .string()
  .regex(
    ID_PATTERN,
    'must start with a letter or digit and hold only letters, digits, ".", "_", "-" (at most 128 characters)',
  )
  // A pattern rather than a refinement, so that the rule converts to JSON Schema and compiles (decision 104).
  .regex(/^(?!.*\.\.)/, 'must not contain ".."');

/**
 * Whether a value satisfies {@link IdSchema}, without building an issue. zod's own parse, so that what loads the id
 * rule (the status line, through the session options) loads no validator compiler; a hot path that checks ids
 * compiles the schema (the pool store: decision 104).
 */
export function isId(value: unknown): value is string {
  return IdSchema.safeParse(value).success;
}
