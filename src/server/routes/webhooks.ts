import type { z } from 'zod';
import {
  WEBHOOK_EVENTS,
  WebhookDeliveriesAnswerSchema,
  WebhookListSchema,
  WebhookParamsSchema,
  WebhookRegistrationSchema,
  WebhookRequestSchema,
} from '../../contract/webhooks.js';
import { BarometerValidationError } from '../../errors/validation.js';
import { sendInvalid, sendProblem } from '../../http/problem.js';
import type { ApiRoute } from '../../http/route-table.js';
import { deliveryAnswer, type WebhookService } from '../webhooks/webhook-service.js';

/** The path's webhook id, as Fastify validated it. */
type WebhookParams = z.output<typeof WebhookParamsSchema>;

const EXAMPLE = `POST /api/v1/webhooks {"url":"https://example.com/barometer","events":["pressure_critical","compaction"]} (events: ${WEBHOOK_EVENTS.join(', ')})`;

/** `/api/v1/webhooks`: register (the secret is shown once), list, delete, and read a webhook's delivery log. */
export function webhookRoutes(webhooks: WebhookService): ApiRoute[] {
  const notFound = (reply: Parameters<ApiRoute['handler']>[1], id: string) =>
    sendProblem(reply, 'BR_ERR_NOT_FOUND', `No webhook ${JSON.stringify(id)}`);
  return [
    {
      method: 'POST',
      url: '/api/v1/webhooks',
      scope: 'json',
      summary: 'Register a webhook; Standard Webhooks signatures; the secret is shown once',
      body: WebhookRequestSchema,
      example: EXAMPLE,
      responses: {
        '201': {
          description: '{ id, url, events, secret, createdAt }: keep the secret, it is not shown again',
          schema: WebhookRegistrationSchema,
        },
        '400': { description: 'A bad field, or a target that resolves to a refused address' },
      },
      handler: async (request, reply) => {
        try {
          const registration = await webhooks.register(request.body as z.output<typeof WebhookRequestSchema>);
          return reply.code(201).send(registration);
        } catch (error) {
          if (error instanceof BarometerValidationError) return sendInvalid(reply, error.issues, EXAMPLE);
          throw error;
        }
      },
    },
    {
      method: 'GET',
      url: '/api/v1/webhooks',
      scope: 'json',
      summary: 'The registered webhooks (without their secrets)',
      responses: {
        '200': { description: '{ webhooks }', schema: WebhookListSchema },
      },
      handler: async () => {
        await webhooks.refresh();
        return { webhooks: webhooks.list() };
      },
    },
    {
      method: 'DELETE',
      url: '/api/v1/webhooks/:id',
      scope: 'json',
      summary: 'Remove a webhook and drop its pending deliveries',
      params: WebhookParamsSchema,
      responses: {
        '204': { description: 'Removed', empty: true },
        '404': { description: 'No such webhook' },
      },
      handler: async (request, reply) => {
        const { id } = request.params as WebhookParams;
        if (!(await webhooks.delete(id))) return notFound(reply, id);
        return reply.code(204).send();
      },
    },
    {
      method: 'GET',
      url: '/api/v1/webhooks/:id/deliveries',
      scope: 'json',
      summary: "A webhook's deliveries, newest first, with every attempt (status, error, duration)",
      params: WebhookParamsSchema,
      responses: {
        '200': { description: '{ webhook, deliveries }', schema: WebhookDeliveriesAnswerSchema },
        '404': { description: 'No such webhook' },
      },
      handler: async (request, reply) => {
        const { id } = request.params as WebhookParams;
        await webhooks.refresh();
        const deliveries = webhooks.deliveries(id);
        if (!deliveries) return notFound(reply, id);
        // Stored times stay epoch milliseconds; the answer shows ISO 8601, as every answer does.
        return { webhook: webhooks.get(id), deliveries: deliveries.map(deliveryAnswer) };
      },
    },
  ];
}
