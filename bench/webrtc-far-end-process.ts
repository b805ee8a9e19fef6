// The far end of the WebRTC media bench (bench/webrtc-media.ts) in a process of its own, so that its
// work (ICE, DTLS, SRTP decryption of every call's packets) is not counted in the worker's CPU.
// One FarEndPeer per call, driven over the IPC channel.
import { FarEndPeer } from '../test/support/webrtc-far-end.js';

type Request =
  | { type: 'offer'; id: number }
  | { type: 'answer'; id: number; sdp: string }
  | { type: 'press'; key: string }
  | { type: 'count' }
  | { type: 'close' };

const peers = new Map<number, FarEndPeer>();
const reply = (message: object) => process.send?.(message);

process.on('message', (request: Request) => {
  void handle(request).catch((error: unknown) => reply({ type: 'error', message: String(error) }));
});

async function handle(request: Request): Promise<void> {
  switch (request.type) {
    case 'offer': {
      const peer = await FarEndPeer.offer();
      peers.set(request.id, peer);
      return void reply({ type: 'offer', id: request.id, sdp: peer.offerSdp });
    }
    case 'answer':
      await peers.get(request.id)?.acceptAnswer(request.sdp);
      return;
    case 'press':
      await Promise.all([...peers.values()].map((peer) => peer.pressKey(request.key, 200)));
      return void reply({ type: 'pressed' });
    case 'count':
      return void reply({ type: 'count', opus: [...peers.values()].map((peer) => peer.packetsOf('audio/opus').length) });
    case 'close':
      await Promise.all([...peers.values()].map((peer) => peer.close()));
      peers.clear();
      return void reply({ type: 'closed' });
  }
}
