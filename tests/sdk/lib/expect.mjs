// Assertions shared by the SDK suites.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const kClientFixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..',
                                     'data', 'fixtures', 'clients');

/** A real CLI's captured request (tests/data/fixtures/clients/<name>.request.json): its body and
 *  the headers worth resending (no credentials, no transport headers). */
export function cliRequest(name) {
  const file = path.join(kClientFixtures, `${name}.request.json`);
  const captured = JSON.parse(readFileSync(file, 'utf8'));
  const headers = {};
  const skip = new Set(['host', 'connection', 'content-length', 'accept-encoding', 'x-api-key',
                        'x-goog-api-key', 'authorization']);
  for (const [name, value] of Object.entries(captured.headers)) {
    if (!skip.has(name.toLowerCase())) headers[name] = value;
  }
  return { body: captured.body, headers };
}

/** The prompt every plain call sends, and what the mock provider answers to it. */
export const PROMPT = 'Say hello to llmux';
export const ANSWER = `You said: "${PROMPT}"`;

/** A function tool with one required string and one required enum, and the arguments the mock
 *  provider derives from that schema (docs/mock-provider.md: values chosen by property name). */
export const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'Current weather for a location',
  schema: {
    type: 'object',
    properties: {
      location: { type: 'string', description: 'City and country' },
      unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
    },
    required: ['location', 'unit'],
  },
  expectedArguments: { location: 'Paris, France', unit: 'celsius' },
};

/** A second tool, so that the mock answers with two parallel calls. */
export const TIME_TOOL = {
  name: 'get_time',
  description: 'Current local time in a city',
  schema: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
  },
  expectedArguments: { city: 'Paris' },
};

/** A conversation with a system prompt and history, in neutral form: what every client sends in
 *  its own way, and what the upstream must get in its own. The mock quotes the last user turn. */
export const CONVERSATION = {
  system: 'You are a terse assistant.',
  turns: [
    ['user', 'My name is Ada.'],
    ['assistant', 'Hello Ada.'],
    ['user', PROMPT],
  ],
};

/** A prompt with what JSON escaping and UTF-8 splitting get wrong: quotes, backslashes, control
 *  characters, U+2028, multi-byte and astral characters. Short enough to be quoted whole. */
export const UNICODE_PROMPT = 'Ünïcödé "quotes" \\ back\\slash\ttab\nnewline \u0007 bell, ' +
    '中文, emoji 🦀🌍, \u2028 and </script>';
export const UNICODE_ANSWER = `You said: "${UNICODE_PROMPT}"`;

/** A tool whose only argument is an enum: the mock answers with its first value, which carries
 *  the same hard characters through the tool-call arguments. */
export const MOOD_TOOL = {
  name: 'set_mood',
  description: 'Sets the mood',
  schema: {
    type: 'object',
    properties: {
      mood: { type: 'string', enum: ['très "heureux" \\ 😀\n\u0001 中文', 'sad'] },
    },
    required: ['mood'],
  },
  expectedArguments: { mood: 'très "heureux" \\ 😀\n\u0001 中文' },
};

export const TOOL_PROMPT = 'What is the weather in Paris?';
export const TOOL_RESULT = '{"temperature": 21, "unit": "celsius"}';
/** After a tool result the mock answers in text, quoting the last user message. */
export const AFTER_TOOL_ANSWER = `You said: "${TOOL_PROMPT}"`;

/** How tests name a client → upstream pair. */
export function pairName(client, upstream) {
  return `${client} → ${upstream}`;
}

/** How the mock's thinking / reasoning summary starts when asked to think about `prompt`. */
export function thinkingStart(prompt) {
  return `The user wrote "${prompt}".`;
}

/**
 * Awaits `action` (a promise or a function returning one, e.g. a stream that fails while being
 * read) and asserts it rejects with the SDK's own `ErrorClass` carrying HTTP `status`.
 */
export async function expectSdkError(action, ErrorClass, status) {
  let caught;
  try {
    await (typeof action === 'function' ? action() : action);
  } catch (error) {
    caught = error;
  }
  assert.ok(caught !== undefined, `expected ${ErrorClass.name} (${status}), but the call succeeded`);
  assert.ok(caught instanceof ErrorClass,
            `expected ${ErrorClass.name} (${status}), got ${caught?.constructor?.name}: ` +
            `${caught?.message}`);
  assert.equal(caught.status, status, `status of ${caught.constructor.name}: ${caught.message}`);
  return caught;
}

/**
 * A plain answer whose upstream dropped the connection halfway (the mock's `cut`). Translated, the
 * gateway reads the answer whole before re-encoding it, so the client gets a 502 in its own shape
 * (`ErrorClass`). Passed through, the bytes are relayed as they arrive, so the client sees the
 * upstream's broken answer as the provider itself would have left it: the call fails while the
 * body is read.
 */
export async function expectCutAnswer(passthrough, call, ErrorClass) {
  if (!passthrough) {
    await expectSdkError(call, ErrorClass, 502);
    return;
  }
  await assert.rejects(call, (error) => error instanceof Error,
                       'a broken passthrough answer must fail the call');
}

/** The text a client got before a stream failed after its first text delta (the mock's `cut`):
 *  a proper beginning of `answer`. */
export function assertCutText(text, answer) {
  assert.ok(text.length > 0 && answer.startsWith(text) && text !== answer,
            `the text before the failure: ${JSON.stringify(text)}`);
}

/** Positive whole-number token count. */
export function assertTokens(value, what) {
  assert.ok(Number.isInteger(value) && value > 0, `${what} should be a positive integer, got ${value}`);
}
