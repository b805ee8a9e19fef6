import type { OpenAPIObject, OperationObject, PathItemObject, ReferenceObject, SchemaObject } from '@nestjs/swagger';

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'] as const;

export interface OperationRef {
  path: string;
  method: (typeof HTTP_METHODS)[number];
}

/** Calls `visit` on every operation of the document, in path order. */
export function forEachOperation(document: OpenAPIObject, visit: (operation: OperationObject, where: OperationRef) => void): void {
  for (const [path, item] of Object.entries<PathItemObject>(document.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (operation) visit(operation, { path, method });
    }
  }
}

/** A schema, following `$ref` and a single-entry `allOf` to the component it names. */
export function resolveSchema(document: OpenAPIObject, schema: SchemaObject | ReferenceObject): SchemaObject | undefined {
  let current: SchemaObject | ReferenceObject | undefined = schema;
  for (let hops = 0; current && hops < 10; hops++) {
    if ('$ref' in current) current = document.components?.schemas?.[current.$ref.split('/').pop() ?? ''];
    else if (current.allOf?.length === 1 && !current.properties) current = current.allOf[0];
    else return current;
  }
  return undefined;
}
