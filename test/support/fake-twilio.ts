import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
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
}

export interface ReceivedApiRequest {
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
  private server!: Server;
  private scripts: FakeCallScript[] = [];
  port = 0;

  private constructor(private readonly authToken: string) {}

  static async start(authToken: string): Promise<FakeTwilio> {
    const fake = new FakeTwilio(authToken);
    fake.server = createServer((req, res) => {
      void readBody(req).then((body) => {
        const form = new URLSearchParams(body);
        fake.requests.push({ path: req.url ?? '', authorization: req.headers.authorization, form });
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
  }
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
