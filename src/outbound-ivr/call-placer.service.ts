import { Injectable, Logger } from '@nestjs/common';
import type { Channel } from '../channels/channel.entity.js';
import { ChannelsService } from '../channels/channels.service.js';
import { NotFoundError } from '../common/errors/domain-error.js';
import { CallTracker, type CallRef } from './call-tracker.service.js';
import type { IvrScript } from './dialog/ivr-script.js';
import { scriptOfRequest } from './dialog/request-script.js';
import { scriptOfFlow } from './dialog/flow-script.js';
import type { FlowPrompt } from '../outbound-ivr-flows/flow-definition.js';
import { OutboundIvrFlowsService } from '../outbound-ivr-flows/outbound-ivr-flows.service.js';
import { CallType, isFinished, OutboundIvrAudioType, OutboundIvrStatus } from './ivr-enums.js';
import type { OutboundIvrRequestEntity } from './outbound-ivr-request.entity.js';
import { OutboundIvrRequestsRepository } from './outbound-ivr-requests.repository.js';
import { overWhatsApp, VoiceProviders } from './providers/voice-providers.js';
import { VoiceProviderAmbiguous, VoiceProviderRefused, VoiceProviderUnavailable, type CallSession } from './providers/voice-provider.js';
import { SpeechSynthesizer } from '../speech/speech-synthesizer.js';
import { SendGovernor } from '../governor/send-governor.service.js';
import { Outbox } from '../queue/outbox.service.js';
import { JobName } from '../queue/queue-names.js';
import { WhatsAppCallPermissions } from '../contacts/whatsapp-call-permissions.service.js';

/** The hang-up cause of a WhatsApp call Meta refused for want of the user's permission (its error 138006). */
const NO_PERMISSION = 'NoPermission';

/**
 * The worker's side of a call: synthesize what must be spoken, fix the script, and place the call
 * through the channel's voice provider exactly once.
 */
@Injectable()
export class CallPlacer {
  private readonly logger = new Logger(CallPlacer.name);

  constructor(
    private readonly requests: OutboundIvrRequestsRepository,
    private readonly channels: ChannelsService,
    private readonly tracker: CallTracker,
    private readonly speech: SpeechSynthesizer,
    private readonly flows: OutboundIvrFlowsService,
    private readonly providers: VoiceProviders,
    private readonly governor: SendGovernor,
    private readonly outbox: Outbox,
    private readonly permissions: WhatsAppCallPermissions,
  ) {}

  /** Placing jobs running in this process (a sandbox or WhatsApp call is followed inside its job). */
  get placing(): number {
    return this.running;
  }

  private running = 0;

  /**
   * Places the call of a Pending request. `lastAttempt` says the queue will not retry this job: a
   * provider that stays unavailable then ends the call Failed instead of leaving it Pending.
   */
  async place(ref: CallRef, lastAttempt: boolean): Promise<void> {
    this.running++;
    try {
      await this.tryToPlace(ref, lastAttempt);
    } catch (err) {
      // Nothing retries after the last attempt: the call ends Failed rather than staying Pending.
      if (lastAttempt) await this.fail(ref, `The call could not be placed: ${(err as Error).message}`);
      throw err;
    } finally {
      this.running--;
    }
  }

