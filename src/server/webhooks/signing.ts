import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { isWebhookSecret, WEBHOOK_SECRET_PREFIX } from '../../contract/webhooks.js';

/** The prefix of a Standard Webhooks secret: `whsec_` + the key's bytes in base64. */
export const SECRET_PREFIX = WEBHOOK_SECRET_PREFIX;

/** A new secret: 32 random bytes, in the Standard Webhooks form. */
export function generateSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/**
 * The key bytes of a secret in the Standard Webhooks form, or undefined when it is not one: `whsec_` followed
 * by base64 of 24 to 64 bytes.
 */
export function secretKey(secret: string): Buffer | undefined {
  return isWebhookSecret(secret) ? Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64') : undefined;
}

/**
 * The `webhook-signature` value of Standard Webhooks: `v1,` + base64 of HMAC-SHA256 over
 * `<webhook-id>.<webhook-timestamp>.<body>` with the secret's key bytes.
 * @throws Error for a secret that is not in the `whsec_` form (registration checks it first)
 */
export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const key = secretKey(secret);
  if (!key) throw new Error('not a Standard Webhooks secret (whsec_ + base64)');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** Whether a `webhook-signature` header holds a valid signature of the message (space-separated list). */
export function verifyWebhook(
  secret: string,
  id: string,
  timestamp: number,
  body: string,
  header: string,
): boolean {
  const expected = Buffer.from(signWebhook(secret, id, timestamp, body));
  return header.split(' ').some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
