import { Controller, Get, Res, ServiceUnavailableException } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ApiExcludeController } from '@nestjs/swagger';
import { HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { Public } from '../auth/public.decorator.js';
import { RedisHealthIndicator } from './redis.health.js';
import { StorageHealthIndicator } from './storage.health.js';

@ApiExcludeController()
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly redis: RedisHealthIndicator,
    private readonly storage: StorageHealthIndicator,
  ) {}

  /** PostgreSQL, Redis and media storage answer; 503 with the failing dependency otherwise. */
  @Get('ready')
  async ready(@Res({ passthrough: true }) reply: FastifyReply) {
    try {
      return await this.health.check([
        () => this.database.pingCheck('database', { timeout: 1000 }),
        () => this.redis.check(),
        () => this.storage.check(),
      ]);
    } catch (err) {
      if (!(err instanceof ServiceUnavailableException)) throw err;
      void reply.status(503);
      return err.getResponse();
    }
  }
}
