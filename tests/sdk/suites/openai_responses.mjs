// openai (official Node SDK): responses through llmux to a channel of each upstream protocol
// (openai-responses: passthrough; the others: translated).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import OpenAI from 'openai';

import {
  AFTER_TOOL_ANSWER, ANSWER, CONVERSATION, MOOD_TOOL, PROMPT, TIME_TOOL, TOOL_PROMPT, TOOL_RESULT,
  UNICODE_ANSWER, UNICODE_PROMPT, WEATHER_TOOL, assertCutText, cliRequest,
  expectCutAnswer, expectSdkError, pairName, thinkingStart,
} from '../lib/expect.mjs';
import {
  MODELS, RATE_LIMIT_RETRY_AFTER, UNKNOWN_MODEL, WRONG_KEY, cutModel, overflowModel,
  rateLimitedModel,
} from '../lib/stack.mjs';
import {
  assertConversationReached, assertMatchesUpstream, assertSignaturesReturned, theUpstreamCall,
} from '../lib/upstream.mjs';
import { checkStreamFraming } from '../lib/wire.mjs';
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

/** What a response says, in the shape upstreamContent() gives. */
function responseContent(response) {
  return {
    text: messageText(response),
    reasoning: response.output
        .filter((item) => item.type === 'reasoning')
        .flatMap((item) => item.summary ?? [])
        .map((part) => part.text)
        .join(''),
    calls: functionCalls(response).map((c) => ({ name: c.name, args: JSON.parse(c.arguments) })),
  };
}

/** Reads a raw event stream: checks the sequence numbers, returns the text deltas, the event
 *  types and the terminal response. */
async function drain(stream) {
  const result = { text: '', types: new Set(), completed: undefined };
  let lastSequence = -1;
  for await (const event of stream) {
    result.types.add(event.type);
    assert.ok(event.sequence_number > lastSequence,
              `sequence_number ${event.sequence_number} after ${lastSequence}`);
    lastSequence = event.sequence_number;
    if (event.type === 'response.output_text.delta') result.text += event.delta;
    if (event.type === 'response.completed') result.completed = event.response;
  }
  return result;
}

