import { Type } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';

export interface PagedResult<T> {
  totalCount: number;
  items: T[];
}

const cache = new Map<string, Type<unknown>>();

/**
 * A named paged schema for OpenAPI, e.g. `PagedResultOf(TagDto, 'PagedResultOfTagDto')`,
 * so that every list response has its own schema name as the specification lists them.
 */
export function PagedResultOf<T>(item: Type<T>, name = `PagedResultOf${item.name}`): Type<PagedResult<T>> {
  const existing = cache.get(name);
  if (existing) return existing as Type<PagedResult<T>>;
  class PagedResultClass implements PagedResult<T> {
    @ApiProperty() totalCount: number;
    @ApiProperty({ type: [item] }) items: T[];
  }
  Object.defineProperty(PagedResultClass, 'name', { value: name });
  cache.set(name, PagedResultClass);
  return PagedResultClass;
}

/** The same page with each item mapped (an entity page to its response DTOs). */
export function mapPage<T, R>(page: PagedResult<T>, map: (item: T) => R): PagedResult<R> {
  return { totalCount: page.totalCount, items: page.items.map(map) };
}
