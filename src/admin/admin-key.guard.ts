import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AppConfig } from '../config/app-config.js';
import { AdminApiOff, AdminKeyRequired } from './admin.errors.js';
import { UnauthenticatedRequestLimit } from '../rate-limiting/unauthenticated-request-limit.js';
import { isAdminAuthorization } from './admin-key.js';

/** Admin routes: `Authorization: Bearer <ADMIN_API_KEY>`; when no key is configured they do not exist (404). */
@Injectable()
export class AdminKeyGuard implements CanActivate {
  constructor(
    private readonly config: AppConfig,
    private readonly unauthenticated: UnauthenticatedRequestLimit,
  ) {}

  /** A wrong or missing key is counted against the client address (a 429 once over that limit). */
  async canActivate(context: ExecutionContext): Promise<boolean> {
    const adminKey = this.config.admin.apiKey;
    if (!adminKey) throw AdminApiOff();
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    if (!isAdminAuthorization(request.headers.authorization, adminKey)) {
      await this.unauthenticated.count(request, http.getResponse());
      throw AdminKeyRequired();
    }
    return true;
  }
}
