import { ValidationError } from '../errors/domain-error.js';

type Source = 'body' | 'query';

const member = (source: Source, path: string) => path || source;

export const UnsafeText = (source: Source, path: string) =>
  new ValidationError(
    'Request:UnsafeText',
    `The ${source} holds a NUL character or an unpaired UTF-16 surrogate${path ? ` at '${path}'` : ''}; text must be valid Unicode without NUL.`,
    { validationErrors: [{ message: 'must not contain NUL or unpaired surrogates', members: [member(source, path)] }] },
  );

export const InputNestedTooDeep = (source: Source, path: string, maxDepth: number) =>
  new ValidationError('Request:NestedTooDeep', `The ${source} nests objects or arrays deeper than ${maxDepth} levels.`, {
    validationErrors: [{ message: `must not nest deeper than ${maxDepth} levels`, members: [member(source, path)] }],
  });
