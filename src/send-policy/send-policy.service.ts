import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { SendPolicyDto, UpdateSendPolicyDto } from './dto/send-policy.dto.js';
import {
  DEFAULT_START_WORDS,
  DEFAULT_STOP_WORDS,
  keywordConsent,
  MAX_KEYWORD_LENGTH,
  mayBeKeyword,
  normalizeKeyword,
  tidyKeyword,
} from './keywords.js';
import { SendPoliciesRepository } from './send-policies.repository.js';
import type { SendPolicy } from './send-policy.entity.js';
import { InvalidKeywords } from './send-policy.errors.js';

/** The workspace's send policy: stop and start words (API.md §13). */
@Injectable()
export class SendPolicyService {
  constructor(private readonly policies: SendPoliciesRepository) {}

  async get(workspaceId: string): Promise<SendPolicyDto> {
    return view(await this.policies.ofWorkspace(workspaceId));
  }

  /** Update Send Policy: the parts present; null restores a part's defaults. */
  async update(workspaceId: string, input: UpdateSendPolicyDto): Promise<SendPolicyDto> {
    const parts: Partial<Pick<SendPolicy, 'stopWords' | 'startWords'>> = {};
    if (input.stopWords !== undefined) parts.stopWords = input.stopWords && checkedWords(input.stopWords, 'stopWords');
    if (input.startWords !== undefined) parts.startWords = input.startWords && checkedWords(input.startWords, 'startWords');
    const current = view(await this.policies.ofWorkspace(workspaceId));
    const next = {
      stopWords: parts.stopWords === undefined ? current.stopWords : (parts.stopWords ?? [...DEFAULT_STOP_WORDS]),
      startWords: parts.startWords === undefined ? current.startWords : (parts.startWords ?? [...DEFAULT_START_WORDS]),
    };
    const stops = new Set(next.stopWords.map(normalizeKeyword));
    const both = next.startWords.find((w) => stops.has(normalizeKeyword(w)));
    if (both !== undefined) {
      throw InvalidKeywords(
        `'${both}' cannot be both a stop word and a start word.`,
        input.startWords !== undefined ? 'startWords' : 'stopWords',
      );
    }
    if (Object.keys(parts).length > 0) await this.policies.put(workspaceId, parts);
    return this.get(workspaceId);
  }

  /**
   * What an inbound text says of the sender's marketing consent under the workspace's words: a stop
   * word OptedOut, a start word OptedIn, else null. Read in the caller's transaction, and only for a
   * text short enough to be a word.
   */
  async keywordIn(manager: EntityManager, workspaceId: string, text: string | undefined): Promise<'OptedOut' | 'OptedIn' | null> {
    if (!mayBeKeyword(text)) return null;
    return keywordConsent(text, view(await this.policies.withManager(manager).ofWorkspace(workspaceId)));
  }
}

function view(policy: SendPolicy | null): SendPolicyDto {
  return {
    stopWords: policy?.stopWords ?? [...DEFAULT_STOP_WORDS],
    startWords: policy?.startWords ?? [...DEFAULT_START_WORDS],
  };
}

/** The words tidied and checked: none blank or longer than a word may be, none twice. */
function checkedWords(words: string[], member: string): string[] {
  const seen = new Set<string>();
  return words.map((raw, index) => {
    const word = tidyKeyword(raw);
    const key = normalizeKeyword(word);
    if (key === '') throw InvalidKeywords(`${member}[${index}] is blank.`, `${member}[${index}]`);
    if (key.length > MAX_KEYWORD_LENGTH)
      throw InvalidKeywords(`${member}[${index}] is longer than ${MAX_KEYWORD_LENGTH} characters.`, `${member}[${index}]`);
    if (seen.has(key)) throw InvalidKeywords(`${member}[${index}] '${word}' is in the list twice.`, `${member}[${index}]`);
    seen.add(key);
    return word;
  });
}
