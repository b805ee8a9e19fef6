import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

export const INTELLIGENCE_PROVIDERS = ['none', 'openai-compatible'] as const;
export type IntelligenceProvider = (typeof INTELLIGENCE_PROVIDERS)[number];

/** One provider a workspace points at (API.md §16); its API key is kept apart, sealed. */
export interface ProviderSettings {
  provider: IntelligenceProvider;
  baseUrl: string | null;
  model: string | null;
  /** Summary only: extra instructions for the language model. */
  prompt?: string | null;
}

export interface EvaluationCriterion {
  name: string;
  description: string;
}

/**
 * A workspace's call intelligence (API.md §16): which OpenAI-compatible servers transcribe and
 * analyse its recorded calls. A workspace without a row has both providers `none`.
 */
@Entity('call_intelligence_settings')
export class CallIntelligenceSettings {
  @PrimaryColumn('uuid') workspaceId: string;
  @Column({ type: 'jsonb' }) transcription: ProviderSettings;
  @Column({ type: 'jsonb' }) summary: ProviderSettings;
  @Column({ type: 'jsonb' }) evaluationCriteria: EvaluationCriterion[];
  /** API keys, sealed with the encryption key; never returned. */
  @Column({ type: 'text', nullable: true }) transcriptionApiKeySealed: string | null;
  @Column({ type: 'text', nullable: true }) summaryApiKeySealed: string | null;
  @UpdateDateColumn({ type: 'timestamptz' }) lastModificationTime: Date;
}

export const NO_PROVIDER: Readonly<ProviderSettings> = { provider: 'none', baseUrl: null, model: null };
