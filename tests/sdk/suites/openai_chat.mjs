// openai (official Node SDK): chat.completions through llmux to a channel of each upstream
// protocol (openai-chat: passthrough; the others: translated).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import OpenAI from 'openai';

import {
  AFTER_TOOL_ANSWER, ANSWER, CONVERSATION, MOOD_TOOL, PROMPT, TIME_TOOL, TOOL_PROMPT, TOOL_RESULT,
  UNICODE_ANSWER, UNICODE_PROMPT, WEATHER_TOOL, assertCutText, expectCutAnswer,
  expectSdkError, pairName, thinkingStart,
} from '../lib/expect.mjs';
import {
  GATEWAY_KEY, MODELS, RATE_LIMIT_RETRY_AFTER, UNKNOWN_MODEL, WRONG_KEY, cutModel, overflowModel,
  rateLimitedModel,
} from '../lib/stack.mjs';
import { assertConversationReached, assertMatchesUpstream } from '../lib/upstream.mjs';
import { checkStreamFraming } from '../lib/wire.mjs';

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

/** What an assistant message says, in the shape upstreamContent() gives. */
function messageContent(message) {
  return {
    text: message.content ?? '',
    reasoning: message.reasoning_content ?? '',
    calls: (message.tool_calls ?? []).map((c) => ({
      name: c.function.name,
      args: JSON.parse(c.function.arguments),
    })),
  };
}

/** Reads a raw chunk stream the way a client without the helpers does. */
async function drain(stream) {
  const result = {
    text: '', reasoning: '', calls: [], role: undefined, finishReason: undefined,
    usage: undefined, chunks: 0,
  };
  for await (const chunk of stream) {
    result.chunks += 1;
    assert.equal(chunk.object, 'chat.completion.chunk');
    for (const choice of chunk.choices) {
      const { delta } = choice;
      if (delta.role) result.role = delta.role;
      if (delta.content) result.text += delta.content;
      if (delta.reasoning_content) result.reasoning += delta.reasoning_content;
      for (const call of delta.tool_calls ?? []) {
        assert.ok(Number.isInteger(call.index),
                  `tool call delta without an index: ${JSON.stringify(call)}`);
        if (!result.calls[call.index]) {
          assert.match(call.id ?? '', /\S/, 'the first delta of a tool call carries its id');
          result.calls[call.index] = { id: call.id, name: call.function?.name, arguments: '' };
        }
        result.calls[call.index].arguments += call.function?.arguments ?? '';
      }
      if (choice.finish_reason) result.finishReason = choice.finish_reason;
    }
    if (chunk.usage) result.usage = chunk.usage;
  }
  result.content = {
    text: result.text,
    reasoning: result.reasoning,
    calls: result.calls.map((c) => ({ name: c.name, args: JSON.parse(c.arguments) })),
  };
  return result;
}

const userMessage = (content) => ({ role: 'user', content });

