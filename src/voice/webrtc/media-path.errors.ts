/** Why a call's media path never carried media. */
export type MediaPathFailure = 'timeout' | 'ice-failed' | 'closed';

/** The WebRTC media path (ICE + DTLS-SRTP) of a call did not connect. */
export class MediaPathNotConnected extends Error {
  constructor(
    readonly reason: MediaPathFailure,
    readonly afterMs: number,
  ) {
    super(
      reason === 'timeout'
        ? `The media path did not connect within ${afterMs} ms`
        : reason === 'ice-failed'
          ? `The media path failed after ${afterMs} ms (no ICE candidate pair, or the DTLS handshake failed)`
          : `The media path was closed before it connected (after ${afterMs} ms)`,
    );
    this.name = 'MediaPathNotConnected';
  }
}

/** The media thread stopped (crashed or exited): every call it carried has lost its media. */
export class MediaThreadLost extends Error {
  constructor(cause: string) {
    super(`The media thread stopped: ${cause}`);
    this.name = 'MediaThreadLost';
  }
}
