import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { TemplateParameterDto } from '../whatsapp/dto/send-template.dto.js';
import type { CreateOutboundIvrRequest } from '../outbound-ivr/dto/create-outbound-ivr.dto.js';

export type CampaignKind = 'WhatsAppTemplate' | 'OutboundIvr';
export const CAMPAIGN_KINDS: CampaignKind[] = ['WhatsAppTemplate', 'OutboundIvr'];

export type CampaignStatus = 'Draft' | 'Scheduled' | 'Running' | 'Paused' | 'Completed' | 'Cancelled';
export const CAMPAIGN_STATUSES: CampaignStatus[] = ['Draft', 'Scheduled', 'Running', 'Paused', 'Completed', 'Cancelled'];

/** Send Template's parameters, whose text values may hold `{{contact.name}}`, `{{contact.company}}`, `{{property.<Name>}}`. */
export interface CampaignTemplate {
  templateName: string;
  language: string;
  parameters: TemplateParameterDto[];
}

/** Create Outbound IVR's body without what the campaign gives per call. */
export type CampaignIvr = Omit<CreateOutboundIvrRequest, 'channelId' | 'destinationNumber' | 'externalId' | 'sendAt'>;

/** Who the campaign reaches, as created: exactly one of the three (API.md §13). */
export interface CampaignAudience {
  contactIds?: string[];
  tagIds?: string[];
  /** Search Contacts' criteria (paging and sorting dropped). */
  search?: Record<string, unknown>;
}

/** The ends of a call a redial policy may place again: statuses NoAnswer and Busy, and result AnsweringMachine. */
export const REDIAL_ENDINGS = ['NoAnswer', 'Busy', 'AnsweringMachine'] as const;
export type RedialEnding = (typeof REDIAL_ENDINGS)[number];

export interface CampaignRedial {
  maxAttempts: number;
  on: RedialEnding[];
  delayMinutes: number;
}

/** A broadcast of one template (or one IVR call) to an audience fixed at start (API.md §13). */
@Entity('campaigns')
@Index('IDX_campaigns_workspace_creation', ['workspaceId', 'creationTime'])
export class Campaign {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'PK_campaigns' }) id: string;
  @Column('uuid') workspaceId: string;
  @Column({ type: 'varchar', length: 200 }) name: string;
  @Column('uuid') channelId: string;
  @Column({ type: 'varchar', length: 20 }) kind: CampaignKind;
  @Column({ type: 'varchar', length: 20 }) status: CampaignStatus;
  /**
   * Why a Paused campaign paused: `Manual`; `MessagingLimitReached` when the governor refused a send;
   * `TemplatePaused`, `TemplateDisabled` or `TemplateRecategorisedToMarketing` when Meta changed the
   * template; `TemplateNotApproved` when a send found it no longer approved.
   */
  @Column({ type: 'varchar', length: 100, nullable: true }) pausedReason: string | null;
  @Column({ type: 'jsonb', nullable: true }) template: CampaignTemplate | null;
  /** Create Outbound IVR's body without channelId, destinationNumber and externalId. */
  @Column({ type: 'jsonb', nullable: true }) ivr: CampaignIvr | null;
  @Column({ type: 'jsonb' }) audience: CampaignAudience;
  @Column({ type: 'jsonb', nullable: true }) redial: CampaignRedial | null;
  @Column({ type: 'timestamptz', nullable: true }) scheduledAt: Date | null;
  @Column({ type: 'timestamptz', nullable: true }) startedAt: Date | null;
  @Column({ type: 'timestamptz', nullable: true }) completedAt: Date | null;
  /** The service account that created it: the campaign's sends are made as it. */
  @Column({ type: 'uuid', nullable: true }) creatorId: string | null;
  @Column({ type: 'varchar', length: 200, nullable: true }) creatorName: string | null;
  @Column({ type: 'timestamptz' }) creationTime: Date;
}
