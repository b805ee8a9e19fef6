import type { RawBodyRequest } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyRequest } from 'fastify';
import { ErrorEnvelopeFilter } from '../../common/errors/error-envelope.filter.js';
import { ParseIdPipe } from '../../common/http/uuid-param.pipe.js';
import { WhatsAppWebhooksService } from './whatsapp-webhooks.service.js';

/**
 * `POST /v1/whatsapp/webhooks/{channelId}`, Meta's notifications: answered by Fastify itself, as
 * `/health/live` is, outside Nest's guards, pipes and interceptors. The route is public and hot
 * (every message and status Meta delivers), and none of them has anything to do for it: no
 * principal, no rate limit, the body is the signed raw bytes. What the pipeline did is done here:
 * a channel id that is no UUID is a 404, and every error is the API error envelope
 * ({@link ErrorEnvelopeFilter}); Fastify's own hooks (request id, metrics, unsafe input) apply as to any route.
 */
export function registerWhatsAppWebhookRoute(app: NestFastifyApplication): void {
  const webhooks = app.get(WhatsAppWebhooksService);
  const channelIds = new ParseIdPipe('Channels:Channel');
  const errors = new ErrorEnvelopeFilter();
  app
    .getHttpAdapter()
    .getInstance()
    .post<{ Params: { channelId: string } }>('/v1/whatsapp/webhooks/:channelId', async (request, reply) => {
      try {
        const signature = request.headers['x-hub-signature-256'];
        await webhooks.accept(channelIds.transform(request.params.channelId), {
          rawBody: (request as RawBodyRequest<FastifyRequest>).rawBody,
          signature: typeof signature === 'string' ? signature : undefined,
          body: request.body,
        });
        return reply.code(200).send({ received: true });
      } catch (err) {
        const { body, headers } = errors.toResponse(err);
        return reply.code(body.statusCode).headers(headers).header('Content-Type', 'application/json; charset=utf-8').send(body);
      }
    });
}
