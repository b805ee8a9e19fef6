import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IdempotencyMaintenance } from './idempotency-maintenance.service.js';
import { IdempotencyRecord } from './idempotency-record.entity.js';
import { IdempotencyRecordsRepository } from './idempotency-records.repository.js';
import { IdempotencyInterceptor } from './idempotency.interceptor.js';
import { IdempotencyService } from './idempotency.service.js';

@Global()
@Module({
  imports: [TypeOrmModule.forFeature([IdempotencyRecord])],
  providers: [IdempotencyService, IdempotencyRecordsRepository, IdempotencyInterceptor, IdempotencyMaintenance],
  exports: [IdempotencyService, IdempotencyInterceptor],
})
export class IdempotencyModule {}
