// @anthropic-ai/sdk (official): messages through llmux to an anthropic channel.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import Anthropic from '@anthropic-ai/sdk';

import {
  AFTER_TOOL_ANSWER, ANSWER, PROMPT, TIME_TOOL, TOOL_PROMPT, TOOL_RESULT, WEATHER_TOOL,
  assertTokens, expectSdkError, thinkingStart,
} from '../lib/expect.mjs';
import { GATEWAY_KEY, MODELS, UNKNOWN_MODEL, WRONG_KEY } from '../lib/stack.mjs';

const kMaxTokens = 256;

/** The SDK's own way: `apiKey`, which this SDK version sends as `Authorization: Bearer`. */
function client(stack, apiKey = GATEWAY_KEY) {
  return new Anthropic({ apiKey, baseURL: stack.gatewayUrl, maxRetries: 0, timeout: 20000 });
}

/** The way Claude Code authenticates: `x-api-key` with `anthropic-version: 2023-06-01`. */
function xApiKeyClient(stack) {
  return new Anthropic({
    apiKey: null,
    authToken: null,
    baseURL: stack.gatewayUrl,
    maxRetries: 0,
    timeout: 20000,
    defaultHeaders: { 'x-api-key': GATEWAY_KEY, 'anthropic-version': '2023-06-01' },
  });
}

function anthropicTool(tool) {
  return { name: tool.name, description: tool.description, input_schema: tool.schema };
}

function assertUsage(usage) {
  assert.ok(usage, 'usage is missing');
  assertTokens(usage.input_tokens, 'usage.input_tokens');
  assertTokens(usage.output_tokens, 'usage.output_tokens');
}

function textOf(message) {
  return message.content.filter((b) => b.type === 'text').map((b) => b.text).join('');
}

function toolUses(message) {
  return message.content.filter((b) => b.type === 'tool_use');
}

