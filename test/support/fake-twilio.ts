import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { getExpectedTwilioSignature } from 'twilio/lib/webhooks/webhooks.js';

/** How the fake plays one call out. */
export interface FakeCallScript {
  /** true answers; 'busy', 'no-answer' and 'failed' end the call that way. */
  answer: true | 'busy' | 'no-answer' | 'failed';
  /** Digits pressed at successive gathers; '' or none left is silence. */
  digits?: string[];
  /** Seconds reported as CallDuration when the call completes. */
  durationSeconds?: number;
  /** How long it rings before it is answered (or not). */
  ringMs?: number;
  /** Answer Calls.json with this error status instead of placing the call. */
  apiStatus?: number;
  /**
   * Who picks up, for answering-machine detection: 'machine' is reported as Twilio does for the
   * call's MachineDetection (machine_start with Enable, machine_end_beep with DetectMessageEnd).
   * Without MachineDetection on the call, nothing is reported whoever answers.
   */
  pickedUpBy?: 'human' | 'machine' | 'fax';
  /**
   * A call placed with Record=true: Twilio's recording of it, reported to the RecordingStatusCallback
   * once the call completed. `absent` reports that there is none (error 16101, too short).
   * Default: completed, as long as the call (durationSeconds). `delayMs`: Twilio takes that long
   * to process the recording before it reports it.
   */
  recording?: { status?: 'completed' | 'absent' | 'never'; durationSeconds?: number; delayMs?: number };
}

/** Where the fake's storage serves recordings' media, behind the Recordings resource's redirect. */
const SIGNED_MEDIA_PATH = '/signed-media/recordings/';

/** A recording the fake holds, as Twilio's Recordings resource does until it is deleted. */
export interface FakeRecording {
  sid: string;
  callSid: string;
  durationSeconds: number;
  /** The WAV's bytes: 8 kHz, 16-bit, two channels (a different tone on each), streamed when asked for. */
  size: number;
  deleted: boolean;
}

export interface ReceivedApiRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  form: URLSearchParams;
}

export interface FakeCall {
  sid: string;
  /** Each TwiML document we received from the service, in order. */
  twiml: string[];
  done: Promise<void>;
}

/**
 * A Twilio-compatible voice API on 127.0.0.1. It accepts Calls.json like Twilio, then plays the
 * call against the service's callback URLs: signed status callbacks, the answer URL's TwiML, and
 * each gather's action with the scripted digit, until the TwiML hangs up.
 */
export class FakeTwilio {
  readonly requests: ReceivedApiRequest[] = [];
  readonly calls: FakeCall[] = [];
  readonly recordings = new Map<string, FakeRecording>();
  /** Statuses the next requests to the Recordings resource are answered with (Twilio's error body), in order. */
  readonly recordingFaults: number[] = [];
  private server!: Server;
  private scripts: FakeCallScript[] = [];
  port = 0;

  private constructor(private readonly authToken: string) {}

