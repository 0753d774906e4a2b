// Official-SDK conformance: the OpenAI (Chat Completions and Responses), Anthropic and Gemini Node
// SDKs, each in its own protocol, talk to llmux, which forwards to its mock provider through a
// channel of every upstream protocol: 4 × 4 client → upstream pairs, passthrough where the two
// are the same, translation otherwise. Starts both processes (binary from $LLMUX_BIN), runs every
// suite, stops both processes whatever happened.
//
//   LLMUX_BIN=path/to/llmux node run.mjs        (or ./run.sh path/to/llmux)
//   LLMUX_SDK_PAIRS=chat:anthropic,gemini:*     only these client:upstream pairs ('*': any)
import { after, describe } from 'node:test';

import { PROTOCOLS, Stack } from './lib/stack.mjs';
import { registerAnthropic, registerAnthropicGateway } from './suites/anthropic.mjs';
import { registerGemini, registerGeminiGateway } from './suites/gemini.mjs';
import { registerOpenAiChat, registerOpenAiChatGateway } from './suites/openai_chat.mjs';
import {
  registerOpenAiResponses, registerOpenAiResponsesGateway,
} from './suites/openai_responses.mjs';

// Every SDK call has its own 20 s timeout; this only catches a suite that hangs in between.
const kRunTimeoutMs = 180000;

const kSuites = {
  chat: [registerOpenAiChat, registerOpenAiChatGateway],
  responses: [registerOpenAiResponses, registerOpenAiResponsesGateway],
  anthropic: [registerAnthropic, registerAnthropicGateway],
  gemini: [registerGemini, registerGeminiGateway],
};

/** The pairs LLMUX_SDK_PAIRS selects (all when unset), as [client, upstream]. */
function selectedPairs() {
  const all = PROTOCOLS.flatMap((client) => PROTOCOLS.map((upstream) => [client, upstream]));
  const spec = process.env.LLMUX_SDK_PAIRS?.trim();
  if (!spec) return all;
  const wanted = spec.split(',').map((item) => {
    const [client, upstream = '*'] = item.trim().split(':');
    for (const name of [client, upstream]) {
      if (name !== '*' && !PROTOCOLS.includes(name)) {
        console.error(`LLMUX_SDK_PAIRS: unknown protocol '${name}' ` +
                      `(one of ${PROTOCOLS.join(', ')}, or *)`);
        process.exit(2);
      }
    }
    return [client, upstream];
  });
  return all.filter(([c, u]) => wanted.some(([wc, wu]) => (wc === '*' || wc === c) &&
                                                          (wu === '*' || wu === u)));
}

const pairs = selectedPairs();

const stack = new Stack();
try {
  await stack.start();
} catch (error) {
  // One clear message instead of every test cancelled.
  console.error(`SDK conformance tests not run: ${error.message}`);
  await stack.stop().catch(() => {});
  process.exit(1);
}

describe('llmux with official SDKs', { concurrency: false, timeout: kRunTimeoutMs }, () => {
  // Fails the run when a server died or crashed while the tests ran.
  after(() => stack.stop());

  for (const client of PROTOCOLS) {
    const upstreams = pairs.filter(([c]) => c === client).map(([, u]) => u);
    if (upstreams.length === 0) continue;
    const [registerPair, registerGateway] = kSuites[client];
    for (const upstream of upstreams) registerPair(stack, upstream);
    registerGateway(stack);
  }
});
