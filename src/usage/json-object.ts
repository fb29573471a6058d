/** A parsed JSON object. Provider bodies and log lines are read field by field, never trusted as a type. */
export type JsonObject = Record<string, unknown>;

/** Whether a parsed JSON value is an object (not null, not an array): the one test every reader uses. */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
