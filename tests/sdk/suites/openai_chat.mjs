// openai (official Node SDK): chat.completions through llmux to an openai-chat channel.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import OpenAI from 'openai';

import {
  AFTER_TOOL_ANSWER, ANSWER, PROMPT, TIME_TOOL, TOOL_PROMPT, TOOL_RESULT, WEATHER_TOOL,
  assertTokens, expectSdkError,
} from '../lib/expect.mjs';
import { GATEWAY_KEY, MODELS, UNKNOWN_MODEL, WRONG_KEY } from '../lib/stack.mjs';

export function openAiClient(stack, apiKey = GATEWAY_KEY) {
  // No retries: a failure must show as it is, not be hidden by a second attempt.
  return new OpenAI({ apiKey, baseURL: `${stack.gatewayUrl}/v1`, maxRetries: 0, timeout: 20000 });
}

function chatTool(tool) {
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.schema },
  };
}

function assertUsage(usage) {
  assert.ok(usage, 'usage is missing');
  assertTokens(usage.prompt_tokens, 'usage.prompt_tokens');
  assertTokens(usage.completion_tokens, 'usage.completion_tokens');
  assert.equal(usage.total_tokens, usage.prompt_tokens + usage.completion_tokens);
}

export function registerOpenAiChat(stack) {
  describe('openai chat.completions', () => {
    test('create, not streamed', async () => {
      const completion = await openAiClient(stack).chat.completions.create({
        model: MODELS.chat,
        messages: [{ role: 'user', content: PROMPT }],
      });
      assert.equal(completion.object, 'chat.completion');
      assert.equal(completion.model, MODELS.chat);
      assert.equal(completion.choices.length, 1);
      const [choice] = completion.choices;
      assert.equal(choice.message.role, 'assistant');
      assert.equal(choice.message.content, ANSWER);
      assert.equal(choice.finish_reason, 'stop');
      assertUsage(completion.usage);
    });

    test('create, streamed, with include_usage', async () => {
      const stream = await openAiClient(stack).chat.completions.create({
        model: MODELS.chat,
        messages: [{ role: 'user', content: PROMPT }],
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = '';
      let role;
      let finishReason;
      let usage;
      let chunks = 0;
      for await (const chunk of stream) {
        chunks += 1;
        assert.equal(chunk.object, 'chat.completion.chunk');
        for (const choice of chunk.choices) {
          if (choice.delta.role) role = choice.delta.role;
          if (choice.delta.content) text += choice.delta.content;
          if (choice.finish_reason) finishReason = choice.finish_reason;
        }
        if (chunk.usage) usage = chunk.usage;
      }
      assert.ok(chunks > 2, `expected the answer in several chunks, got ${chunks}`);
      assert.equal(role, 'assistant');
      assert.equal(text, ANSWER);
      assert.equal(finishReason, 'stop');
      assertUsage(usage);
    });

    test('stream helper accumulates the same answer', async () => {
      const runner = openAiClient(stack).chat.completions.stream({
        model: MODELS.chat,
        messages: [{ role: 'user', content: PROMPT }],
        stream_options: { include_usage: true },
      });
      const deltas = [];
      runner.on('content', (delta) => deltas.push(delta));
      const completion = await runner.finalChatCompletion();
      assert.equal(completion.choices[0].message.content, ANSWER);
      assert.equal(completion.choices[0].finish_reason, 'stop');
      assert.equal(deltas.join(''), ANSWER);
      assertUsage(completion.usage);
    });

    test('tool call round, not streamed', async () => {
      const client = openAiClient(stack);
      const messages = [{ role: 'user', content: TOOL_PROMPT }];
      const first = await client.chat.completions.create({
        model: MODELS.chat,
        messages,
        tools: [chatTool(WEATHER_TOOL)],
      });
      const [choice] = first.choices;
      assert.equal(choice.finish_reason, 'tool_calls');
      assert.equal(choice.message.tool_calls?.length, 1, 'expected exactly one tool call');
      const [call] = choice.message.tool_calls;
      assert.equal(call.type, 'function');
      assert.equal(call.function.name, WEATHER_TOOL.name);
      assert.match(call.id, /\S/);
      assert.deepEqual(JSON.parse(call.function.arguments), WEATHER_TOOL.expectedArguments);
      assertUsage(first.usage);

      messages.push(choice.message, { role: 'tool', tool_call_id: call.id, content: TOOL_RESULT });
      const second = await client.chat.completions.create({
        model: MODELS.chat,
        messages,
        tools: [chatTool(WEATHER_TOOL)],
      });
      assert.equal(second.choices[0].finish_reason, 'stop');
      assert.equal(second.choices[0].message.content, AFTER_TOOL_ANSWER);
    });

    test('parallel tool calls, streamed through the stream helper', async () => {
      const runner = openAiClient(stack).chat.completions.stream({
        model: MODELS.chat,
        messages: [{ role: 'user', content: TOOL_PROMPT }],
        tools: [chatTool(WEATHER_TOOL), chatTool(TIME_TOOL)],
      });
      const done = [];
      runner.on('tool_calls.function.arguments.done', (event) => done.push(event.name));
      const completion = await runner.finalChatCompletion();
      const [choice] = completion.choices;
      assert.equal(choice.finish_reason, 'tool_calls');
      const calls = choice.message.tool_calls ?? [];
      assert.deepEqual(calls.map((c) => c.function.name), [WEATHER_TOOL.name, TIME_TOOL.name]);
      assert.deepEqual(JSON.parse(calls[0].function.arguments), WEATHER_TOOL.expectedArguments);
      assert.deepEqual(JSON.parse(calls[1].function.arguments), TIME_TOOL.expectedArguments);
      assert.notEqual(calls[0].id, calls[1].id);
      assert.deepEqual(done, [WEATHER_TOOL.name, TIME_TOOL.name]);
    });

    test('unknown model: NotFoundError 404', async () => {
      const error = await expectSdkError(
          openAiClient(stack).chat.completions.create({
            model: UNKNOWN_MODEL,
            messages: [{ role: 'user', content: PROMPT }],
          }),
          OpenAI.NotFoundError, 404);
      assert.match(error.message, new RegExp(UNKNOWN_MODEL));
    });

    test('unknown model, streamed: NotFoundError 404 before any chunk', async () => {
      await expectSdkError(
          openAiClient(stack).chat.completions.create({
            model: UNKNOWN_MODEL,
            messages: [{ role: 'user', content: PROMPT }],
            stream: true,
          }),
          OpenAI.NotFoundError, 404);
    });

    test('wrong gateway key: AuthenticationError 401', async () => {
      await expectSdkError(
          openAiClient(stack, WRONG_KEY).chat.completions.create({
            model: MODELS.chat,
            messages: [{ role: 'user', content: PROMPT }],
          }),
          OpenAI.AuthenticationError, 401);
    });
  });
}
