import { createBullBoard } from '@bull-board/api';
import { BullAdapter } from '@bull-board/api/bullAdapter';
import { FastifyAdapter as BullBoardFastifyAdapter } from '@bull-board/fastify';
import { getQueueToken } from '@nestjs/bull';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Queue } from 'bull';
import type { AppConfig } from '../config/app-config.js';
import { ALL_QUEUES } from '../queue/queue-names.js';
import { isAdminAuthorization } from './admin-key.js';
import { errorEnvelope } from '../common/errors/error-envelope.js';

const BASE_PATH = '/admin/queues';

/** The Bull dashboard at /admin/queues, behind the admin key (Bearer, or Basic with the key as password). */
export async function registerQueueDashboard(app: NestFastifyApplication, config: AppConfig): Promise<void> {
  const adminKey = config.admin.apiKey;
  if (!adminKey) return;
  const serverAdapter = new BullBoardFastifyAdapter();
  serverAdapter.setBasePath(BASE_PATH);
  createBullBoard({
    queues: ALL_QUEUES.map((name) => new BullAdapter(app.get<Queue>(getQueueToken(name), { strict: false }))),
    serverAdapter,
  });
  const fastify = app.getHttpAdapter().getInstance();
  await fastify.register(
    async (scope) => {
      scope.addHook('onRequest', async (request, reply) => {
        if (!isAdminAuthorization(request.headers.authorization, adminKey)) {
          await reply
            .code(401)
            .header('WWW-Authenticate', 'Basic realm="queues"')
            .send(errorEnvelope(401, 'Admin:Unauthorized', 'The admin API key is required.'));
        }
      });
      await scope.register(serverAdapter.registerPlugin() as never);
    },
    { prefix: BASE_PATH },
  );
}