export function registerOpenAiResponses(stack, upstream) {
  const model = MODELS[upstream];
  const client = () => openAiClient(stack);
  const matches = (mark, response) =>
    assertMatchesUpstream(stack, mark, 'responses',
                          { usage: response.usage, content: responseContent(response), upstream });

  describe(pairName('responses', upstream), () => {
    test('create, not streamed', async () => {
      const mark = await stack.journalMark();
      const response = await client().responses.create({ model, input: PROMPT });
      assert.equal(response.object, 'response');
      assert.equal(response.status, 'completed');
      assert.equal(response.model, model);
      assert.equal(response.output_text, ANSWER);
      const messages = response.output.filter((item) => item.type === 'message');
      assert.equal(messages.length, 1);
      assert.equal(messages[0].role, 'assistant');
      await matches(mark, response);
    });

    test('create, streamed: events through response.completed', async () => {
      const mark = await stack.journalMark();
      const result = await drain(await client().responses.create({
        model,
        input: [{ role: 'user', content: PROMPT }],
        stream: true,
      }));
      for (const type of ['response.created', 'response.output_item.added',
                          'response.content_part.added', 'response.output_text.done',
                          'response.output_item.done']) {
        assert.ok(result.types.has(type), `no ${type} event`);
      }
      assert.equal(result.text, ANSWER);
      assert.ok(result.completed, 'no response.completed event');
      assert.equal(result.completed.status, 'completed');
      // Raw events carry the response as sent: output_text is the SDK's convenience on whole
      // responses only, so the message item is read.
      assert.equal(messageText(result.completed), ANSWER);
      await matches(mark, result.completed);
    });

    test('stream helper: finalResponse and text deltas', async () => {
      const mark = await stack.journalMark();
      const stream = client().responses.stream({ model, input: PROMPT });
      let deltas = '';
      stream.on('response.output_text.delta', (event) => { deltas += event.delta; });
      const response = await stream.finalResponse();
      assert.equal(response.status, 'completed');
      assert.equal(response.output_text, ANSWER);
      assert.equal(deltas, ANSWER);
      await matches(mark, response);
    });

    test('instructions and history reach the upstream in its own shape', async () => {
      const mark = await stack.journalMark();
      const response = await client().responses.create({
        model,
        instructions: CONVERSATION.system,
        input: CONVERSATION.turns.map(([role, content]) => ({ role, content })),
      });
      assert.equal(response.output_text, ANSWER);
      await assertConversationReached(stack, mark, upstream, CONVERSATION);
    });

    test('prompt caching: cached tokens as the upstream counted them, not streamed and streamed',
         async () => {
           for (const stream of [false, true]) {
             const mark = await stack.journalMark();
             const request = { model, input: PROMPT, prompt_cache_key: 'sdk-conformance' };
             const response = stream
               ? await client().responses.stream(request).finalResponse()
               : await client().responses.create(request);
             assert.equal(response.output_text, ANSWER);
             const { canonical } = await matches(mark, response);
             if (upstream === 'chat' || upstream === 'responses') {
               assert.ok(canonical.cacheRead > 0,
                         `the upstream reported no cache read: ${JSON.stringify(canonical)}`);
             }
           }
         });

    test('tool call round, not streamed', async () => {
      const input = [{ role: 'user', content: TOOL_PROMPT }];
      const tools = [responsesTool(WEATHER_TOOL)];
      let mark = await stack.journalMark();
      const first = await client().responses.create({ model, input, tools });
      assert.equal(first.status, 'completed');
      const calls = functionCalls(first);
      assert.equal(calls.length, 1, 'expected exactly one function_call item');
      assert.equal(calls[0].name, WEATHER_TOOL.name);
      assert.match(calls[0].call_id, /\S/);
      assert.deepEqual(JSON.parse(calls[0].arguments), WEATHER_TOOL.expectedArguments);
      await matches(mark, first);

      input.push(...first.output,
                 { type: 'function_call_output', call_id: calls[0].call_id, output: TOOL_RESULT });
      mark = await stack.journalMark();
      const second = await client().responses.create({ model, input, tools });
      assert.equal(second.status, 'completed');
      assert.equal(functionCalls(second).length, 0);
      assert.equal(second.output_text, AFTER_TOOL_ANSWER);
      await matches(mark, second);
    });

    test('parallel tool calls through the stream helper, results sent back streamed', async () => {
      const input = [{ role: 'user', content: TOOL_PROMPT }];
      const tools = [responsesTool(WEATHER_TOOL), responsesTool(TIME_TOOL)];
      let mark = await stack.journalMark();
      const stream = client().responses.stream({ model, input, tools });
      const argumentDeltas = new Map();
      stream.on('response.function_call_arguments.delta', (event) => {
        argumentDeltas.set(event.item_id, (argumentDeltas.get(event.item_id) ?? '') + event.delta);
      });
      const first = await stream.finalResponse();
      assert.equal(first.status, 'completed');
      const calls = functionCalls(first);
      assert.deepEqual(calls.map((c) => c.name), [WEATHER_TOOL.name, TIME_TOOL.name]);
      assert.deepEqual(JSON.parse(calls[0].arguments), WEATHER_TOOL.expectedArguments);
      assert.deepEqual(JSON.parse(calls[1].arguments), TIME_TOOL.expectedArguments);
      assert.notEqual(calls[0].call_id, calls[1].call_id);
      for (const call of calls) {
        assert.equal(argumentDeltas.get(call.id), call.arguments,
                     `argument deltas of ${call.name} do not add up to its arguments`);
      }
      await matches(mark, first);

      input.push(...first.output, ...calls.map((c) => ({
        type: 'function_call_output', call_id: c.call_id, output: TOOL_RESULT,
      })));
      mark = await stack.journalMark();
      const second = await client().responses.stream({ model, input, tools }).finalResponse();
      assert.equal(second.status, 'completed');
      assert.equal(functionCalls(second).length, 0);
      assert.equal(second.output_text, AFTER_TOOL_ANSWER);
      await matches(mark, second);
    });

    test('unicode and escapes in text and tool arguments, not streamed and streamed', async () => {
      for (const stream of [false, true]) {
        const ask = async (extra) => {
          const mark = await stack.journalMark();
          const request = { model, input: UNICODE_PROMPT, ...extra };
          const response = stream
            ? await client().responses.stream(request).finalResponse()
            : await client().responses.create(request);
          await matches(mark, response);
          return responseContent(response);
        };
        assert.equal((await ask({})).text, UNICODE_ANSWER, `stream: ${stream}`);
        const { calls } = await ask({ tools: [responsesTool(MOOD_TOOL)] });
        assert.deepEqual(calls, [{ name: MOOD_TOOL.name, args: MOOD_TOOL.expectedArguments }],
                         `stream: ${stream}`);
      }
    });

    test('tool_choice: a named tool, none, parallel_tool_calls false', async () => {
      const tools = [responsesTool(WEATHER_TOOL), responsesTool(TIME_TOOL)];
      const ask = async (extra) => {
        const mark = await stack.journalMark();
        const response = await client().responses.create({
          model, input: TOOL_PROMPT, tools, ...extra,
        });
        await matches(mark, response);
        return responseContent(response);
      };
      const named = await ask({ tool_choice: { type: 'function', name: TIME_TOOL.name } });
      assert.deepEqual(named.calls, [{ name: TIME_TOOL.name, args: TIME_TOOL.expectedArguments }]);
      const none = await ask({ tool_choice: 'none' });
      assert.deepEqual(none.calls, []);
      assert.equal(none.text, `You said: "${TOOL_PROMPT}"`);
      // Gemini has no switch for parallel calls: its answer is relayed as it is.
      if (upstream !== 'gemini') {
        const single = await ask({ parallel_tool_calls: false });
        assert.deepEqual(single.calls.map((c) => c.name), [WEATHER_TOOL.name]);
      }
    });

    test("Codex's captured request (namespace and web_search tools, store false), streamed",
         async () => {
           const { body, headers } = cliRequest('codex-cli');
           const mark = await stack.journalMark();
           const response = await client().responses.stream({ ...body, model }, { headers })
               .finalResponse();
           assert.equal(response.status, 'completed');
           assert.ok(functionCalls(response).length > 0, 'the mock calls the first of the tools');
           await matches(mark, response);
         });

    test('reasoning, not streamed: a reasoning item with its summary', async () => {
      const mark = await stack.journalMark();
      const response = await client().responses.create({
        model,
        input: PROMPT,
        reasoning: { effort: 'low', summary: 'auto' },
      });
      assert.deepEqual(response.output.map((item) => item.type), ['reasoning', 'message']);
      const summary = response.output[0].summary.map((part) => part.text).join('');
      assert.ok(summary.startsWith(thinkingStart(PROMPT)), `summary: ${summary}`);
      assert.equal(response.output_text, ANSWER);
      await matches(mark, response);
    });

    test('reasoning with a tool, streamed through the stream helper; the output sent back',
         async () => {
           const input = [{ role: 'user', content: TOOL_PROMPT }];
           const request = {
             model,
             tools: [responsesTool(WEATHER_TOOL)],
             reasoning: { effort: 'low', summary: 'auto' },
           };
           let mark = await stack.journalMark();
           const stream = client().responses.stream({ ...request, input });
           let summaryDeltas = '';
           stream.on('response.reasoning_summary_text.delta', (event) => {
             summaryDeltas += event.delta;
           });
           const first = await stream.finalResponse();
           assert.equal(first.status, 'completed');
           assert.equal(first.output[0].type, 'reasoning');
           const summary = first.output[0].summary.map((part) => part.text).join('');
           assert.ok(summary.startsWith(thinkingStart(TOOL_PROMPT)), `summary: ${summary}`);
           assert.equal(summaryDeltas, summary);
           const calls = functionCalls(first);
           assert.equal(calls.length, 1);
           assert.deepEqual(JSON.parse(calls[0].arguments), WEATHER_TOOL.expectedArguments);
           const { canonical, entry: firstCall } = await matches(mark, first);
           if (canonical.reasoning > 0) {
             assert.equal(first.usage.output_tokens_details?.reasoning_tokens, canonical.reasoning);
             assert.ok(canonical.reasoning < first.usage.output_tokens);
           }

           // As Codex does: every output item, the reasoning one included, goes back as input.
           input.push(...first.output,
                      { type: 'function_call_output', call_id: calls[0].call_id,
                        output: TOOL_RESULT });
           mark = await stack.journalMark();
           const second = await client().responses.stream({ ...request, input }).finalResponse();
           assert.equal(second.status, 'completed');
           assert.equal(functionCalls(second).length, 0);
           assert.equal(second.output_text, AFTER_TOOL_ANSWER);
           const { entry: secondCall } = await matches(mark, second);
           // What the upstream needs to continue its reasoning comes back in the reasoning item's
           // encrypted_content (tagged with its origin when another provider made it). Gemini's
           // sits on the functionCall part, which a function_call item cannot carry.
           if (upstream === 'responses' || upstream === 'anthropic') {
             assertSignaturesReturned(upstream, firstCall, secondCall);
           }
         });

    for (const [what, extra] of [
      ['text', {}],
      ['reasoning and parallel tool calls', {
        reasoning: { effort: 'low', summary: 'auto' },
        tools: [responsesTool(WEATHER_TOOL), responsesTool(TIME_TOOL)],
      }],
    ]) {
      test(`stream bytes (${what}): Responses framing`, async () => {
        const response = await client().responses.create({
          model,
          input: what === 'text' ? PROMPT : TOOL_PROMPT,
          stream: true,
          ...extra,
        }).asResponse();
        assert.equal(response.status, 200);
        assert.match(response.headers.get('content-type'), /^text\/event-stream/);
        checkStreamFraming('responses', await response.text());
      });
    }

    if (upstream !== 'responses') {
      test('the conversation moves on to a Responses upstream: none of the reasoning llmux ' +
           'made up reaches it', async () => {
        const tools = [responsesTool(WEATHER_TOOL)];
        const reasoning = { effort: 'low', summary: 'auto' };
        const input = [{ role: 'user', content: TOOL_PROMPT }];
        const first = await client().responses.create({ model, input, tools, reasoning });
        const [call] = functionCalls(first);
        input.push(...first.output,
                   { type: 'function_call_output', call_id: call.call_id, output: TOOL_RESULT });
        const mark = await stack.journalMark();
        const second = await client().responses.create({
          model: MODELS.responses, input, tools, reasoning,
        });
        assert.equal(second.output_text, AFTER_TOOL_ANSWER);
        const { entry } = await theUpstreamCall(stack, mark, { upstream: 'responses' });
        for (const made of ['rs_llmux_', 'llmux:']) {
          assert.ok(!entry.body.includes(made), `${made} reached OpenAI: ${entry.body}`);
        }
      });
    }

    test('rate limited upstream: RateLimitError 429 with retry-after', async () => {
      const error = await expectSdkError(
          client().responses.create({
            model: rateLimitedModel('responses', upstream, 'create'),
            input: PROMPT,
          }),
          OpenAI.RateLimitError, 429);
      assert.equal(error.headers.get('retry-after'), String(RATE_LIMIT_RETRY_AFTER));
    });

    test('rate limited upstream, stream helper: RateLimitError 429', async () => {
      const error = await expectSdkError(
          () => client().responses.stream({
            model: rateLimitedModel('responses', upstream, 'stream'),
            input: PROMPT,
          }).finalResponse(),
          OpenAI.RateLimitError, 429);
      assert.equal(error.headers.get('retry-after'), String(RATE_LIMIT_RETRY_AFTER));
    });

    test('context overflow: BadRequestError 400 context_length_exceeded', async () => {
      const error = await expectSdkError(
          client().responses.create({ model: overflowModel(upstream), input: PROMPT }),
          OpenAI.BadRequestError, 400);
      assert.equal(error.code, 'context_length_exceeded');
    });

    test('context overflow, streamed: context_length_exceeded', async () => {
      const action = async () => drain(await client().responses.create({
        model: overflowModel(upstream),
        input: PROMPT,
        stream: true,
      }));
      let error;
      if (upstream === 'responses') {
        // The Responses API itself reports it in the stream (an `error` event, then
        // response.failed); passed through, the SDK raises it from the stream, without status.
        error = await expectSdkError(action, OpenAI.APIError, undefined);
      } else {
        // A translated stream that fails before any content gets an HTTP status instead.
        error = await expectSdkError(action, OpenAI.BadRequestError, 400);
      }
      assert.equal(error.code, 'context_length_exceeded');
    });

    test('upstream drops the connection: InternalServerError 502', async () => {
      await expectCutAnswer(upstream === 'responses',
                            client().responses.create({ model: cutModel(upstream), input: PROMPT }),
                            OpenAI.InternalServerError);
    });

    test('upstream drops the connection mid-stream: APIError from the stream', async () => {
      let text = '';
      const error = await expectSdkError(async () => {
        const stream = await client().responses.create({
          model: cutModel(upstream),
          input: PROMPT,
          stream: true,
        });
        for await (const event of stream) {
          if (event.type === 'response.output_text.delta') text += event.delta;
        }
      }, OpenAI.APIError, undefined);
      assertCutText(text, ANSWER);
      assert.match(error.message, /\S/);
    });
  });
}

/** What the gateway answers itself, whatever the upstream. */
export function registerOpenAiResponsesGateway(stack) {
  describe('responses → gateway', () => {
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
