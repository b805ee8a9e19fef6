// The OpenAI-compatible fake (test/support/fake-openai.ts) in a process of its own, on PORT: a real
// provider's work (parsing each uploaded recording) is not done on the bench process's event loop,
// which also stamps the outcome webhooks' arrival, nor counted in anything measured.
import { FakeOpenAi } from '../test/support/fake-openai.js';

void FakeOpenAi.start(Number(process.env.PORT)).then((fake) => {
  console.log(`fake OpenAI listening at ${fake.url}`);
  process.on('SIGTERM', () => void fake.stop().then(() => process.exit(0)));
});
