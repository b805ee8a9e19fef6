import { annotateIntEnums } from './int-enum.js';
import { useJsonSchema2020KeywordsIn } from './oas31-keywords.js';
import { tidySchemas } from './schema-tidy.js';

/**
 * What every component schema goes through once @nestjs/swagger made it in 3.1 form: the
 * document's, and the webhook catalog's (which is built outside the document), so both carry the
 * same schema under one name.
 */
export function finishComponentSchemas(schemas: Record<string, unknown>): void {
  annotateIntEnums(schemas as Record<string, Record<string, unknown>>);
  tidySchemas(schemas);
  useJsonSchema2020KeywordsIn(schemas);
}
