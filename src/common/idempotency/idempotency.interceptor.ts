import { CallHandler, ExecutionContext, HttpStatus, Injectable, NestInterceptor } from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants.js';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { catchError, finalize, from, map, of, switchMap, throwError, type Observable } from 'rxjs';
import type { Principal } from '../../auth/principal.js';
import { ValidationError } from '../errors/domain-error.js';
import { pgError } from '../../database/pg-errors.js';
import { IdempotencyKeyInFlight, IdempotencyService, requestFingerprint } from './idempotency.service.js';
import { runIdempotent } from './stored-response.js';

const HEADER = 'idempotency-key';

/**
 * Applies API.md §1 idempotency to a route marked `@Idempotent()`: claims the key (an in-flight
 * record), runs the handler with the key visible to its write ({@link runIdempotent}), which stores
 * the response in the transaction or statement of its change, and stores the response itself
 * only when the handler's write did not (a route without such a write).
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly idempotency: IdempotencyService,
    private readonly reflector: Reflector,
  ) {}

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
    const status =
      this.reflector.get<number | undefined>(HTTP_CODE_METADATA, context.getHandler()) ??
      (request.method === 'POST' ? HttpStatus.CREATED : HttpStatus.OK);
    return from(this.idempotency.claim(workspaceId, key, fingerprint)).pipe(
      switchMap((claim) => {
        if (claim.kind === 'replay') {
          void reply.status(claim.status).header('Idempotent-Replayed', 'true');
          return of(claim.body);
        }
        const own = { key, token: claim.token };
        // `handle()` binds the handler to the async context it is called in: the key's.
        const handled = runIdempotent({ workspaceId, key, token: claim.token, status }, () => next.handle());
        return handled.value.pipe(
          switchMap((body) =>
            handled.stored() ? of(body) : from(this.idempotency.complete(workspaceId, own, reply.statusCode, body)).pipe(map(() => body)),
          ),
          catchError((err: unknown) =>
            from(this.idempotency.release(workspaceId, own)).pipe(
              // A one-statement write found the key claimed again (this request ran past the stale horizon): its change was undone.
              switchMap(() => throwError(() => (pgError.is(err, 'idempotency-claim-lost') ? IdempotencyKeyInFlight() : err))),
            ),
          ),
          finalize(handled.close),
        );
      }),
    );
  }
}