  private async tryToPlace(ref: CallRef, lastAttempt: boolean): Promise<void> {
    const request = await this.tracker.inTurn(() => this.requests.findById(ref.workspaceId, ref.id));
    if (!request || isFinished(request.status)) return; // cancelled, or finished by an earlier run
    if (request.awaitingPermission) return; // placed once the WhatsApp user gives permission (API.md §15)
    const channel = await this.channels.getRecent(ref.workspaceId, request.channelId, 'voice').catch((err: unknown) => {
      if (err instanceof NotFoundError) return null;
      throw err;
    });
    if (request.status !== OutboundIvrStatus.Pending) {
      // Placed by an earlier run of this job. The provider's callbacks follow a Twilio call; a
      // sandbox call is played inside the job, so it died with that run.
      if (channel && overWhatsApp(channel, request) && request.callId) return this.whatsAppCallLost(ref, channel, request);
      if (channel?.voiceProvider !== 'twilio') await this.fail(ref, 'The call was interrupted by a worker restart.');
      return;
    }
    // A run that died after asking the provider may have placed the call: never risk calling twice.
    if (request.placementStartedAt) {
      // A WhatsApp user's call is known at Meta from the start: it is ended there too.
      if (channel && overWhatsApp(channel, request) && request.callId) return this.whatsAppCallLost(ref, channel, request);
      return this.fail(ref, 'Placing the call was interrupted; it was not retried so the number is never called twice.');
    }
    if (!channel) return this.fail(ref, 'The channel was deleted or no longer has voice.');

    // The channel's calls per second and concurrent calls (API.md §13): a call over them stays
    // Pending and its job comes back when the governor says (a wait for a concurrent place can be
    // a whole call long, far too long to hold a job slot). Admitted, it holds a place until it ends.
    // A WhatsApp user's call cannot wait (it rings until it is answered): it is answered at once.
    const waitMs = request.direction === CallType.Inbound ? 0 : await this.governor.callStart(channel, ref.id);
    if (waitMs > 0) {
      const runAt = new Date(Date.now() + waitMs);
      await this.outbox.enqueue([{ jobName: JobName.PlaceIvrCall, workspaceId: ref.workspaceId, runAt, payload: { requestId: ref.id } }]);
      return;
    }
    const script = await this.prepareScript(request);
    const claimed = await this.tracker.inTurn(() => this.requests.claimPlacement(ref.workspaceId, ref.id, script, request.audioFileUrl));
    if (!claimed) return this.governor.callEnded(channel.id, ref.id); // cancelled meanwhile
    request.script = script;

    try {
      await this.providers.of(channel, request).call(channel, request, this.session(ref));
    } catch (err) {
      if (err instanceof VoiceProviderAmbiguous) {
        // The provider may have placed the call: its callbacks will say so, or the sweeper ends the call.
        this.logger.warn(`Outbound IVR ${ref.id}: ${err.message}; not retried, so the number is never called twice`);
        return;
      }
      if (err instanceof VoiceProviderUnavailable && !lastAttempt) {
        await this.requests.releasePlacement(ref.workspaceId, ref.id);
        await this.governor.callEnded(channel.id, ref.id);
        throw err;
      }
      if (err instanceof VoiceProviderUnavailable || err instanceof VoiceProviderRefused) {
        const cause = err instanceof VoiceProviderRefused ? err.hangupCause : 'PROVIDER_UNAVAILABLE';
        const revoked = cause === NO_PERMISSION && overWhatsApp(channel, request) && (await this.revokePermission(channel, request));
        await this.tracker.progress(ref, {
          kind: 'ended',
          at: new Date(),
          ending: 'failed',
          errorMessage: revoked
            ? `${err.message} The permission recorded for this user was dropped: the next call asks them for it again.`
            : err.message,
          hangupCause: cause,
        });
        return;
      }
      throw err;
    }
  }

  /**
   * Meta refused a WhatsApp call for want of the user's permission (API.md §15) although the service
   * had one: the user revoked it without a webhook saying so, and the stored grant is dropped.
   */
  private async revokePermission(channel: Channel, request: OutboundIvrRequestEntity): Promise<boolean> {
    return this.permissions.revoke(request.workspaceId, channel.id, request.destinationNumber, new Date()).catch((err: unknown) => {
      this.logger.warn(`Outbound IVR ${request.id}: the refused call permission was not dropped: ${(err as Error).message}`);
      return false;
    });
  }

