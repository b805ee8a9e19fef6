import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { catchError, from, of, switchMap, throwError, type Observable } from 'rxjs';
import type { Principal } from '../../auth/principal.js';
import { ValidationError } from '../errors/domain-error.js';
import { IdempotencyService, requestFingerprint } from './idempotency.service.js';

const HEADER = 'idempotency-key';

/** Applies API.md §1 idempotency to a route marked `@Idempotent()`. */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(private readonly idempotency: IdempotencyService) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<FastifyRequest & { user?: Principal }>();
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    const raw = request.headers[HEADER];
    if (raw === undefined || !request.user) return next.handle();
    const key = Array.isArray(raw) ? raw[0] : raw;
    if (key.length < 1 || key.length > 255) {
      throw new ValidationError('Idempotency:InvalidKey', 'Idempotency-Key must be 1 to 255 characters.', {
        validationErrors: [{ message: 'Idempotency-Key must be 1 to 255 characters.', members: ['Idempotency-Key'] }],
      });
    }
    const { workspaceId } = request.user;
    const fingerprint = requestFingerprint(request.method, request.routeOptions.url ?? request.url, request.body);
    return from(this.idempotency.claim(workspaceId, key, fingerprint)).pipe(
      switchMap((claim) => {
        if (claim.kind === 'replay') {
          void reply.status(claim.status).header('Idempotent-Replayed', 'true');
          return of(claim.body);
        }
        return next.handle().pipe(
          switchMap((body) => from(this.idempotency.complete(workspaceId, key, reply.statusCode, body)).pipe(switchMap(() => of(body)))),
          catchError((err: unknown) => from(this.idempotency.release(workspaceId, key)).pipe(switchMap(() => throwError(() => err)))),
        );
      }),
    );
  }
}
