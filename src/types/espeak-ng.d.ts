// eSpeak NG compiled with Emscripten (ESM, no typings of its own): the part of its API we use.
declare module '@echogarden/espeak-ng-emscripten' {
  export interface ESpeakNgWorker {
    /** `<language>+<variant>`, e.g. `en-us+f3`; 0 when the voice was found. */
    set_voice(name: string): number;
    /** Synthesizes synchronously, handing over 16-bit mono samples chunk by chunk; return true to stop. */
    synthesize(text: string, onAudio: (samples: Int16Array) => boolean): void;
    readonly samplerate: number;
  }
  export interface ESpeakNgModule {
    eSpeakNGWorker: new () => ESpeakNgWorker;
  }
  export default function createESpeakNg(moduleArg?: object): Promise<ESpeakNgModule>;
}
