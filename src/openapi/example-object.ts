import type { ExamplesObject } from '@nestjs/swagger';

/** One named request example as Swagger UI lists it: a summary and the body. */
export const example = (summary: string, value: unknown): ExamplesObject[string] => ({ summary, value });
