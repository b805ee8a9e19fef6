/**
 * Stop and start words (API.md §13): an inbound text that is exactly one of them (trimmed, inner
 * runs of white space collapsed, case-insensitive) changes the contact's WhatsApp marketing consent.
 */

export const DEFAULT_STOP_WORDS: readonly string[] = ['STOP', 'UNSUBSCRIBE', 'إيقاف', 'الغاء'];
export const DEFAULT_START_WORDS: readonly string[] = ['START', 'اشتراك'];

/** The longest word a list may hold (characters, once normalised). */
export const MAX_KEYWORD_LENGTH = 50;
/** The most words a list may hold. */
export const MAX_KEYWORDS = 50;

/**
 * A text as words are compared: Unicode NFC, trimmed, inner runs of white space one space, lower
 * case; the Arabic alef with hamza or madda (أ إ آ) read as the bare alef (ا), as many keyboards
 * type it, so `ايقاف` is `إيقاف` and `إلغاء` is `الغاء`.
 */
export function normalizeKeyword(text: string): string {
  return text.normalize('NFC').trim().replace(/\s+/gu, ' ').toLowerCase().replace(/[أإآ]/gu, 'ا');
}

/** A word as stored: trimmed, inner white space collapsed, the case as given. */
export function tidyKeyword(word: string): string {
  return word.trim().replace(/\s+/gu, ' ');
}

/** What an inbound text says of marketing consent: a stop word OptedOut, a start word OptedIn, anything else nothing. */
export function keywordConsent(
  text: string,
  words: { stopWords: readonly string[]; startWords: readonly string[] },
): 'OptedOut' | 'OptedIn' | null {
  const said = normalizeKeyword(text);
  if (said === '' || said.length > MAX_KEYWORD_LENGTH) return null;
  if (words.stopWords.some((w) => normalizeKeyword(w) === said)) return 'OptedOut';
  if (words.startWords.some((w) => normalizeKeyword(w) === said)) return 'OptedIn';
  return null;
}

/** True when a text may be a keyword at all (so the workspace's words are worth reading). */
export function mayBeKeyword(text: string | undefined): text is string {
  return typeof text === 'string' && text.length <= MAX_KEYWORD_LENGTH * 4 && normalizeKeyword(text).length <= MAX_KEYWORD_LENGTH;
}
