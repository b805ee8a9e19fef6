import { Injectable, PipeTransform } from '@nestjs/common';
import { isUuid } from '../id.js';
import { NotFoundError } from '../errors/domain-error.js';

/** A path id that is not a UUID cannot name anything: 404, like an unknown id (never a 500). */
@Injectable()
export class ParseIdPipe implements PipeTransform<string, string> {
  constructor(private readonly resource = 'Resource') {}

  transform(value: string): string {
    if (!isUuid(value)) throw new NotFoundError(`${this.resource}:NotFound`, `${this.resource} '${value}' was not found.`);
    return value.toLowerCase();
  }
}
