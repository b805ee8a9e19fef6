import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

export type TemplateHeaderFormat = 'TEXT' | 'IMAGE' | 'VIDEO' | 'DOCUMENT';
export type TemplateButtonType = 'QUICK_REPLY' | 'URL' | 'PHONE_NUMBER';

/** A component of a WhatsApp template, as the WhatsApp Business Management API describes it. */
export type TemplateComponent =
  | {
      type: 'HEADER';
      format: TemplateHeaderFormat;
      text?: string;
      example?: { header_handle?: string[]; header_url?: string[]; header_text?: string[] };
    }
  | { type: 'BODY'; text: string; example?: unknown }
  | { type: 'FOOTER'; text: string }
  | { type: 'BUTTONS'; buttons: Array<{ type: TemplateButtonType; text: string; url?: string; phone_number?: string }> };

/** An approved (or pending, rejected…) message template of a channel. */
@Entity('whatsapp_templates')
@Index(['workspaceId', 'channelId', 'name', 'language'], { unique: true })
export class WhatsAppTemplate {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid') workspaceId: string;
  @Column('uuid') channelId: string;
  @Column({ type: 'varchar', length: 512 }) name: string;
  @Column({ type: 'varchar', length: 20 }) language: string;
  @Column({ type: 'varchar', length: 30 }) category: string;
  @Column({ type: 'varchar', length: 30 }) status: string;
  @Column({ type: 'jsonb' }) components: TemplateComponent[];
  /** Meta's id of the template (`message_template_id`), when the WhatsApp Business Account gave one. */
  @Column({ type: 'varchar', length: 64, nullable: true }) providerTemplateId: string | null;
  /** Meta's quality score: GREEN, YELLOW, RED or UNKNOWN; null until Meta rates it. */
  @Column({ type: 'varchar', length: 20, nullable: true }) qualityScore: string | null;
  /** Why Meta last changed the status (a rejection's reason, a pause's title), when it said. */
  @Column({ type: 'varchar', length: 1000, nullable: true }) statusReason: string | null;
  @CreateDateColumn({ type: 'timestamptz' }) creationTime: Date;
}
