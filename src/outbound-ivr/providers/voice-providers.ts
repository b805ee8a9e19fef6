import { Injectable } from '@nestjs/common';
import type { Channel } from '../../channels/channel.entity.js';
import { SandboxVoiceProvider } from './sandbox-voice.provider.js';
import { TwilioVoiceProvider } from './twilio-voice.provider.js';
import type { VoiceProvider } from './voice-provider.js';
import { WhatsAppVoiceProvider } from './whatsapp-voice.provider.js';

/**
 * Which provider runs a channel's calls: a WhatsApp channel's own calls (API.md §15; simulated by
 * the sandbox on a sandbox number), else its voice provider.
 */
@Injectable()
export class VoiceProviders {
  constructor(
    private readonly sandbox: SandboxVoiceProvider,
    private readonly twilio: TwilioVoiceProvider,
    private readonly whatsApp: WhatsAppVoiceProvider,
  ) {}

  of(channel: Channel): VoiceProvider {
    if (!channel.hasVoice) return channel.whatsAppProvider === 'sandbox' ? this.sandbox : this.whatsApp;
    return channel.voiceProvider === 'twilio' ? this.twilio : this.sandbox;
  }
}
