import { Global, Module } from '@nestjs/common';
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import { MetricsController } from './metrics.controller.js';

export class HttpMetrics {
  readonly requestDuration: Histogram<'method' | 'route' | 'status'>;
  constructor(registry: Registry) {
    this.requestDuration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency by route template',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    });
  }
}

/** One Prometheus registry per app instance (tests boot several in one process). */
@Global()
@Module({
  controllers: [MetricsController],
  providers: [
    {
      provide: Registry,
      useFactory: () => {
        const registry = new Registry();
        collectDefaultMetrics({ register: registry });
        return registry;
      },
    },
    { provide: HttpMetrics, inject: [Registry], useFactory: (registry: Registry) => new HttpMetrics(registry) },
  ],
  exports: [Registry, HttpMetrics],
})
export class MetricsModule {}