export function registerAnthropic(stack) {
  describe('anthropic messages', () => {
    test('create, not streamed', async () => {
      const message = await client(stack).messages.create({
        model: MODELS.anthropic,
        max_tokens: kMaxTokens,
        messages: [{ role: 'user', content: PROMPT }],
      });
      assert.equal(message.type, 'message');
      assert.equal(message.role, 'assistant');
      assert.equal(message.model, MODELS.anthropic);
      assert.deepEqual(message.content.map((b) => b.type), ['text']);
      assert.equal(message.content[0].text, ANSWER);
      assert.equal(message.stop_reason, 'end_turn');
      assertUsage(message.usage);
    });

    test('create with x-api-key and anthropic-version 2023-06-01', async () => {
      const message = await xApiKeyClient(stack).messages.create({
        model: MODELS.anthropic,
        max_tokens: kMaxTokens,
        messages: [{ role: 'user', content: PROMPT }],
      });
      assert.equal(textOf(message), ANSWER);
      assert.equal(message.stop_reason, 'end_turn');
    });

    test('create, streamed', async () => {
      const stream = await client(stack).messages.create({
        model: MODELS.anthropic,
        max_tokens: kMaxTokens,
        messages: [{ role: 'user', content: PROMPT }],
        stream: true,
      });
      const types = [];
      let text = '';
      let stopReason;
      let inputTokens;
      let outputTokens;
      for await (const event of stream) {
        types.push(event.type);
        if (event.type === 'message_start') inputTokens = event.message.usage.input_tokens;
        if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') {
          text += event.delta.text;
        }
        if (event.type === 'message_delta') {
          stopReason = event.delta.stop_reason;
          outputTokens = event.usage.output_tokens;
        }
      }
      assert.equal(types[0], 'message_start');
      assert.equal(types.at(-1), 'message_stop');
      assert.ok(types.includes('content_block_start') && types.includes('content_block_stop'),
                `content block events missing: ${types.join(', ')}`);
      assert.equal(text, ANSWER);
      assert.equal(stopReason, 'end_turn');
      assertTokens(inputTokens, 'message_start usage.input_tokens');
      assertTokens(outputTokens, 'message_delta usage.output_tokens');
    });

    test('stream helper: finalMessage and text events', async () => {
      const stream = client(stack).messages.stream({
        model: MODELS.anthropic,
        max_tokens: kMaxTokens,
        messages: [{ role: 'user', content: PROMPT }],
      });
      let streamed = '';
      stream.on('text', (delta) => { streamed += delta; });
      const message = await stream.finalMessage();
      assert.equal(textOf(message), ANSWER);
      assert.equal(streamed, ANSWER);
      assert.equal(message.stop_reason, 'end_turn');
      assertUsage(message.usage);
    });

    test('tool call round, not streamed', async () => {
      const anthropic = client(stack);
      const messages = [{ role: 'user', content: TOOL_PROMPT }];
      const first = await anthropic.messages.create({
        model: MODELS.anthropic,
        max_tokens: kMaxTokens,
        messages,
        tools: [anthropicTool(WEATHER_TOOL)],
      });
      assert.equal(first.stop_reason, 'tool_use');
      const uses = toolUses(first);
      assert.equal(uses.length, 1, 'expected exactly one tool_use block');
      assert.equal(uses[0].name, WEATHER_TOOL.name);
      assert.match(uses[0].id, /\S/);
      assert.deepEqual(uses[0].input, WEATHER_TOOL.expectedArguments);
      assertUsage(first.usage);

      messages.push({ role: 'assistant', content: first.content }, {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: uses[0].id, content: TOOL_RESULT }],
      });
      const second = await anthropic.messages.create({
        model: MODELS.anthropic,
        max_tokens: kMaxTokens,
        messages,
        tools: [anthropicTool(WEATHER_TOOL)],
      });
      assert.equal(second.stop_reason, 'end_turn');
      assert.equal(toolUses(second).length, 0);
      assert.equal(textOf(second), AFTER_TOOL_ANSWER);
    });

    test('parallel tool calls, streamed: messages.stream().finalMessage()', async () => {
      const stream = client(stack).messages.stream({
        model: MODELS.anthropic,
        max_tokens: kMaxTokens,
        messages: [{ role: 'user', content: TOOL_PROMPT }],
        tools: [anthropicTool(WEATHER_TOOL), anthropicTool(TIME_TOOL)],
      });
      const message = await stream.finalMessage();
      assert.equal(message.stop_reason, 'tool_use');
      const uses = toolUses(message);
      assert.deepEqual(uses.map((u) => u.name), [WEATHER_TOOL.name, TIME_TOOL.name]);
      assert.deepEqual(uses[0].input, WEATHER_TOOL.expectedArguments);
      assert.deepEqual(uses[1].input, TIME_TOOL.expectedArguments);
      assert.notEqual(uses[0].id, uses[1].id);
      assertUsage(message.usage);
    });

    test('thinking with a tool, streamed; thinking and signature replayed on the next turn',
         async () => {
           const anthropic = client(stack);
           const request = {
             model: MODELS.anthropic,
             max_tokens: 2048,
             thinking: { type: 'adaptive' },
             tools: [anthropicTool(WEATHER_TOOL)],
             messages: [{ role: 'user', content: TOOL_PROMPT }],
           };
           const stream = anthropic.messages.stream(request);
           let thinkingDeltas = '';
           stream.on('thinking', (delta) => { thinkingDeltas += delta; });
           const first = await stream.finalMessage();
           assert.equal(first.stop_reason, 'tool_use');
           assert.deepEqual(first.content.map((b) => b.type), ['thinking', 'text', 'tool_use']);
           const [thinking] = first.content;
           assert.ok(thinking.thinking.startsWith(thinkingStart(TOOL_PROMPT)),
                     `thinking: ${thinking.thinking}`);
           assert.equal(thinkingDeltas, thinking.thinking);
           assert.ok(thinking.signature.length > 0, 'the thinking block has no signature');
           const [use] = toolUses(first);
           assert.deepEqual(use.input, WEATHER_TOOL.expectedArguments);

           request.messages.push({ role: 'assistant', content: first.content }, {
             role: 'user',
             content: [{ type: 'tool_result', tool_use_id: use.id, content: TOOL_RESULT }],
           });
           const second = await anthropic.messages.create(request);
           assert.equal(second.stop_reason, 'end_turn');
           assert.deepEqual(second.content.map((b) => b.type), ['thinking', 'text']);
           assert.equal(textOf(second), AFTER_TOOL_ANSWER);
         });

    test('unknown model: NotFoundError 404', async () => {
      await expectSdkError(
          client(stack).messages.create({
            model: UNKNOWN_MODEL,
            max_tokens: kMaxTokens,
            messages: [{ role: 'user', content: PROMPT }],
          }),
          Anthropic.NotFoundError, 404);
    });

    test('unknown model, stream helper: NotFoundError 404', async () => {
      await expectSdkError(
          () => client(stack).messages.stream({
            model: UNKNOWN_MODEL,
            max_tokens: kMaxTokens,
            messages: [{ role: 'user', content: PROMPT }],
          }).finalMessage(),
          Anthropic.NotFoundError, 404);
    });

    test('wrong gateway key: AuthenticationError 401', async () => {
      await expectSdkError(
          client(stack, WRONG_KEY).messages.create({
            model: MODELS.anthropic,
            max_tokens: kMaxTokens,
            messages: [{ role: 'user', content: PROMPT }],
          }),
          Anthropic.AuthenticationError, 401);
    });
  });
}
