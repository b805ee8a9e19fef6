import { Injectable } from '@nestjs/common';
import type { Channel } from '../../channels/channel.entity.js';
import { CallType } from '../ivr-enums.js';
import type { OutboundIvrRequestEntity } from '../outbound-ivr-request.entity.js';
import { SandboxVoiceProvider } from './sandbox-voice.provider.js';
import { TwilioVoiceProvider } from './twilio-voice.provider.js';
import type { VoiceProvider } from './voice-provider.js';
import { WhatsAppVoiceProvider } from './whatsapp-voice.provider.js';

/**
 * Which provider runs a call: a WhatsApp call (API.md §15: any call of a WhatsApp-only channel, and
 * a user's call to the WhatsApp number of a channel that has a phone line too; simulated by the
 * sandbox on a sandbox number), else the channel's voice provider.
 */
@Injectable()
export class VoiceProviders {
  constructor(
    private readonly sandbox: SandboxVoiceProvider,
    private readonly twilio: TwilioVoiceProvider,
    private readonly whatsApp: WhatsAppVoiceProvider,
  ) {}

  of(channel: Channel, call: Pick<OutboundIvrRequestEntity, 'direction'>): VoiceProvider {
    if (overWhatsApp(channel, call)) return channel.whatsAppProvider === 'sandbox' ? this.sandbox : this.whatsApp;
    return channel.voiceProvider === 'twilio' ? this.twilio : this.sandbox;
  }
}

/** Whether a call is a WhatsApp call: its media lives in a worker, and dies with it. */
export function overWhatsApp(channel: Channel, call: Pick<OutboundIvrRequestEntity, 'direction'>): boolean {
  return !channel.hasVoice || call.direction === CallType.Inbound;
}
