import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';

export const IS_PUBLIC = Symbol('is-public');

/**
 * The route needs no bearer token (token endpoint, health, provider callbacks, admin routes with
 * their own key). Marked `x-public` in the OpenAPI document, which the route-guard test reads.
 */
export const Public = () => applyDecorators(SetMetadata(IS_PUBLIC, true), ApiExtension('x-public', true));
