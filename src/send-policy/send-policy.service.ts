import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { SharedInvalidation } from '../common/cache/shared-invalidation.js';
import { ContactPropertiesService } from '../contact-properties/contact-properties.service.js';
import { ContactPropertyType } from '../contact-properties/contact-property-type.js';
import type { QuietHoursInput, SendPolicyDto, TimeZonePolicyInput, UpdateSendPolicyDto } from './dto/send-policy.dto.js';
import {
  DEFAULT_START_WORDS,
  DEFAULT_STOP_WORDS,
  keywordConsent,
  MAX_KEYWORD_LENGTH,
  mayBeKeyword,
  normalizeKeyword,
  tidyKeyword,
} from './keywords.js';
import { QUIET_HOURS_SCOPES, type QuietHours } from './quiet-hours.js';
import { SendPoliciesRepository } from './send-policies.repository.js';
import { DEFAULT_TIME_ZONE_POLICY, type SendPolicy, type SendPolicyParts, type TimeZonePolicy } from './send-policy.entity.js';
import { InvalidKeywords, InvalidSendPolicy } from './send-policy.errors.js';
import { isTimeZone } from './time-zones.js';

/** The workspace's send policy as sends apply it: every part, defaults filled in. */
export type SendSettings = SendPolicyDto;

/** How long {@link SendPolicyService.settings} may serve a workspace's policy without reading it again. */
const SETTINGS_TTL_MS = 5000;

/** The workspace's send policy (API.md §13): stop and start words, quiet hours, time zones, the frequency cap. */
@Injectable()
export class SendPolicyService {
  /** Policies as sends apply them, by workspace (every call and marketing send asks); concurrent misses share one read. */
  private readonly recent = new LRUCache<string, Readonly<SendSettings>>({
    max: 10_000,
    ttl: SETTINGS_TTL_MS,
    fetchMethod: (workspaceId) => this.get(workspaceId),
  });

  constructor(
    private readonly policies: SendPoliciesRepository,
    private readonly properties: ContactPropertiesService,
    private readonly invalidation: SharedInvalidation,
  ) {
    invalidation.on('send-policy', (workspaceId) => this.recent.delete(workspaceId));
  }

  async get(workspaceId: string): Promise<SendPolicyDto> {
    return view(await this.policies.ofWorkspace(workspaceId));
  }

  /**
   * The policy a send applies, served from memory for up to {@link SETTINGS_TTL_MS}: an update is
   * seen at once by every process (a Redis message drops the entry), the TTL bounds it if that
   * message is lost. Shared: never modify it.
   */
  async settings(workspaceId: string): Promise<Readonly<SendSettings>> {
    return (await this.recent.fetch(workspaceId))!;
  }

  /** Update Send Policy: the parts present; null restores a part's default. Nothing is written unless every part is valid. */
  async update(workspaceId: string, input: UpdateSendPolicyDto): Promise<SendPolicyDto> {
    const parts: SendPolicyParts = {};
    if (input.stopWords !== undefined) parts.stopWords = input.stopWords && checkedWords(input.stopWords, 'stopWords');
    if (input.startWords !== undefined) parts.startWords = input.startWords && checkedWords(input.startWords, 'startWords');
    if (input.quietHours !== undefined) parts.quietHours = input.quietHours && checkedQuietHours(input.quietHours);
    if (input.timezone !== undefined) parts.timezone = input.timezone && (await this.checkedTimeZone(workspaceId, input.timezone));
    if (input.frequencyCap !== undefined)
      parts.frequencyCap = input.frequencyCap && {
        marketingPerDays: { count: input.frequencyCap.marketingPerDays.count, days: input.frequencyCap.marketingPerDays.days },
      };
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
    if (Object.keys(parts).length > 0) {
      await this.policies.put(workspaceId, parts);
      this.invalidation.invalidate('send-policy', workspaceId);
    }
    return this.get(workspaceId);
  }

  /**
   * What an inbound text says of the sender's marketing consent under the workspace's words: a stop
   * word OptedOut, a start word OptedIn, else null. Read in the caller's transaction, and only for a
   * text short enough to be a word.
   */
  async keywordIn(workspaceId: string, text: string | undefined): Promise<'OptedOut' | 'OptedIn' | null> {
    if (!mayBeKeyword(text)) return null;
    return keywordConsent(text, view(await this.policies.ofWorkspace(workspaceId)));
  }

  /** {@link keywordIn} for many texts of one workspace: its words are read once, when a first text may be one. */
  keywordsOf(workspaceId: string): (text: string | undefined) => Promise<'OptedOut' | 'OptedIn' | null> {
    let policy: Promise<SendPolicyDto> | undefined;
    return async (text) => {
      if (!mayBeKeyword(text)) return null;
      policy ??= this.policies.ofWorkspace(workspaceId).then(view);
      return keywordConsent(text, await policy);
    };
  }

  /** The zone setting checked: a known zone, and a property of the workspace that can hold a zone name. */
  private async checkedTimeZone(workspaceId: string, input: TimeZonePolicyInput): Promise<TimeZonePolicy> {
    const zone = input.default ?? DEFAULT_TIME_ZONE_POLICY.default;
    if (!isTimeZone(zone))
      throw InvalidSendPolicy(`timezone.default '${zone}' is not an IANA time zone (e.g. Asia/Riyadh).`, 'timezone.default');
    const property = input.property ?? null;
    if (property !== null) {
      const definition = (await this.properties.getMany(workspaceId, [property])).get(property);
      if (!definition)
        throw InvalidSendPolicy(`timezone.property '${property}' is not a contact property of this workspace.`, 'timezone.property');
      if (definition.type !== ContactPropertyType.Text && definition.type !== ContactPropertyType.Select)
        throw InvalidSendPolicy(
          `timezone.property '${definition.name}' must be a Text or Select property (it holds a time zone name).`,
          'timezone.property',
        );
    }
    return { fromPhoneNumber: input.fromPhoneNumber ?? DEFAULT_TIME_ZONE_POLICY.fromPhoneNumber, property, default: zone };
  }
}

function view(policy: SendPolicy | null): SendPolicyDto {
  return {
    quietHours: policy?.quietHours ?? null,
    timezone: { ...DEFAULT_TIME_ZONE_POLICY, ...policy?.timezone },
    stopWords: policy?.stopWords ?? [...DEFAULT_STOP_WORDS],
    startWords: policy?.startWords ?? [...DEFAULT_START_WORDS],
    frequencyCap: policy?.frequencyCap ?? null,
  };
}

/** Quiet hours of some length (start and end differ), applying to what the input says (default both). */
function checkedQuietHours(input: QuietHoursInput): QuietHours {
  if (input.start === input.end)
    throw InvalidSendPolicy(
      'quietHours.start and quietHours.end must differ (the quiet period would be empty or the whole day).',
      'quietHours.end',
    );
  return { start: input.start, end: input.end, appliesTo: input.appliesTo ?? [...QUIET_HOURS_SCOPES] };
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
