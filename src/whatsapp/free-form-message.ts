import type {
  SendAudioDto,
  SendFileDto,
  SendImageDto,
  SendInteractiveButtonsDto,
  SendTextDto,
  SendVideoDto,
} from './dto/send-message.dto.js';
import { ValidationError } from '../common/errors/domain-error.js';

/** A free-form message: its Cloud API request, the timeline preview and the message type of the webhooks. */
export interface FreeFormMessage {
  request: Record<string, unknown>;
  preview: string;
  messageType: 'Text' | 'Image' | 'Audio' | 'Video' | 'Document' | 'Interactive';
}

/** A message's Cloud API body; `to` when the send names a number (MessagingService addresses every request to its contact finally). */
const envelope = (to: string | undefined, type: string, content: Record<string, unknown>, replyTo?: string) => ({
  messaging_product: 'whatsapp',
  recipient_type: 'individual',
  ...(to ? { to: to.replace(/^\+/, '') } : {}),
  ...(replyTo ? { context: { message_id: replyTo } } : {}),
  type,
  [type]: content,
});

/** The WhatsApp Cloud API bodies of the free-form sends. */
export const FreeForm = {
  text: (dto: SendTextDto): FreeFormMessage => ({
    request: envelope(dto.toNumber, 'text', { body: dto.text, preview_url: dto.previewUrl ?? false }, dto.replyToMessageId),
    preview: dto.text,
    messageType: 'Text',
  }),
  image: (dto: SendImageDto): FreeFormMessage => ({
    request: envelope(dto.toNumber, 'image', { link: dto.imageUrl, ...(dto.caption ? { caption: dto.caption } : {}) }),
    preview: dto.caption ?? '[image]',
    messageType: 'Image',
  }),
  audio: (dto: SendAudioDto): FreeFormMessage => ({
    request: envelope(dto.toNumber, 'audio', { link: dto.audioUrl }),
    preview: '[audio]',
    messageType: 'Audio',
  }),
  video: (dto: SendVideoDto): FreeFormMessage => ({
    request: envelope(dto.toNumber, 'video', { link: dto.videoUrl, ...(dto.caption ? { caption: dto.caption } : {}) }),
    preview: dto.caption ?? '[video]',
    messageType: 'Video',
  }),
  file: (dto: SendFileDto): FreeFormMessage => ({
    request: envelope(dto.toNumber, 'document', {
      link: dto.fileUrl,
      filename: dto.fileName,
      ...(dto.caption ? { caption: dto.caption } : {}),
    }),
    preview: dto.caption ?? dto.fileName,
    messageType: 'Document',
  }),
  interactiveButtons: (dto: SendInteractiveButtonsDto): FreeFormMessage => {
    const ids = dto.buttons.map((b) => b.id);
    if (new Set(ids).size !== ids.length) {
      throw new ValidationError('WhatsApp:DuplicateButtonIds', 'Button ids must be unique.', {
        validationErrors: [{ message: 'Button ids must be unique.', members: ['buttons'] }],
      });
    }
    return {
      request: envelope(dto.toNumber, 'interactive', {
        type: 'button',
        ...(dto.header ? { header: { type: 'text', text: dto.header } } : {}),
        body: { text: dto.body },
        ...(dto.footer ? { footer: { text: dto.footer } } : {}),
        action: { buttons: dto.buttons.map((b) => ({ type: 'reply', reply: { id: b.id, title: b.title } })) },
      }),
      preview: dto.body,
      messageType: 'Interactive',
    };
  },
};
