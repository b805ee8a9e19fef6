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
  @CreateDateColumn({ type: 'timestamptz' }) creationTime: Date;
}
