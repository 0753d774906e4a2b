// Assertions shared by the SDK suites.
import assert from 'node:assert/strict';

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

export const TOOL_PROMPT = 'What is the weather in Paris?';
export const TOOL_RESULT = '{"temperature": 21, "unit": "celsius"}';
/** After a tool result the mock answers in text, quoting the last user message. */
export const AFTER_TOOL_ANSWER = `You said: "${TOOL_PROMPT}"`;

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

/** Positive whole-number token count. */
export function assertTokens(value, what) {
  assert.ok(Number.isInteger(value) && value > 0, `${what} should be a positive integer, got ${value}`);
}
