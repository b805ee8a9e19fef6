import { Injectable } from '@nestjs/common';
import { SecretBox } from '../common/crypto/secret-box.js';
import { apiKeyRefProblem, resolveApiKeyRef } from './api-key-ref.js';
import { CallIntelligenceRepository } from './call-intelligence.repository.js';
import { NO_PROVIDER, type EvaluationCriterion, type ProviderSettings } from './call-intelligence.entity.js';
import { InvalidCallIntelligence } from './call-intelligence.errors.js';
import type { CallIntelligenceDto, SetCallIntelligenceDto, SetProviderDto } from './dto/call-intelligence.dto.js';

/** A provider as the worker calls it: settings and the opened API key. */
export interface ProviderAccess {
  baseUrl: string;
  model: string;
  apiKey: string | null;
  /** Why the key cannot be had (its environment variable is not set): every request fails with this. */
  keyProblem: string | null;
  prompt: string | null;
}

/** What the worker needs to analyse one workspace's calls; null parts are off. */
export interface IntelligencePlan {
  transcription: ProviderAccess | null;
  summary: ProviderAccess | null;
  evaluationCriteria: EvaluationCriterion[];
}

@Injectable()
export class CallIntelligenceService {
  constructor(
    private readonly repository: CallIntelligenceRepository,
    private readonly secrets: SecretBox,
  ) {}

  async get(workspaceId: string): Promise<CallIntelligenceDto> {
    const row = await this.repository.ofWorkspace(workspaceId);
    const view = (settings: ProviderSettings, sealed: string | null | undefined) => ({
      provider: settings.provider,
      baseUrl: settings.baseUrl,
      model: settings.model,
      apiKeySet: Boolean(sealed),
    });
    const summary = row?.summary ?? NO_PROVIDER;
    return {
      transcription: view(row?.transcription ?? NO_PROVIDER, row?.transcriptionApiKeySealed),
      summary: { ...view(summary, row?.summaryApiKeySealed), prompt: summary.prompt ?? null },
      evaluationCriteria: row?.evaluationCriteria ?? [],
    };
  }

  /** Replaces the settings whole; an API key left out stays as it was, null removes it. */
  async set(workspaceId: string, body: SetCallIntelligenceDto): Promise<CallIntelligenceDto> {
    const transcription = providerOf(body.transcription, 'transcription');
    const summary = { ...providerOf(body.summary, 'summary'), prompt: body.summary.prompt ?? null };
    const criteria = body.evaluationCriteria ?? [];
    const names = new Set(criteria.map((c) => c.name.trim().toLowerCase()));
    if (names.size !== criteria.length)
      throw InvalidCallIntelligence('Evaluation criteria must have distinct names.', 'evaluationCriteria');
    if (criteria.length > 0 && summary.provider === 'none')
      throw InvalidCallIntelligence('Evaluation criteria need a summary provider (the language model judges them).', 'summary.provider');
    const before = await this.repository.ofWorkspace(workspaceId);
    for (const [member, ref] of [
      ['transcription', body.transcription.apiKeyRef],
      ['summary', body.summary.apiKeyRef],
    ] as const) {
      const problem = ref ? apiKeyRefProblem(ref) : null;
      if (problem) throw InvalidCallIntelligence(problem, `${member}.apiKeyRef`);
    }
    const sealed = (given: string | null | undefined, kept: string | null | undefined) =>
      given === undefined ? (kept ?? null) : given === null ? null : this.secrets.seal(given);
    await this.repository.put(workspaceId, {
      transcription,
      summary,
      evaluationCriteria: criteria.map((c) => ({ name: c.name.trim(), description: c.description.trim() })),
      transcriptionApiKeySealed: sealed(body.transcription.apiKeyRef, before?.transcriptionApiKeySealed),
      summaryApiKeySealed: sealed(body.summary.apiKeyRef, before?.summaryApiKeySealed),
    });
    return this.get(workspaceId);
  }

  /** The providers with their keys opened (an `env:` reference read from this process's environment), for the worker. */
  async planFor(workspaceId: string): Promise<IntelligencePlan> {
    const row = await this.repository.ofWorkspace(workspaceId);
    const access = (settings: ProviderSettings | undefined, sealed: string | null | undefined): ProviderAccess | null => {
      if (settings?.provider !== 'openai-compatible' || !settings.baseUrl || !settings.model) return null;
      const key = sealed ? resolveApiKeyRef(this.secrets.open(sealed)) : { key: null };
      return {
        baseUrl: settings.baseUrl,
        model: settings.model,
        apiKey: 'key' in key ? key.key : null,
        keyProblem: 'problem' in key ? key.problem : null,
        prompt: settings.prompt ?? null,
      };
    };
    return {
      transcription: access(row?.transcription, row?.transcriptionApiKeySealed),
      summary: access(row?.summary, row?.summaryApiKeySealed),
      evaluationCriteria: row?.evaluationCriteria ?? [],
    };
  }
}

function providerOf(body: SetProviderDto, member: string): ProviderSettings {
  if (body.provider === 'none') return { ...NO_PROVIDER };
  if (!body.baseUrl) throw InvalidCallIntelligence(`${member}.baseUrl is required for an openai-compatible provider.`, `${member}.baseUrl`);
  if (!body.model) throw InvalidCallIntelligence(`${member}.model is required for an openai-compatible provider.`, `${member}.model`);
  return { provider: body.provider, baseUrl: body.baseUrl.replace(/\/+$/, ''), model: body.model };
}