export function registerOpenAiChat(stack, upstream) {
  const model = MODELS[upstream];
  const client = () => openAiClient(stack);
  const matches = (mark, usage, content) =>
    assertMatchesUpstream(stack, mark, 'chat', { usage, content, upstream });

  describe(pairName('chat', upstream), () => {
    test('create, not streamed', async () => {
      const mark = await stack.journalMark();
      const completion = await client().chat.completions.create({
        model,
        messages: [userMessage(PROMPT)],
      });
      assert.equal(completion.object, 'chat.completion');
      assert.equal(completion.model, model);
      assert.equal(completion.choices.length, 1);
      const [choice] = completion.choices;
      assert.equal(choice.message.role, 'assistant');
      assert.equal(choice.message.content, ANSWER);
      assert.equal(choice.finish_reason, 'stop');
      await matches(mark, completion.usage, messageContent(choice.message));
    });

    test('create, streamed, with include_usage', async () => {
      const mark = await stack.journalMark();
      const result = await drain(await client().chat.completions.create({
        model,
        messages: [userMessage(PROMPT)],
        stream: true,
        stream_options: { include_usage: true },
      }));
      assert.ok(result.chunks > 2, `expected the answer in several chunks, got ${result.chunks}`);
      assert.equal(result.role, 'assistant');
      assert.equal(result.text, ANSWER);
      assert.equal(result.finishReason, 'stop');
      await matches(mark, result.usage, result.content);
    });

    test('create, streamed, without include_usage: no usage chunk', async () => {
      const result = await drain(await client().chat.completions.create({
        model,
        messages: [userMessage(PROMPT)],
        stream: true,
      }));
      assert.equal(result.text, ANSWER);
      assert.equal(result.finishReason, 'stop');
      assert.equal(result.usage, undefined);
    });

    test('stream helper accumulates the same answer', async () => {
      const mark = await stack.journalMark();
      const runner = client().chat.completions.stream({
        model,
        messages: [userMessage(PROMPT)],
        stream_options: { include_usage: true },
      });
      const deltas = [];
      runner.on('content', (delta) => deltas.push(delta));
      const completion = await runner.finalChatCompletion();
      assert.equal(completion.choices[0].message.content, ANSWER);
      assert.equal(completion.choices[0].finish_reason, 'stop');
      assert.equal(deltas.join(''), ANSWER);
      await matches(mark, completion.usage);
    });

    test('a system message and history reach the upstream in its own shape', async () => {
      const mark = await stack.journalMark();
      const completion = await client().chat.completions.create({
        model,
        messages: [{ role: 'system', content: CONVERSATION.system },
                   ...CONVERSATION.turns.map(([role, content]) => ({ role, content }))],
      });
      assert.equal(completion.choices[0].message.content, ANSWER);
      await assertConversationReached(stack, mark, upstream, CONVERSATION);
    });

    test('prompt caching: cached tokens as the upstream counted them, not streamed and streamed',
         async () => {
           // prompt_cache_key is Chat's own marker; the part-level cache_control (OpenRouter's
           // extension) is how a Chat client marks a breakpoint for an Anthropic upstream.
           const content = upstream === 'anthropic'
             ? [{ type: 'text', text: PROMPT, cache_control: { type: 'ephemeral' } }]
             : PROMPT;
           const request = { model, messages: [userMessage(content)], prompt_cache_key: 'sdk' };
           for (const stream of [false, true]) {
             const mark = await stack.journalMark();
             let usage;
             let said;
             if (stream) {
               const result = await drain(await client().chat.completions.create({
                 ...request, stream: true, stream_options: { include_usage: true },
               }));
               ({ usage, content: said } = result);
             } else {
               const completion = await client().chat.completions.create(request);
               ({ usage } = completion);
               said = messageContent(completion.choices[0].message);
             }
             assert.equal(said.text, ANSWER);
             const { canonical } = await matches(mark, usage, said);
             if (upstream !== 'gemini') {
               assert.ok(canonical.cacheRead > 0,
                         `the upstream reported no cache read: ${JSON.stringify(canonical)}`);
             }
           }
         });

    test('tool call round, not streamed', async () => {
      const messages = [userMessage(TOOL_PROMPT)];
      const tools = [chatTool(WEATHER_TOOL)];
      let mark = await stack.journalMark();
      const first = await client().chat.completions.create({ model, messages, tools });
      const [choice] = first.choices;
      assert.equal(choice.finish_reason, 'tool_calls');
      assert.equal(choice.message.tool_calls?.length, 1, 'expected exactly one tool call');
      const [call] = choice.message.tool_calls;
      assert.equal(call.type, 'function');
      assert.equal(call.function.name, WEATHER_TOOL.name);
      assert.match(call.id, /\S/);
      assert.deepEqual(JSON.parse(call.function.arguments), WEATHER_TOOL.expectedArguments);
      await matches(mark, first.usage, messageContent(choice.message));

      messages.push(choice.message, { role: 'tool', tool_call_id: call.id, content: TOOL_RESULT });
      mark = await stack.journalMark();
      const second = await client().chat.completions.create({ model, messages, tools });
      assert.equal(second.choices[0].finish_reason, 'stop');
      assert.equal(second.choices[0].message.content, AFTER_TOOL_ANSWER);
      await matches(mark, second.usage, messageContent(second.choices[0].message));
    });

    test('parallel tool calls through the stream helper, results sent back streamed', async () => {
      const messages = [userMessage(TOOL_PROMPT)];
      const tools = [chatTool(WEATHER_TOOL), chatTool(TIME_TOOL)];
      let mark = await stack.journalMark();
      const runner = client().chat.completions.stream({
        model, messages, tools, stream_options: { include_usage: true },
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
      await matches(mark, completion.usage, messageContent(choice.message));

      messages.push(choice.message,
                    ...calls.map((c) => ({
                      role: 'tool', tool_call_id: c.id, content: TOOL_RESULT,
                    })));
      mark = await stack.journalMark();
      const second = await drain(await client().chat.completions.create({
        model, messages, tools, stream: true, stream_options: { include_usage: true },
      }));
      assert.equal(second.finishReason, 'stop');
      assert.equal(second.text, AFTER_TOOL_ANSWER);
      assert.deepEqual(second.calls, []);
      await matches(mark, second.usage, second.content);
    });

    test('unicode and escapes in text and tool arguments, not streamed and streamed', async () => {
      for (const stream of [false, true]) {
        const ask = async (extra) => {
          const mark = await stack.journalMark();
          const request = { model, messages: [userMessage(UNICODE_PROMPT)], ...extra };
          if (!stream) {
            const completion = await client().chat.completions.create(request);
            const content = messageContent(completion.choices[0].message);
            await matches(mark, completion.usage, content);
            return content;
          }
          const result = await drain(await client().chat.completions.create({
            ...request, stream: true, stream_options: { include_usage: true },
          }));
          await matches(mark, result.usage, result.content);
          return result.content;
        };
        assert.equal((await ask({})).text, UNICODE_ANSWER, `stream: ${stream}`);
        const { calls } = await ask({ tools: [chatTool(MOOD_TOOL)] });
        assert.deepEqual(calls, [{ name: MOOD_TOOL.name, args: MOOD_TOOL.expectedArguments }],
                         `stream: ${stream}`);
      }
    });

    test('tool_choice: a named tool, none, parallel_tool_calls false', async () => {
      const tools = [chatTool(WEATHER_TOOL), chatTool(TIME_TOOL)];
      const ask = async (extra) => {
        const mark = await stack.journalMark();
        const completion = await client().chat.completions.create({
          model, messages: [userMessage(TOOL_PROMPT)], tools, ...extra,
        });
        const content = messageContent(completion.choices[0].message);
        await matches(mark, completion.usage, content);
        return { content, finish: completion.choices[0].finish_reason };
      };
      const named = await ask({
        tool_choice: { type: 'function', function: { name: TIME_TOOL.name } },
      });
      assert.deepEqual(named.content.calls,
                       [{ name: TIME_TOOL.name, args: TIME_TOOL.expectedArguments }]);
      assert.equal(named.finish, 'tool_calls');
      const none = await ask({ tool_choice: 'none' });
      assert.deepEqual(none.content.calls, []);
      assert.equal(none.content.text, `You said: "${TOOL_PROMPT}"`);
      assert.equal(none.finish, 'stop');
      // Gemini has no switch for parallel calls: its answer is relayed as it is.
      if (upstream !== 'gemini') {
        const single = await ask({ parallel_tool_calls: false });
        assert.deepEqual(single.content.calls.map((c) => c.name), [WEATHER_TOOL.name]);
      }
    });

    test('reasoning_effort, not streamed: reasoning_content', async () => {
      const mark = await stack.journalMark();
      const completion = await client().chat.completions.create({
        model,
        messages: [userMessage(PROMPT)],
        reasoning_effort: 'low',
      });
      const { message } = completion.choices[0];
      assert.equal(message.content, ANSWER);
      assert.ok(message.reasoning_content?.startsWith(thinkingStart(PROMPT)),
                `reasoning_content: ${message.reasoning_content}`);
      const { canonical } = await matches(mark, completion.usage, messageContent(message));
      if (canonical.reasoning > 0) {
        assert.equal(completion.usage.completion_tokens_details?.reasoning_tokens,
                     canonical.reasoning);
      }
    });

    test('reasoning_effort with a tool, streamed; reasoning_content sent back on the next turn',
         async () => {
           const messages = [userMessage(TOOL_PROMPT)];
           const tools = [chatTool(WEATHER_TOOL)];
           const request = { model, tools, reasoning_effort: 'low', stream: true,
                             stream_options: { include_usage: true } };
           let mark = await stack.journalMark();
           const first = await drain(
               await client().chat.completions.create({ ...request, messages }));
           assert.equal(first.finishReason, 'tool_calls');
           assert.ok(first.reasoning.startsWith(thinkingStart(TOOL_PROMPT)),
                     `reasoning_content: ${first.reasoning}`);
           assert.equal(first.calls.length, 1);
           assert.deepEqual(first.content.calls[0].args, WEATHER_TOOL.expectedArguments);
           await matches(mark, first.usage, first.content);

           // As DeepSeek-style clients do: the reasoning goes back with the assistant turn.
           const [call] = first.calls;
           messages.push({
             role: 'assistant',
             content: first.text || null,
             reasoning_content: first.reasoning,
             tool_calls: [{ id: call.id, type: 'function',
                            function: { name: call.name, arguments: call.arguments } }],
           }, { role: 'tool', tool_call_id: call.id, content: TOOL_RESULT });
           mark = await stack.journalMark();
           const second = await drain(
               await client().chat.completions.create({ ...request, messages }));
           assert.equal(second.finishReason, 'stop');
           assert.equal(second.text, AFTER_TOOL_ANSWER);
           await matches(mark, second.usage, second.content);
         });

    for (const [what, extra] of [
      ['text', {}],
      ['reasoning and parallel tool calls',
       { reasoning_effort: 'low', tools: [chatTool(WEATHER_TOOL), chatTool(TIME_TOOL)] }],
    ]) {
      test(`stream bytes (${what}): Chat framing`, async () => {
        for (const includeUsage of [true, false]) {
          const response = await client().chat.completions.create({
            model,
            messages: [userMessage(what === 'text' ? PROMPT : TOOL_PROMPT)],
            stream: true,
            ...(includeUsage ? { stream_options: { include_usage: true } } : {}),
            ...extra,
          }).asResponse();
          assert.equal(response.status, 200);
          assert.match(response.headers.get('content-type'), /^text\/event-stream/);
          checkStreamFraming('chat', await response.text(), { includeUsage });
        }
      });
    }

    test('rate limited upstream: RateLimitError 429 with retry-after', async () => {
      const error = await expectSdkError(
          client().chat.completions.create({
            model: rateLimitedModel('chat', upstream, 'create'),
            messages: [userMessage(PROMPT)],
          }),
          OpenAI.RateLimitError, 429);
      assert.equal(error.headers.get('retry-after'), String(RATE_LIMIT_RETRY_AFTER));
    });

    test('rate limited upstream, streamed: RateLimitError 429 before any chunk', async () => {
      const error = await expectSdkError(
          async () => drain(await client().chat.completions.create({
            model: rateLimitedModel('chat', upstream, 'stream'),
            messages: [userMessage(PROMPT)],
            stream: true,
          })),
          OpenAI.RateLimitError, 429);
      assert.equal(error.headers.get('retry-after'), String(RATE_LIMIT_RETRY_AFTER));
    });

    test('context overflow: BadRequestError 400 context_length_exceeded', async () => {
      const error = await expectSdkError(
          client().chat.completions.create({
            model: overflowModel(upstream),
            messages: [userMessage(PROMPT)],
          }),
          OpenAI.BadRequestError, 400);
      assert.equal(error.code, 'context_length_exceeded');
    });

    test('context overflow, streamed: BadRequestError 400 context_length_exceeded', async () => {
      const error = await expectSdkError(
          async () => drain(await client().chat.completions.create({
            model: overflowModel(upstream),
            messages: [userMessage(PROMPT)],
            stream: true,
            stream_options: { include_usage: true },
          })),
          OpenAI.BadRequestError, 400);
      assert.equal(error.code, 'context_length_exceeded');
    });

    test('upstream drops the connection: InternalServerError 502', async () => {
      const call = client().chat.completions.create({
        model: cutModel(upstream),
        messages: [userMessage(PROMPT)],
      });
      await expectCutAnswer(upstream === 'chat', call, OpenAI.InternalServerError);
    });

    test('upstream drops the connection mid-stream: APIError from the stream', async () => {
      let text = '';
      const error = await expectSdkError(async () => {
        const stream = await client().chat.completions.create({
          model: cutModel(upstream),
          messages: [userMessage(PROMPT)],
          stream: true,
        });
        for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
      }, OpenAI.APIError, undefined);
      assertCutText(text, ANSWER);
      assert.match(error.message, /\S/);
    });
  });
}

/** What the gateway answers itself, whatever the upstream. */
export function registerOpenAiChatGateway(stack) {
  describe('chat → gateway', () => {
    test('models.list: every model of every channel', async () => {
      const ids = [];
      for await (const entry of openAiClient(stack).models.list()) ids.push(entry.id);
      for (const model of Object.values(MODELS)) {
        assert.ok(ids.includes(model), `${model} missing: ${ids}`);
      }
    });

    test('unknown model: NotFoundError 404', async () => {
      const error = await expectSdkError(
          openAiClient(stack).chat.completions.create({
            model: UNKNOWN_MODEL,
            messages: [userMessage(PROMPT)],
          }),
          OpenAI.NotFoundError, 404);
      assert.match(error.message, new RegExp(UNKNOWN_MODEL));
    });

    test('unknown model, streamed: NotFoundError 404 before any chunk', async () => {
      await expectSdkError(
          openAiClient(stack).chat.completions.create({
            model: UNKNOWN_MODEL,
            messages: [userMessage(PROMPT)],
            stream: true,
          }),
          OpenAI.NotFoundError, 404);
    });

    test('wrong gateway key: AuthenticationError 401', async () => {
      await expectSdkError(
          openAiClient(stack, WRONG_KEY).chat.completions.create({
            model: MODELS.chat,
            messages: [userMessage(PROMPT)],
          }),
          OpenAI.AuthenticationError, 401);
    });
  });
}
