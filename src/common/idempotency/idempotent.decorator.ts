import { applyDecorators, SetMetadata, UseInterceptors } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import { IdempotencyInterceptor } from './idempotency.interceptor.js';

export const IDEMPOTENT = Symbol('idempotent');

/** The operation accepts an optional `Idempotency-Key` header (sends and calls). */
export const Idempotent = () =>
  applyDecorators(
    SetMetadata(IDEMPOTENT, true),
    UseInterceptors(IdempotencyInterceptor),
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description:
        'Up to 255 characters. The same key and body within 24 h returns the first response without acting twice; another body is a 422; a key whose first request is still running is a 409.',
    }),
  );
