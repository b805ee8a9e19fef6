import { basename, extname } from 'node:path';

const MAX_STEM_LENGTH = 100;

/**
 * A file name safe in a URL path and a Content-Disposition header: the stem of `original`
 * reduced to letters, digits, `.`, `-` and `_`, with `extension` (without dot) or the original one.
 */
export function safeFileName(original: string | undefined, extension?: string): string {
  const base = basename((original ?? '').replace(/\\/g, '/'));
  const originalExtension = extname(base);
  const stem =
    base
      .slice(0, base.length - originalExtension.length)
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/[^A-Za-z0-9._-]+/g, '_')
      .replace(/^[._]+|[._]+$/g, '')
      .slice(0, MAX_STEM_LENGTH) || 'file';
  const ext = (extension ?? originalExtension.slice(1)).replace(/[^A-Za-z0-9]/g, '').toLowerCase();
  return ext ? `${stem}.${ext}` : stem;
}