  static async start(authToken: string): Promise<FakeTwilio> {
    const fake = new FakeTwilio(authToken);
    fake.server = createServer((req, res) => {
      void readBody(req).then((body) => {
        const form = new URLSearchParams(body);
        fake.requests.push({ method: req.method ?? '', path: req.url ?? '', authorization: req.headers.authorization, form });
        if (req.url?.startsWith(SIGNED_MEDIA_PATH)) {
          fake.serveSignedMedia(req, res);
          return;
        }
        if (/\/Recordings\/[^/]+$/.test(req.url ?? '')) {
          fake.serveRecording(req.method ?? '', req.url ?? '', res);
          return;
        }
        if (req.url?.endsWith('/Calls.json')) {
          const script = fake.scripts.shift() ?? { answer: true };
          if (script.apiStatus) {
            res
              .writeHead(script.apiStatus, { 'content-type': 'application/json' })
              .end(JSON.stringify({ code: 20500, message: 'Internal error' }));
            return;
          }
          const sid = `CA${randomBytes(16).toString('hex')}`;
          res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ sid, status: 'queued' }));
          const call: FakeCall = { sid, twiml: [], done: Promise.resolve() };
          call.done = fake.play(call, form, script);
          fake.calls.push(call);
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'completed' }));
      });
    });
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    fake.port = (fake.server.address() as { port: number }).port;
    return fake;
  }

  /** Addressed by name, as the real api.twilio.com is: the app's HTTP client must resolve names. */
  get url(): string {
    return `http://localhost:${this.port}`;
  }

  /** The script of the next call placed. */
  expectCall(script: FakeCallScript): void {
    this.scripts.push(script);
  }

  /** POSTs a form to one of the service's URLs, signed as the provider would (or with `signature`). */
  async post(url: string, params: Record<string, string>, signature?: string): Promise<{ status: number; body: string }> {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': signature ?? getExpectedTwilioSignature(this.authToken, url, params),
      },
      body: new URLSearchParams(params),
    });
    return { status: res.status, body: await res.text() };
  }

  /**
   * The Recordings resource: `GET …/Recordings/{Sid}.wav` (or without an extension) redirects to the
   * WAV's signed URL, which streams it as `audio/x-wav`; `DELETE …/Recordings/{Sid}.json` answers 204 with no body. A recording
   * unknown or deleted is Twilio's 404 `{ code: 20404, message, more_info, status }`.
   */
  private serveRecording(method: string, url: string, res: ServerResponse): void {
    const fault = this.recordingFaults.shift();
    if (fault) {
      if (fault === 404) twilioError(res, 404, 20404, `The requested resource ${url} was not found`);
      else twilioError(res, fault, 20500, 'An internal server error has occurred');
      return;
    }
    const [, name, extension = ''] = /\/Recordings\/([^/.]+)(?:\.(\w+))?$/.exec(url) ?? [];
    const recording = name ? this.recordings.get(name) : undefined;
    const wav = extension === '' || extension === 'wav';
    if (
      !recording ||
      recording.deleted ||
      (method === 'GET' && !wav && extension !== 'json') ||
      (method === 'DELETE' && extension !== 'json')
    ) {
      twilioError(res, 404, 20404, `The requested resource ${url} was not found`);
      return;
    }
    if (method === 'DELETE') {
      recording.deleted = true;
      res.writeHead(204).end();
      return;
    }
    if (method !== 'GET') {
      twilioError(res, 405, 20004, 'Method not allowed');
      return;
    }
    if (extension === 'json') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          sid: recording.sid,
          call_sid: recording.callSid,
          duration: String(recording.durationSeconds),
          channels: 2,
          status: 'completed',
        }),
      );
      return;
    }
    // As Twilio does: a redirect to the media's signed URL in its storage.
    const signature = createHmac('sha256', this.authToken).update(recording.sid).digest('hex');
    res.writeHead(302, { location: `${this.url}${SIGNED_MEDIA_PATH}${recording.sid}.wav?Signature=${signature}` }).end();
  }

  /**
   * The storage behind a recording's redirect: its signature is its only credential, and a request
   * that brings another one too is refused, as pre-signed storage URLs refuse a second authorization.
   */
  private serveSignedMedia(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '', 'http://127.0.0.1');
    const sid = url.pathname.slice(SIGNED_MEDIA_PATH.length).replace(/\.wav$/, '');
    const recording = this.recordings.get(sid);
    const signature = createHmac('sha256', this.authToken).update(sid).digest('hex');
    if (req.headers.authorization) {
      res
        .writeHead(400, { 'content-type': 'application/xml' })
        .end('<Error><Code>InvalidArgument</Code><Message>Only one auth mechanism allowed</Message></Error>');
      return;
    }
    if (!recording || recording.deleted || url.searchParams.get('Signature') !== signature) {
      res
        .writeHead(403, { 'content-type': 'application/xml' })
        .end('<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>');
      return;
    }
    res.writeHead(200, { 'content-type': 'audio/x-wav', 'content-length': String(recording.size) });
    void pipeline(recordingWav(recording.durationSeconds), res).catch(() => undefined);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async play(call: FakeCall, placed: URLSearchParams, script: FakeCallScript): Promise<void> {
    const base = {
      CallSid: call.sid,
      AccountSid: 'AC-test',
      From: placed.get('From') ?? '',
      To: placed.get('To') ?? '',
      Direction: 'outbound-api',
    };
    const status = (CallStatus: string, extra: Record<string, string> = {}) =>
      this.post(placed.get('StatusCallback')!, { ...base, CallStatus, ...extra });
    await status('initiated');
    await status('ringing');
    if (script.ringMs) await new Promise((resolve) => setTimeout(resolve, script.ringMs));
    if (script.answer !== true) {
      await status(script.answer);
      return;
    }
    // Synchronous detection (no AsyncAmd): Twilio asks the answer URL only once it has decided,
    // with AnsweredBy, and repeats AnsweredBy on the status callbacks that follow.
    const detection = placed.get('MachineDetection');
    const answeredBy = detection ? amdVerdict(detection, script.pickedUpBy ?? 'human') : null;
    const amd: Record<string, string> = answeredBy ? { AnsweredBy: answeredBy } : {};
    await status('in-progress', amd);
    // A machine presses nothing.
    const digits = script.pickedUpBy && script.pickedUpBy !== 'human' ? [] : [...(script.digits ?? [])];
    let twiml = (await this.post(placed.get('Url')!, { ...base, CallStatus: 'in-progress', ...amd })).body;
    call.twiml.push(twiml);
    for (let exchange = 0; exchange < 60 && !twiml.includes('<Hangup'); exchange++) {
      const gather = /<Gather[^>]*>/.exec(twiml)?.[0] ?? '';
      const action = /action="([^"]+)"/.exec(gather)?.[1]?.replace(/&amp;/g, '&');
      if (!action) break;
      // Like Twilio: the finishOnKey (default '#') submits the gather instead of being a digit.
      const finishOnKey = /finishOnKey="([^"]*)"/.exec(gather)?.[1] ?? '#';
      const pressed = digits.shift();
      const digit = pressed === finishOnKey ? '' : pressed;
      twiml = (await this.post(action, { ...base, CallStatus: 'in-progress', ...(digit ? { Digits: digit } : {}) })).body;
      call.twiml.push(twiml);
    }
    await status('completed', { CallDuration: String(script.durationSeconds ?? 7), ...amd });
    if (placed.get('Record') === 'true') await this.reportRecording(call, placed, script);
  }

  /** What Twilio posts to the RecordingStatusCallback once the recording of a finished call is processed. */
  private async reportRecording(call: FakeCall, placed: URLSearchParams, script: FakeCallScript): Promise<void> {
    const url = placed.get('RecordingStatusCallback');
    const events = (placed.get('RecordingStatusCallbackEvent') ?? 'completed').split(' ');
    const status = script.recording?.status ?? 'completed';
    // 'never': the callback is lost (the app must not wait for it forever).
    if (!url || status === 'never' || !events.includes(status)) return;
    if (script.recording?.delayMs) await new Promise((resolve) => setTimeout(resolve, script.recording!.delayMs));
    const sid = `RE${randomBytes(16).toString('hex')}`;
    const durationSeconds = script.recording?.durationSeconds ?? script.durationSeconds ?? 7;
    const accountSid = /\/Accounts\/([^/]+)\//.exec(this.requests.find((r) => r.form === placed)?.path ?? '')?.[1] ?? 'AC-test';
    if (status === 'completed') {
      const channels = placed.get('RecordingChannels') === 'dual' ? 2 : 1;
      if (channels !== 2) throw new Error('The fake records dual-channel calls only');
      this.recordings.set(sid, { sid, callSid: call.sid, durationSeconds, size: 44 + durationSeconds * BYTES_PER_SECOND, deleted: false });
    }
    await this.post(url, {
      AccountSid: accountSid,
      CallSid: call.sid,
      RecordingSid: sid,
      RecordingUrl: `${this.url}/2010-04-01/Accounts/${accountSid}/Recordings/${sid}`,
      RecordingStatus: status,
      RecordingDuration: status === 'completed' ? String(durationSeconds) : '0',
      RecordingChannels: '2',
      RecordingStartTime: new Date().toUTCString(),
      RecordingSource: 'OutboundAPI',
      RecordingTrack: 'both',
      ErrorCode: status === 'absent' ? '16101' : '0',
    });
  }
}

