// Official-SDK conformance: the OpenAI (Chat Completions and Responses), Anthropic and Gemini Node
// SDKs, each in its own protocol, talk to llmux, which forwards to its mock provider through a
// channel of every upstream protocol: 4 × 4 client → upstream pairs, passthrough where the two
// are the same, translation otherwise. Starts both processes (binary from $LLMUX_BIN), runs every
// suite, stops both processes whatever happened. The media suite (OpenAI's images, videos, audio
// and embeddings endpoints) has a stack of its own: its mock provider and its gateway.
//
//   LLMUX_BIN=path/to/llmux node run.mjs        (or ./run.sh path/to/llmux)
//   LLMUX_SDK_SUITES=media                      only these suites: matrix, media (default: both)
//   LLMUX_SDK_PAIRS=chat:anthropic,gemini:*     only these client:upstream pairs ('*': any); alone,
//                                               it selects the matrix only
import { after, describe } from 'node:test';

import { mediaStack } from './lib/media_stack.mjs';
import { PROTOCOLS, Stack } from './lib/stack.mjs';
import { registerAnthropic, registerAnthropicGateway } from './suites/anthropic.mjs';
import { registerGemini, registerGeminiGateway } from './suites/gemini.mjs';
import { registerOpenAiChat, registerOpenAiChatGateway } from './suites/openai_chat.mjs';
import { registerOpenAiMedia } from './suites/openai_media.mjs';
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

/** The suites LLMUX_SDK_SUITES selects: all when unset, unless LLMUX_SDK_PAIRS is set (naming
 *  pairs asks for those pairs only). */
function selectedSuites() {
  const known = ['matrix', 'media'];
  const spec = process.env.LLMUX_SDK_SUITES?.trim();
  if (!spec) return process.env.LLMUX_SDK_PAIRS?.trim() ? ['matrix'] : known;
  const wanted = spec.split(',').map((name) => name.trim());
  for (const name of wanted) {
    if (!known.includes(name)) {
      console.error(`LLMUX_SDK_SUITES: unknown suite '${name}' (one of ${known.join(', ')})`);
      process.exit(2);
    }
  }
  return known.filter((name) => wanted.includes(name));
}

const suites = selectedSuites();
const pairs = suites.includes('matrix') ? selectedPairs() : [];

const stacks = [];
const stack = suites.includes('matrix') ? new Stack() : null;
const media = suites.includes('media') ? mediaStack() : null;
for (const started of [stack, media]) {
  if (!started) continue;
  stacks.push(started);
  try {
    await started.start();
  } catch (error) {
    // One clear message instead of every test cancelled.
    console.error(`SDK conformance tests not run: ${error.message}`);
    for (const s of stacks) await s.stop().catch(() => {});
    process.exit(1);
  }
}

describe('llmux with official SDKs', { concurrency: false, timeout: kRunTimeoutMs }, () => {
  // Fails the run when a server died or crashed while the tests ran (every stack is stopped).
  after(async () => {
    const failures = [];
    for (const s of stacks) await s.stop().catch((error) => failures.push(error));
    if (failures.length > 0) throw failures[0];
  });

  for (const client of PROTOCOLS) {
    const upstreams = pairs.filter(([c]) => c === client).map(([, u]) => u);
    if (upstreams.length === 0) continue;
    const [registerPair, registerGateway] = kSuites[client];
    for (const upstream of upstreams) registerPair(stack, upstream);
    registerGateway(stack);
  }
  if (media) registerOpenAiMedia(media);
});
