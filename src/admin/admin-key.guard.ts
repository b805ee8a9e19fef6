import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AppConfig } from '../config/app-config.js';
import { DomainError, ErrorKind, NotFoundError } from '../common/errors/domain-error.js';
import { isAdminAuthorization } from './admin-key.js';

/** Admin routes: `Authorization: Bearer <ADMIN_API_KEY>`; when no key is configured they do not exist (404). */
@Injectable()
export class AdminKeyGuard implements CanActivate {
  constructor(private readonly config: AppConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const adminKey = this.config.admin.apiKey;
    if (!adminKey) throw new NotFoundError('Request:NotFound', 'Not found.');
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (!isAdminAuthorization(request.headers.authorization, adminKey)) {
      throw new DomainError('Admin:Unauthorized', 'The admin API key is required.', ErrorKind.Unauthenticated, {
        headers: { 'WWW-Authenticate': 'Bearer' },
      });
    }
    return true;
  }
}
