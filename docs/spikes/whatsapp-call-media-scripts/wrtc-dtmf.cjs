const { RTCPeerConnection, nonstandard } = require('@roamhq/wrtc');
(async () => {
  const pc = new RTCPeerConnection();
  const src = new nonstandard.RTCAudioSource();
  const sender = pc.addTrack(src.createTrack());
  console.log('RTCRtpSender.dtmf:', sender.dtmf, '| sender keys:', Object.getOwnPropertyNames(Object.getPrototypeOf(sender)).join(','));
  const offer = await pc.createOffer();
  console.log('offers telephone-event:', /telephone-event/.test(offer.sdp));
  console.log('receiver API:', Object.getOwnPropertyNames(Object.getPrototypeOf(pc.getReceivers()[0] ?? {})).join(','));
  console.log('nonstandard:', Object.keys(nonstandard).join(','));
  pc.close();
})();
