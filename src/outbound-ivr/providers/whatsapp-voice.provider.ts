import { Injectable, Logger } from '@nestjs/common';
import type { Channel } from '../../channels/channel.entity.js';
import { DomainError } from '../../common/errors/domain-error.js';
import { ChannelsService } from '../../channels/channels.service.js';
import { AppConfig } from '../../config/app-config.js';
import type { MediaTransportOptions } from '../../voice/webrtc/webrtc-media-transport.js';
import { BusinessInitiatedCall } from '../../voice/whatsapp-calls/business-initiated-call.js';
import { UserInitiatedCall } from '../../voice/whatsapp-calls/user-initiated-call.js';
import type { CallEnd, WhatsAppCall } from '../../voice/whatsapp-calls/whatsapp-call.js';
import { CallSignalBus } from '../../voice/whatsapp-calls/call-signal-bus.js';
import { PressedKeys } from '../../voice/whatsapp-calls/pressed-keys.js';
import { CallActionRefused, rejectCall, terminateCall, type GraphNumber } from '../../voice/whatsapp-calls/graph-calling.js';
import type { CallProgress } from '../call-progress.js';
import type { Instructions } from '../dialog/dialog-state.js';
import { CallType } from '../ivr-enums.js';
import type { OutboundIvrRequestEntity } from '../outbound-ivr-request.entity.js';
import { RECORDING_SAMPLE_RATE } from '../recording/call-audio.js';
import { CallRecordings } from '../recording/call-recordings.service.js';
import { MediaTape } from '../recording/media-tape.js';
import { type CallSession, type VoiceProvider, VoiceProviderRefused, VoiceProviderUnavailable } from './voice-provider.js';

/** Meta's error for a business-initiated call to a user who gave no call permission. */
const NO_CALL_PERMISSION = 138006;

/** Marks the end of a call that came while the dialog waited for something else. */
class CallEnded {
  constructor(readonly end: CallEnd) {}
}

/**
 * Runs an outbound IVR over a WhatsApp business-initiated call (API.md §15): the call is placed
 * with Graph `/calls` `connect` and a WebRTC peer in this worker; the dialog is the phone one
 * ({@link CallSession.converse}): its prompts are played as paced Opus, the keys the user presses
 * (RFC 4733 telephone-events) are its digits, and the call is terminated when the dialog ends.
 */
@Injectable()
export class WhatsAppVoiceProvider implements VoiceProvider {
  private readonly logger = new Logger(WhatsAppVoiceProvider.name);

  constructor(
    private readonly config: AppConfig,
    private readonly channels: ChannelsService,
    private readonly signals: CallSignalBus,
    private readonly recordings: CallRecordings,
  ) {}

  async call(channel: Channel, request: OutboundIvrRequestEntity, session: CallSession): Promise<void> {
    const call = request.direction === CallType.Inbound ? await this.answer(channel, request) : await this.place(channel, request);
    // A recorded call is recorded here, from the media this worker sends and receives (API.md §16).
    const tape = request.record ? new MediaTape() : null;
    try {
      await this.run(call, request, session, tape);
    } catch (err) {
      // Whatever went wrong here, the call must not stay up at Meta with nobody behind it.
      await call.hangUp({ kind: 'media-failed', message: `The dialog failed: ${(err as Error).message}` });
      throw err;
    } finally {
      // Stored once the outcome is reported: the outcome webhook never waits for the file.
      if (tape?.started) {
        tape.end();
        await this.recordings.storeAndSettle({ id: request.id, workspaceId: request.workspaceId }, tape.audio, tape.lengthMs);
      }
    }
  }

  private async run(call: WhatsAppCall, request: OutboundIvrRequestEntity, session: CallSession, tape: MediaTape | null): Promise<void> {
    const ended = call.ended.then((end) => new CallEnded(end));
    if (!(await session.progress({ kind: 'initiated', at: new Date(), callId: call.callId }))) return void (await call.hangUp());

    const ringingOrEnd = await Promise.race([call.ringing.then(() => null), ended]);
    if (ringingOrEnd) return void (await session.progress(this.ending(ringingOrEnd.end, null)));
    if (!(await session.progress({ kind: 'ringing', at: new Date() }))) return void (await call.hangUp());

    const answered = await Promise.race([
      call.answered.then(
        () => true,
        () => false,
      ),
      ended.then(() => false),
    ]);
    if (!answered) return void (await session.progress(this.ending((await ended).end, null)));
    const answeredAt = Date.now();
    if (tape) {
      tape.start(answeredAt);
      call.media.onAudio((samples, rtpTimestamp) => tape.heard(samples, rtpTimestamp));
      void call.ended.then(() => tape.end());
    }

    // Keys are taken while a question is asked (its prompt, then the wait), as a phone call's gather
    // takes them: the files played before it (a recording announcement, a welcome, a response) are
    // heard in full, and a key pressed during them answers no question.
    const keys = new PressedKeys();
    const asking = { now: false };
    call.media.onKey((key) => {
      if (!asking.now) return;
      call.media.stop(); // a key cuts the question's prompt short, as on a phone IVR
      keys.push(key);
    });
    void call.ended.then(() => keys.cancel());

    let instructions = await session.converse({ kind: 'answered' });
    while (true) {
      asking.now = false;
      keys.clear();
      const played = await Promise.race([this.play(call, request.workspaceId, instructions, tape, () => (asking.now = true)), ended]);
      if (played instanceof CallEnded) return void (await session.progress(this.ending(played.end, answeredAt)));
      if (!instructions.gather) break;
      const key = await Promise.race([keys.next(instructions.gather.timeoutMs), ended]);
      if (key instanceof CallEnded) return void (await session.progress(this.ending(key.end, answeredAt)));
      if (!(await session.isLive())) return void (await call.hangUp());
      instructions = await session.converse(key ? { kind: 'digit', digit: key } : { kind: 'silence' }, instructions.turn);
    }
    await call.hangUp();
    await session.progress({
      kind: 'ended',
      at: new Date(),
      ending: 'completed',
      durationSeconds: Math.round((Date.now() - answeredAt) / 1000),
    });
  }

