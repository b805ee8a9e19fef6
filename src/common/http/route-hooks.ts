import type { onResponseHookHandler, RouteOptions } from 'fastify';

/** Adds an `onResponse` hook to one route as it is added (from Fastify's `onRoute`), after any it has. */
export function appendOnResponse(route: RouteOptions, hook: onResponseHookHandler): void {
  const existing = route.onResponse;
  route.onResponse = existing === undefined ? [hook] : Array.isArray(existing) ? [...existing, hook] : [existing, hook];
}
