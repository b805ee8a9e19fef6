// @evan/opus's WebAssembly build: the same codec and the same Encoder / Decoder calls as the package's
// main entry (whose native addon is what that entry loads on Linux x64), without the ctl helpers.
declare module '@evan/opus/wasm/index.js' {
  export class Encoder {
    constructor(options: {
      channels: 1 | 2;
      sample_rate: 8000 | 12000 | 16000 | 24000 | 48000;
      application: 'voip' | 'audio' | 'restricted_lowdelay';
    });
    encode(pcm: ArrayBufferView): Uint8Array;
    /** Frees the encoder's WebAssembly memory now (otherwise when it is collected). */
    drop(): void;
  }
  export class Decoder {
    constructor(options: { channels: 1 | 2; sample_rate: 8000 | 12000 | 16000 | 24000 | 48000 });
    decode(packet: ArrayBufferView): Uint8Array;
    /** Frees the decoder's WebAssembly memory now (otherwise when it is collected). */
    drop(): void;
  }
}