  async hangUp(channel: Channel, callId: string): Promise<void> {
    try {
      await terminateCall(this.numberOf(channel), callId);
    } catch (err) {
      throw this.providerError(err);
    }
  }

  /** Declines a WhatsApp user's call before it is answered (`action: reject`). */
  async reject(channel: Channel, callId: string): Promise<void> {
    await rejectCall(this.numberOf(channel), callId);
  }

  /** Meta keeps no call report to ask for: the webhooks are the account. */
  finalReport(): Promise<null> {
    return Promise.resolve(null);
  }

  private async place(channel: Channel, request: OutboundIvrRequestEntity): Promise<WhatsAppCall> {
    try {
      return await BusinessInitiatedCall.place(this.numberOf(channel), request.destinationNumber, this.signals, {
        media: this.mediaOptions(),
        tracking: request.id,
        ringTimeoutMs: this.config.voice.whatsAppCallRingTimeoutMs,
      });
    } catch (err) {
      throw this.providerError(err);
    }
  }

  /** A WhatsApp user's call (its record holds Meta's SDP offer and call id): answered here. */
  private async answer(channel: Channel, request: OutboundIvrRequestEntity): Promise<WhatsAppCall> {
    if (!request.callId || !request.offerSdp) throw new VoiceProviderRefused("The user's call has no SDP offer to answer.", 'NoOffer');
    try {
      return await UserInitiatedCall.answer(this.numberOf(channel), request.callId, request.offerSdp, this.signals, {
        media: this.mediaOptions(),
        tracking: request.id,
      });
    } catch (err) {
      throw this.providerError(err);
    }
  }

  private mediaOptions(): MediaTransportOptions {
    const { voice } = this.config;
    return {
      connectTimeoutMs: voice.whatsAppCallConnectTimeoutMs,
      ...(voice.whatsAppCallHostAddresses.length > 0 && {
        hostAddresses: voice.whatsAppCallHostAddresses,
        onlyLocalAddresses: voice.whatsAppCallHostAddresses,
      }),
    };
  }

  /** Meta's refusal or outage as the voice provider errors the call placer knows. */
  private providerError(err: unknown): unknown {
    if (err instanceof CallActionRefused) {
      if (err.code === NO_CALL_PERMISSION)
        return new VoiceProviderRefused(
          `The WhatsApp user has not given this business permission to call (Meta error 138006): ${err.message}`,
          'NoPermission',
        );
      return new VoiceProviderRefused(err.message, err.code ? `WhatsApp${err.code}` : 'WhatsAppRefused');
    }
    if (err instanceof DomainError && err.code === 'WhatsApp:GraphUnavailable') return new VoiceProviderUnavailable(err.message);
    return err;
  }

  /**
   * Plays what the dialog says, the question's prompt last (`asking` is called as it starts, even
   * when the prompt cannot be played); a key pressed during the prompt stops it.
   */
  private async play(
    call: WhatsAppCall,
    workspaceId: string,
    instructions: Instructions,
    tape: MediaTape | null,
    asking: () => void,
  ): Promise<void> {
    const urls = [...instructions.play, ...(instructions.gather ? [instructions.gather.promptUrl] : [])];
    for (const [index, url] of urls.entries()) {
      if (instructions.gather && index === urls.length - 1) asking();
      const samples = await this.recordings.promptSamples(workspaceId, url);
      if (!samples) {
        this.logger.warn(`A WhatsApp call's prompt ${url} is not in this service's storage: it is skipped`);
        continue;
      }
      const report = await call.media.play({ sampleRate: RECORDING_SAMPLE_RATE, samples });
      tape?.played(report.dueAt, samples, report.packets);
      if (report.stopped) return;
    }
  }

  /** How a call that did not reach the dialog's end ended, as a phone call's would be reported. */
  private ending(end: CallEnd, answeredAt: number | null): CallProgress {
    const at = new Date();
    const durationSeconds = answeredAt === null ? null : Math.round((at.getTime() - answeredAt) / 1000);
    switch (end.kind) {
      case 'rejected':
        return { kind: 'ended', at, ending: 'busy', hangupCause: 'REJECTED' };
      case 'no-answer':
        return { kind: 'ended', at, ending: 'no-answer' };
      case 'media-failed':
        return { kind: 'ended', at, ending: 'failed', hangupCause: 'MediaPathFailed', errorMessage: end.message };
      case 'terminated':
        return answeredAt === null
          ? {
              kind: 'ended',
              at,
              ending: 'failed',
              hangupCause: `WhatsApp${end.status || 'Terminated'}`,
              errorMessage: 'Meta ended the call before it was answered.',
            }
          : { kind: 'ended', at, ending: 'completed', durationSeconds: end.durationSeconds ?? durationSeconds, hangupCause: 'UserHangUp' };
    }
  }

  private numberOf(channel: Channel): GraphNumber {
    return {
      graphUrl: this.config.whatsapp.graphUrl,
      phoneNumberId: channel.whatsAppPhoneNumberId!,
      accessToken: this.channels.whatsAppCredentials(channel).accessToken,
    };
  }
}
