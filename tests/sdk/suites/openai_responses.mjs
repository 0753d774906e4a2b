// openai (official Node SDK): responses through llmux to an openai-responses channel.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import OpenAI from 'openai';

import {
  AFTER_TOOL_ANSWER, ANSWER, PROMPT, TIME_TOOL, TOOL_PROMPT, TOOL_RESULT, WEATHER_TOOL,
  assertTokens, expectSdkError, thinkingStart,
} from '../lib/expect.mjs';
import { MODELS, UNKNOWN_MODEL, WRONG_KEY } from '../lib/stack.mjs';
import { openAiClient } from './openai_chat.mjs';

function responsesTool(tool) {
  return {
    type: 'function',
    name: tool.name,
    description: tool.description,
    parameters: tool.schema,
    strict: false,
  };
}

function assertUsage(usage) {
  assert.ok(usage, 'usage is missing');
  assertTokens(usage.input_tokens, 'usage.input_tokens');
  assertTokens(usage.output_tokens, 'usage.output_tokens');
  assert.equal(usage.total_tokens, usage.input_tokens + usage.output_tokens);
}

/** Text of the response's message items, read from the output as sent. */
function messageText(response) {
  return response.output
      .filter((item) => item.type === 'message')
      .flatMap((item) => item.content)
      .filter((part) => part.type === 'output_text')
      .map((part) => part.text)
      .join('');
}

function functionCalls(response) {
  return response.output.filter((item) => item.type === 'function_call');
}

export function registerOpenAiResponses(stack) {
  describe('openai responses', () => {
    test('create, not streamed', async () => {
      const response = await openAiClient(stack).responses.create({
        model: MODELS.responses,
        input: PROMPT,
      });
      assert.equal(response.object, 'response');
      assert.equal(response.status, 'completed');
      assert.equal(response.model, MODELS.responses);
      assert.equal(response.output_text, ANSWER);
      assert.equal(messageText(response), ANSWER);
      const messages = response.output.filter((item) => item.type === 'message');
      assert.equal(messages.length, 1);
      assert.equal(messages[0].role, 'assistant');
      assertUsage(response.usage);
    });

    test('create, streamed', async () => {
      const stream = await openAiClient(stack).responses.create({
        model: MODELS.responses,
        input: [{ role: 'user', content: PROMPT }],
        stream: true,
      });
      let text = '';
      let completed;
      let lastSequence = -1;
      const types = new Set();
      for await (const event of stream) {
        types.add(event.type);
        assert.ok(event.sequence_number > lastSequence,
                  `sequence_number ${event.sequence_number} after ${lastSequence}`);
        lastSequence = event.sequence_number;
        if (event.type === 'response.output_text.delta') text += event.delta;
        if (event.type === 'response.completed') completed = event.response;
      }
      assert.ok(types.has('response.created'), 'no response.created event');
      assert.equal(text, ANSWER);
      assert.ok(completed, 'no response.completed event');
      assert.equal(completed.status, 'completed');
      // Raw events carry the response as sent: output_text is the SDK's convenience on whole
      // responses only, so read the message item.
      assert.equal(messageText(completed), ANSWER);
      assertUsage(completed.usage);
    });

    test('tool call round, not streamed', async () => {
      const client = openAiClient(stack);
      const input = [{ role: 'user', content: TOOL_PROMPT }];
      const first = await client.responses.create({
        model: MODELS.responses,
        input,
        tools: [responsesTool(WEATHER_TOOL)],
      });
      assert.equal(first.status, 'completed');
      const calls = functionCalls(first);
      assert.equal(calls.length, 1, 'expected exactly one function_call item');
      assert.equal(calls[0].name, WEATHER_TOOL.name);
      assert.match(calls[0].call_id, /\S/);
      assert.deepEqual(JSON.parse(calls[0].arguments), WEATHER_TOOL.expectedArguments);
      assertUsage(first.usage);

      input.push(...first.output,
                 { type: 'function_call_output', call_id: calls[0].call_id, output: TOOL_RESULT });
      const second = await client.responses.create({
        model: MODELS.responses,
        input,
        tools: [responsesTool(WEATHER_TOOL)],
      });
      assert.equal(second.status, 'completed');
      assert.equal(functionCalls(second).length, 0);
      assert.equal(second.output_text, AFTER_TOOL_ANSWER);
    });

    test('parallel tool calls, streamed through the stream helper', async () => {
      const stream = openAiClient(stack).responses.stream({
        model: MODELS.responses,
        input: TOOL_PROMPT,
        tools: [responsesTool(WEATHER_TOOL), responsesTool(TIME_TOOL)],
      });
      const argumentDeltas = new Map();
      stream.on('response.function_call_arguments.delta', (event) => {
        argumentDeltas.set(event.item_id, (argumentDeltas.get(event.item_id) ?? '') + event.delta);
      });
      const response = await stream.finalResponse();
      assert.equal(response.status, 'completed');
      const calls = functionCalls(response);
      assert.deepEqual(calls.map((c) => c.name), [WEATHER_TOOL.name, TIME_TOOL.name]);
      assert.deepEqual(JSON.parse(calls[0].arguments), WEATHER_TOOL.expectedArguments);
      assert.deepEqual(JSON.parse(calls[1].arguments), TIME_TOOL.expectedArguments);
      assert.notEqual(calls[0].call_id, calls[1].call_id);
      for (const call of calls) {
        assert.equal(argumentDeltas.get(call.id), call.arguments,
                     `argument deltas of ${call.name} do not add up to its arguments`);
      }
      assertUsage(response.usage);
    });

    test('reasoning summary, streamed through the stream helper', async () => {
      const stream = openAiClient(stack).responses.stream({
        model: MODELS.responses,
        input: PROMPT,
        reasoning: { effort: 'low', summary: 'auto' },
      });
      let summaryDeltas = '';
      stream.on('response.reasoning_summary_text.delta', (event) => { summaryDeltas += event.delta; });
      const response = await stream.finalResponse();
      assert.deepEqual(response.output.map((item) => item.type), ['reasoning', 'message']);
      const summary = response.output[0].summary.map((part) => part.text).join('');
      assert.ok(summary.startsWith(thinkingStart(PROMPT)), `summary: ${summary}`);
      assert.equal(summaryDeltas, summary);
      assert.equal(response.output_text, ANSWER);
      assertUsage(response.usage);
      const reasoningTokens = response.usage.output_tokens_details?.reasoning_tokens;
      assertTokens(reasoningTokens, 'usage.output_tokens_details.reasoning_tokens');
      assert.ok(reasoningTokens < response.usage.output_tokens);
    });

    test('unknown model: NotFoundError 404', async () => {
      await expectSdkError(
          openAiClient(stack).responses.create({ model: UNKNOWN_MODEL, input: PROMPT }),
          OpenAI.NotFoundError, 404);
    });

    test('wrong gateway key: AuthenticationError 401', async () => {
      await expectSdkError(
          openAiClient(stack, WRONG_KEY).responses.create({ model: MODELS.responses, input: PROMPT }),
          OpenAI.AuthenticationError, 401);
    });
  });
}
