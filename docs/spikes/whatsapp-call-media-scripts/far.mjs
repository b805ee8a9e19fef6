// The far end (stands for Meta's media edge): N werift peers in this child process. Each offers audio
// (Opus + telephone-event), takes the answer from the parent, and counts the RTP packets it receives.
import * as werift from 'werift';
const { RTCPeerConnection, RTCRtpCodecParameters } = werift;
const peers = new Map();
const codecs = {
  audio: [
    new RTCRtpCodecParameters({
      mimeType: 'audio/opus',
      clockRate: 48000,
      channels: 2,
      payloadType: 111,
      parameters: 'minptime=20;useinbandfec=1',
    }),
    new RTCRtpCodecParameters({ mimeType: 'audio/telephone-event', clockRate: 8000, channels: 1, payloadType: 126 }),
  ],
};
process.on('message', async (msg) => {
  if (msg.type === 'offer') {
    const pc = new RTCPeerConnection({ codecs, iceUseIpv6: false, iceAdditionalHostAddresses: ['127.0.0.1'] });
    const state = { pc, received: 0, bytes: 0, first: 0 };
    peers.set(msg.id, state);
    const t = pc.addTransceiver('audio', { direction: 'sendrecv' });
    t.onTrack.subscribe((track) =>
      track.onReceiveRtp.subscribe((rtp) => {
        state.received++;
        state.bytes += rtp.payload.length;
        if (!state.first) state.first = performance.now();
      }),
    );
    await pc.setLocalDescription(await pc.createOffer());
    await new Promise((r) =>
      pc.iceGatheringState === 'complete' ? r() : pc.iceGatheringStateChange.subscribe((s) => s === 'complete' && r()),
    );
    process.send({ type: 'offer', id: msg.id, sdp: pc.localDescription.sdp });
  } else if (msg.type === 'answer') {
    await peers.get(msg.id).pc.setRemoteDescription({ type: 'answer', sdp: msg.sdp });
  } else if (msg.type === 'stats') {
    process.send({ type: 'stats', received: [...peers.values()].map((p) => p.received) });
  } else if (msg.type === 'close') {
    await Promise.all([...peers.values()].map((p) => p.pc.close()));
    process.send({ type: 'closed' });
    process.exit(0);
  }
});
