import * as z from 'zod';
import { IsoTimeSchema } from './time.js';

/** `/api/v1/webhooks`: registrations, their listing and their delivery log. */

/** The events a webhook can subscribe to. */
export const WEBHOOK_EVENTS = [
  'pressure_critical',
  'verdict_changed',
  'new_round_due',
  'compaction',
  'pool_exhausted',
  'window_threshold',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** The prefix of a Standard Webhooks secret: `whsec_` + the key's bytes in base64. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/**
 * Whether a text is a secret in the Standard Webhooks form: `whsec_` followed by base64 of 24 to 64 bytes. The
 * signer (src/server/webhooks/signing.ts) decodes the key of the secrets this accepts.
 */
export function isWebhookSecret(secret: string): boolean {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) return false;
  const encoded = secret.slice(WEBHOOK_SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return false;
  const padding = encoded.endsWith('==') ? 2 : encoded.endsWith('=') ? 1 : 0;
  const bytes = (encoded.length / 4) * 3 - padding;
  return bytes >= 24 && bytes <= 64;
}

/** `POST /api/v1/webhooks`. */
export const WebhookRequestSchema = z.strictObject({
  url: z.string().min(1).max(2048),
  events: z.array(z.enum(WEBHOOK_EVENTS)).min(1).max(WEBHOOK_EVENTS.length),
  /** A Standard Webhooks secret (`whsec_` + base64 of 24–64 bytes); generated when absent and shown once. */
  secret: z
    .string()
    .refine(isWebhookSecret, 'must be whsec_ followed by base64 of 24 to 64 bytes')
    .optional(),
});
export type WebhookRequest = z.infer<typeof WebhookRequestSchema>;

/** `/api/v1/webhooks/:id…`. */
export const WebhookParamsSchema = z.strictObject({
  id: z.string().regex(/^wh_[0-9a-f]{32}$/, 'must be a webhook id (wh_…)'),
});

/** A webhook as listed: never its secret. */
export const WebhookViewSchema = z
  .strictObject({
    id: z.string(),
    url: z.string(),
    events: z.array(z.enum(WEBHOOK_EVENTS)),
    createdAt: IsoTimeSchema,
  })
  .meta({ id: 'WebhookView' });
export type WebhookView = z.infer<typeof WebhookViewSchema>;

/** A webhook as registered: the secret is shown this once. */
export const WebhookRegistrationSchema = WebhookViewSchema.extend({ secret: z.string() }).meta({
  id: 'WebhookRegistration',
});
export type WebhookRegistration = z.infer<typeof WebhookRegistrationSchema>;

export const WebhookListSchema = z
  .strictObject({ webhooks: z.array(WebhookViewSchema) })
  .meta({ id: 'WebhookList' });

/** One attempt to deliver: its number, when, the receiver's status or why it failed, and how long it took. */
export const DeliveryAttemptSchema = z.strictObject({
  attempt: z.number().int().min(1),
  at: IsoTimeSchema,
  ok: z.boolean(),
  /** The HTTP status the receiver answered, or null when it answered none. */
  status: z.number().int().nullable(),
  /** Why it failed: `timeout`, `refused_target`, a network error code, or `status <n>`. */
  error: z.string().nullable(),
  durationMs: z.number().min(0),
});

/** One event sent to one webhook, with every attempt. */
export const DeliverySchema = z
  .strictObject({
    /** The `webhook-id` header: the same on every attempt, so receivers can drop duplicates. */
    id: z.string(),
    webhookId: z.string(),
    event: z.enum(WEBHOOK_EVENTS),
    /** The JSON body sent, as sent. */
    body: z.string(),
    status: z.enum(['pending', 'delivered', 'failed']),
    attempts: z.array(DeliveryAttemptSchema),
    /** When the next attempt is due, while pending; null once delivered or failed. */
    nextAttemptAt: IsoTimeSchema.nullable(),
    createdAt: IsoTimeSchema,
  })
  .meta({ id: 'Delivery' });
export type Delivery = z.infer<typeof DeliverySchema>;

/** `GET /api/v1/webhooks/:id/deliveries`: the webhook and its deliveries, newest first. */
export const WebhookDeliveriesAnswerSchema = z
  .strictObject({ webhook: WebhookViewSchema, deliveries: z.array(DeliverySchema) })
  .meta({ id: 'WebhookDeliveries' });