  /** Asks the provider to end a call that was cancelled while it ran. */
  async hangUp(ref: CallRef): Promise<void> {
    const request = await this.requests.findById(ref.workspaceId, ref.id);
    if (!request?.callId) return;
    const channel = await this.channels.get(ref.workspaceId, request.channelId, 'voice').catch(() => null);
    if (!channel) return;
    try {
      await this.providers.of(channel, request).hangUp(channel, request.callId);
    } catch (err) {
      if (err instanceof VoiceProviderRefused) this.logger.warn(`Hang-up of call ${request.callId} refused: ${err.message}`);
      else throw err;
    }
  }

  private session(ref: CallRef): CallSession {
    return {
      progress: (progress) => this.tracker.progress(ref, progress),
      converse: (input, turn) => this.tracker.converse(ref, input, turn),
      isLive: () => this.tracker.isLive(ref),
      batch: (work) => this.tracker.batch(ref, work),
    };
  }

  /** Speech is synthesized here, once per call; a flow runs the version pinned when the call was created. */
  private async prepareScript(request: OutboundIvrRequestEntity): Promise<IvrScript> {
    const script = await this.scriptOf(request);
    if (request.machineDetection === 'LeaveMessage') {
      script.voicemailUrl = await this.audioOf(request.workspaceId, {
        audioFileUrl: request.voicemailAudioFileUrl,
        ttsText: request.voicemailTtsText,
        ttsVoice: request.ttsVoice,
      });
    }
    if (request.record) {
      script.announcementUrl = await this.audioOf(request.workspaceId, {
        audioFileUrl: request.recordingAnnouncementAudioUrl,
        ttsText: request.recordingAnnouncementTtsText,
        ttsVoice: request.ttsVoice,
      });
    }
    return script;
  }

  private async scriptOf(request: OutboundIvrRequestEntity): Promise<IvrScript> {
    if (request.flowId && request.flowVersion) {
      const flow = await this.flows.getVersion(request.workspaceId, request.flowId, request.flowVersion);
      return scriptOfFlow(request, flow.definition, (prompt) => this.audioOf(request.workspaceId, prompt));
    }
    if (request.audioType === OutboundIvrAudioType.TextToSpeech && request.ttsText && !request.audioFileUrl) {
      request.audioFileUrl = await this.audioOf(request.workspaceId, {
        audioFileUrl: null,
        ttsText: request.ttsText,
        ttsVoice: request.ttsVoice,
      });
    }
    return scriptOfRequest(request, request.audioFileUrl ?? '');
  }

  private async audioOf(workspaceId: string, prompt: FlowPrompt): Promise<string | null> {
    if (prompt.audioFileUrl) return prompt.audioFileUrl;
    if (!prompt.ttsText) return null;
    return (await this.speech.synthesize(workspaceId, prompt.ttsText, prompt.ttsVoice)).url;
  }

  /**
   * A WhatsApp call's media lived in a worker that died (API.md §15): the call is ended at Meta and
   * the record ends Failed with `WorkerLost`, once (the tracker ignores a second end).
   */
  private async whatsAppCallLost(ref: CallRef, channel: Channel, request: OutboundIvrRequestEntity): Promise<void> {
    const callId = request.callId!;
    await this.providers
      .of(channel, request)
      .hangUp(channel, callId)
      .catch((err: unknown) => {
        this.logger.warn(
          `Outbound IVR ${ref.id}: terminating WhatsApp call ${callId} after its worker was lost failed: ${(err as Error).message}`,
        );
      });
    await this.tracker.progress(ref, {
      kind: 'ended',
      at: new Date(),
      ending: 'failed',
      hangupCause: 'WorkerLost',
      errorMessage: 'The worker running the WhatsApp call stopped during the call; the call was ended.',
    });
  }

  private async fail(ref: CallRef, message: string): Promise<void> {
    await this.tracker.progress(ref, { kind: 'ended', at: new Date(), ending: 'failed', errorMessage: message });
  }
}