/** 8 kHz, 16-bit, two channels. */
const BYTES_PER_SECOND = 8000 * 2 * 2;

/** A dual-channel WAV `seconds` long, made a second at a time (never held whole): 440 Hz left, 660 Hz right. */
function recordingWav(seconds: number): Readable {
  let second = -1;
  return new Readable({
    read() {
      if (second === -1) {
        const header = Buffer.alloc(44);
        header.write('RIFF', 0, 'ascii');
        header.writeUInt32LE(36 + seconds * BYTES_PER_SECOND, 4);
        header.write('WAVEfmt ', 8, 'ascii');
        header.writeUInt32LE(16, 16);
        header.writeUInt16LE(1, 20);
        header.writeUInt16LE(2, 22);
        header.writeUInt32LE(8000, 24);
        header.writeUInt32LE(BYTES_PER_SECOND, 28);
        header.writeUInt16LE(4, 32);
        header.writeUInt16LE(16, 34);
        header.write('data', 36, 'ascii');
        header.writeUInt32LE(seconds * BYTES_PER_SECOND, 40);
        second = 0;
        this.push(header);
        return;
      }
      if (second >= seconds) {
        this.push(null);
        return;
      }
      const chunk = Buffer.alloc(BYTES_PER_SECOND);
      for (let i = 0; i < 8000; i++) {
        chunk.writeInt16LE(Math.round(6000 * Math.sin((2 * Math.PI * 440 * i) / 8000)), i * 4);
        chunk.writeInt16LE(Math.round(6000 * Math.sin((2 * Math.PI * 660 * i) / 8000)), i * 4 + 2);
      }
      second++;
      this.push(chunk);
    },
  });
}

/** Twilio's REST error body. */
function twilioError(res: ServerResponse, status: number, code: number, message: string): void {
  res
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status }));
}

/** Twilio's AnsweredBy for who picked up: Enable decides at the greeting, DetectMessageEnd waits for its end. */
function amdVerdict(detection: string, pickedUpBy: 'human' | 'machine' | 'fax'): string {
  if (detection !== 'Enable' && detection !== 'DetectMessageEnd')
    throw new Error(`MachineDetection must be Enable or DetectMessageEnd, not ${detection}`);
  if (pickedUpBy !== 'machine') return pickedUpBy;
  return detection === 'Enable' ? 'machine_start' : 'machine_end_beep';
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}
