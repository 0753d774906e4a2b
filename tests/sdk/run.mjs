// Official-SDK conformance: the OpenAI, Anthropic and Gemini Node SDKs, each in its own protocol,
// talk to llmux, which forwards to its mock provider. Starts both processes (binary from
// $LLMUX_BIN), runs every suite, stops both processes whatever happened.
//
//   LLMUX_BIN=path/to/llmux node run.mjs        (or ./run.sh path/to/llmux)
import { after, describe } from 'node:test';

import { Stack } from './lib/stack.mjs';
import { registerAnthropic } from './suites/anthropic.mjs';
import { registerGemini } from './suites/gemini.mjs';
import { registerOpenAiChat } from './suites/openai_chat.mjs';
import { registerOpenAiResponses } from './suites/openai_responses.mjs';

// Every SDK call has its own 20 s timeout; this only catches a suite that hangs in between.
const kRunTimeoutMs = 180000;

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

  registerOpenAiChat(stack);
  registerOpenAiResponses(stack);
  registerAnthropic(stack);
  registerGemini(stack);
});
