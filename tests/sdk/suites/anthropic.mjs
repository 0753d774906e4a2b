// @anthropic-ai/sdk (official): messages through llmux to a channel of each upstream protocol
// (anthropic: passthrough; the others: translated).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import Anthropic from '@anthropic-ai/sdk';

import {
  AFTER_TOOL_ANSWER, ANSWER, CONVERSATION, MOOD_TOOL, PROMPT, TIME_TOOL, TOOL_PROMPT, TOOL_RESULT,
  UNICODE_ANSWER, UNICODE_PROMPT, WEATHER_TOOL, assertCutText, cliRequest,
  expectCutAnswer, expectSdkError, pairName, thinkingStart,
} from '../lib/expect.mjs';
import {
  GATEWAY_KEY, MODELS, RATE_LIMIT_RETRY_AFTER, UNKNOWN_MODEL, WRONG_KEY, cutModel, overflowModel,
  rateLimitedModel,
} from '../lib/stack.mjs';
import {
  assertConversationReached, assertMatchesUpstream, assertSignaturesReturned, theUpstreamCall,
} from '../lib/upstream.mjs';
import { checkStreamFraming } from '../lib/wire.mjs';

const kMaxTokens = 256;

/** The SDK's own way: `apiKey`, which this SDK version sends as `Authorization: Bearer`. */
function sdkClient(stack, apiKey = GATEWAY_KEY) {
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

function textOf(message) {
  return message.content.filter((b) => b.type === 'text').map((b) => b.text).join('');
}

function toolUses(message) {
  return message.content.filter((b) => b.type === 'tool_use');
}

/** What a message says, in the shape upstreamContent() gives. */
function messageContent(message) {
  return {
    text: textOf(message),
    reasoning: message.content.filter((b) => b.type === 'thinking').map((b) => b.thinking).join(''),
    calls: toolUses(message).map((u) => ({ name: u.name, args: u.input })),
  };
}

export function registerAnthropic(stack, upstream) {
  const model = MODELS[upstream];
  const client = () => sdkClient(stack);
  const matches = (mark, message) =>
    assertMatchesUpstream(stack, mark, 'anthropic',
                          { usage: message.usage, content: messageContent(message), upstream });

  describe(pairName('anthropic', upstream), () => {
    test('create, not streamed', async () => {
      const mark = await stack.journalMark();
      const message = await client().messages.create({
        model,
        max_tokens: kMaxTokens,
        messages: [{ role: 'user', content: PROMPT }],
      });
      assert.equal(message.type, 'message');
      assert.equal(message.role, 'assistant');
      assert.equal(message.model, model);
      assert.deepEqual(message.content.map((b) => b.type), ['text']);
      assert.equal(message.content[0].text, ANSWER);
      assert.equal(message.stop_reason, 'end_turn');
      await matches(mark, message);
    });

    test('create, streamed: raw events, usage split over message_start and message_delta',
         async () => {
           const mark = await stack.journalMark();
           const stream = await client().messages.create({
             model,
             max_tokens: kMaxTokens,
             messages: [{ role: 'user', content: PROMPT }],
             stream: true,
           });
           const types = [];
           let text = '';
           let stopReason;
           const usage = {};
           const merge = (from) => {
             for (const [key, value] of Object.entries(from ?? {})) {
               if (value !== null && value !== undefined) usage[key] = value;
             }
           };
           for await (const event of stream) {
             types.push(event.type);
             if (event.type === 'message_start') merge(event.message.usage);
             if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') {
               text += event.delta.text;
             }
             if (event.type === 'message_delta') {
               stopReason = event.delta.stop_reason;
               assert.ok(Number.isInteger(event.usage?.output_tokens),
                         'message_delta without usage.output_tokens');
               merge(event.usage);
             }
           }
           assert.equal(types[0], 'message_start');
           assert.equal(types.at(-1), 'message_stop');
           assert.ok(types.includes('content_block_start') && types.includes('content_block_stop'),
                     `content block events missing: ${types.join(', ')}`);
           assert.equal(text, ANSWER);
           assert.equal(stopReason, 'end_turn');
           await assertMatchesUpstream(stack, mark, 'anthropic',
                                       { usage, upstream,
                                         content: { text, reasoning: '', calls: [] } });
         });

    test('stream helper: finalMessage and text events', async () => {
      const mark = await stack.journalMark();
      const stream = client().messages.stream({
        model,
        max_tokens: kMaxTokens,
        messages: [{ role: 'user', content: PROMPT }],
      });
      let streamed = '';
      stream.on('text', (delta) => { streamed += delta; });
      const message = await stream.finalMessage();
      assert.equal(textOf(message), ANSWER);
      assert.equal(streamed, ANSWER);
      assert.equal(message.stop_reason, 'end_turn');
      await matches(mark, message);
    });

    test('system and history reach the upstream in its own shape', async () => {
      const mark = await stack.journalMark();
      const message = await client().messages.create({
        model,
        max_tokens: kMaxTokens,
        system: CONVERSATION.system,
        messages: CONVERSATION.turns.map(([role, content]) => ({ role, content })),
      });
      assert.equal(textOf(message), ANSWER);
      await assertConversationReached(stack, mark, upstream, CONVERSATION);
    });

    test('prompt caching: cache reads and writes as the upstream counted them, not streamed ' +
         'and streamed', async () => {
      const request = {
        model,
        max_tokens: kMaxTokens,
        messages: [{
          role: 'user',
          content: [{ type: 'text', text: PROMPT, cache_control: { type: 'ephemeral' } }],
        }],
      };
      for (const stream of [false, true]) {
        const mark = await stack.journalMark();
        const message = stream
          ? await client().messages.stream(request).finalMessage()
          : await client().messages.create(request);
        assert.equal(textOf(message), ANSWER);
        const { canonical } = await matches(mark, message);
        if (upstream === 'anthropic') {
          assert.ok(canonical.cacheRead > 0 && canonical.cacheWrite > 0,
                    `the upstream reported no cache use: ${JSON.stringify(canonical)}`);
        }
      }
    });

    test('tool call round, not streamed', async () => {
      const messages = [{ role: 'user', content: TOOL_PROMPT }];
      const tools = [anthropicTool(WEATHER_TOOL)];
      let mark = await stack.journalMark();
      const first = await client().messages.create({
        model, max_tokens: kMaxTokens, messages, tools,
      });
      assert.equal(first.stop_reason, 'tool_use');
      const uses = toolUses(first);
      assert.equal(uses.length, 1, 'expected exactly one tool_use block');
      assert.equal(uses[0].name, WEATHER_TOOL.name);
      assert.match(uses[0].id, /\S/);
      assert.deepEqual(uses[0].input, WEATHER_TOOL.expectedArguments);
      await matches(mark, first);

      messages.push({ role: 'assistant', content: first.content }, {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: uses[0].id, content: TOOL_RESULT }],
      });
      mark = await stack.journalMark();
      const second = await client().messages.create({
        model, max_tokens: kMaxTokens, messages, tools,
      });
      assert.equal(second.stop_reason, 'end_turn');
      assert.equal(toolUses(second).length, 0);
      assert.equal(textOf(second), AFTER_TOOL_ANSWER);
      await matches(mark, second);
    });

    test('parallel tool calls through messages.stream(), results sent back streamed', async () => {
      const messages = [{ role: 'user', content: TOOL_PROMPT }];
      const tools = [anthropicTool(WEATHER_TOOL), anthropicTool(TIME_TOOL)];
      let mark = await stack.journalMark();
      const first = await client().messages.stream({
        model, max_tokens: kMaxTokens, messages, tools,
      }).finalMessage();
      assert.equal(first.stop_reason, 'tool_use');
      const uses = toolUses(first);
      assert.deepEqual(uses.map((u) => u.name), [WEATHER_TOOL.name, TIME_TOOL.name]);
      assert.deepEqual(uses[0].input, WEATHER_TOOL.expectedArguments);
      assert.deepEqual(uses[1].input, TIME_TOOL.expectedArguments);
      assert.notEqual(uses[0].id, uses[1].id);
      await matches(mark, first);

      messages.push({ role: 'assistant', content: first.content }, {
        role: 'user',
        content: uses.map((u) => ({
          type: 'tool_result', tool_use_id: u.id, content: TOOL_RESULT,
        })),
      });
      mark = await stack.journalMark();
      const second = await client().messages.stream({
        model, max_tokens: kMaxTokens, messages, tools,
      }).finalMessage();
      assert.equal(second.stop_reason, 'end_turn');
      assert.equal(toolUses(second).length, 0);
      assert.equal(textOf(second), AFTER_TOOL_ANSWER);
      await matches(mark, second);
    });

    test('unicode and escapes in text and tool arguments, not streamed and streamed', async () => {
      for (const stream of [false, true]) {
        const ask = async (extra) => {
          const mark = await stack.journalMark();
          const request = {
            model,
            max_tokens: kMaxTokens,
            messages: [{ role: 'user', content: UNICODE_PROMPT }],
            ...extra,
          };
          const message = stream
            ? await client().messages.stream(request).finalMessage()
            : await client().messages.create(request);
          await matches(mark, message);
          return messageContent(message);
        };
        assert.equal((await ask({})).text, UNICODE_ANSWER, `stream: ${stream}`);
        const { calls } = await ask({ tools: [anthropicTool(MOOD_TOOL)] });
        assert.deepEqual(calls, [{ name: MOOD_TOOL.name, args: MOOD_TOOL.expectedArguments }],
                         `stream: ${stream}`);
      }
    });

    test('tool_choice: a named tool, none, disable_parallel_tool_use', async () => {
      const tools = [anthropicTool(WEATHER_TOOL), anthropicTool(TIME_TOOL)];
      const ask = async (extra) => {
        const mark = await stack.journalMark();
        const message = await client().messages.create({
          model, max_tokens: kMaxTokens, messages: [{ role: 'user', content: TOOL_PROMPT }], tools,
          ...extra,
        });
        await matches(mark, message);
        return { content: messageContent(message), stop: message.stop_reason };
      };
      const named = await ask({ tool_choice: { type: 'tool', name: TIME_TOOL.name } });
      assert.deepEqual(named.content.calls,
                       [{ name: TIME_TOOL.name, args: TIME_TOOL.expectedArguments }]);
      assert.equal(named.stop, 'tool_use');
      const none = await ask({ tool_choice: { type: 'none' } });
      assert.deepEqual(none.content.calls, []);
      assert.equal(none.content.text, `You said: "${TOOL_PROMPT}"`);
      assert.equal(none.stop, 'end_turn');
      // Gemini has no switch for parallel calls: its answer is relayed as it is.
      if (upstream !== 'gemini') {
        const single = await ask({
          tool_choice: { type: 'auto', disable_parallel_tool_use: true },
        });
        assert.deepEqual(single.content.calls.map((c) => c.name), [WEATHER_TOOL.name]);
      }
    });

    test("Claude Code's captured request (12 tools, adaptive thinking, cache_control), streamed",
         async () => {
           const { body, headers } = cliRequest('claude-cli');
           const mark = await stack.journalMark();
           const message = await client().messages.stream({ ...body, model }, { headers })
               .finalMessage();
           assert.equal(message.stop_reason, 'tool_use');
           assert.ok(toolUses(message).length > 0, 'the mock calls the first of the tools');
           await matches(mark, message);
         });

    test('thinking, not streamed: a thinking block before the text', async () => {
      const mark = await stack.journalMark();
      const message = await client().messages.create({
        model,
        max_tokens: 2048,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        messages: [{ role: 'user', content: PROMPT }],
      });
      assert.deepEqual(message.content.map((b) => b.type), ['thinking', 'text']);
      assert.ok(message.content[0].thinking.startsWith(thinkingStart(PROMPT)),
                `thinking: ${message.content[0].thinking}`);
      assert.equal(typeof message.content[0].signature, 'string');
      assert.ok(message.content[0].signature.length > 0, 'the thinking block has no signature');
      assert.equal(textOf(message), ANSWER);
      await matches(mark, message);
    });

    test('thinking with a tool, streamed; thinking and signature replayed on the next turn',
         async () => {
           const request = {
             model,
             max_tokens: 2048,
             thinking: { type: 'adaptive' },
             tools: [anthropicTool(WEATHER_TOOL)],
             messages: [{ role: 'user', content: TOOL_PROMPT }],
           };
           let mark = await stack.journalMark();
           const stream = client().messages.stream(request);
           let thinkingDeltas = '';
           stream.on('thinking', (delta) => { thinkingDeltas += delta; });
           const first = await stream.finalMessage();
           assert.equal(first.stop_reason, 'tool_use');
           assert.equal(first.content.at(-1).type, 'tool_use');
           const [use] = toolUses(first);
           assert.deepEqual(use.input, WEATHER_TOOL.expectedArguments);
           const { upstream: said, entry: firstCall } = await matches(mark, first);
           // Adaptive thinking names no effort: a Chat upstream is then left to its default, and
           // the mock's Chat models reason only when given an effort (docs/mock-provider.md).
           const thinks = upstream !== 'chat';
           assert.equal(said.reasoning !== '', thinks, `upstream reasoning: '${said.reasoning}'`);
           if (thinks) {
             assert.equal(first.content[0].type, 'thinking');
             const [thinking] = first.content;
             assert.ok(thinking.thinking.startsWith(thinkingStart(TOOL_PROMPT)),
                       `thinking: ${thinking.thinking}`);
             assert.equal(thinkingDeltas, thinking.thinking);
           }
           // Every thinking block carries a signature, whoever thought: the SDK and Claude Code
           // refuse one without on the next turn.
           for (const block of first.content.filter((b) => b.type === 'thinking')) {
             assert.ok(block.signature.length > 0, 'a thinking block has no signature');
           }

           request.messages.push({ role: 'assistant', content: first.content }, {
             role: 'user',
             content: [{ type: 'tool_result', tool_use_id: use.id, content: TOOL_RESULT }],
           });
           mark = await stack.journalMark();
           const second = await client().messages.create(request);
           assert.equal(second.stop_reason, 'end_turn');
           assert.deepEqual(second.content.map((b) => b.type),
                            thinks ? ['thinking', 'text'] : ['text']);
           assert.equal(textOf(second), AFTER_TOOL_ANSWER);
           const { entry: secondCall } = await matches(mark, second);
           // What the upstream needs to continue its reasoning comes back in the thinking block's
           // signature (tagged with its origin when another provider made it). Gemini's sits on
           // the functionCall part, which a tool_use block cannot carry: it travels on the
           // thinking block before it and goes back on that part.
           if (upstream !== 'chat') {
             assertSignaturesReturned(upstream, firstCall, secondCall);
           }
         });

    for (const [what, extra] of [
      ['text', {}],
      ['thinking and parallel tool calls', {
        max_tokens: 2048,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        tools: [anthropicTool(WEATHER_TOOL), anthropicTool(TIME_TOOL)],
      }],
    ]) {
      test(`stream bytes (${what}): Anthropic framing`, async () => {
        const response = await client().messages.create({
          model,
          max_tokens: kMaxTokens,
          messages: [{ role: 'user', content: what === 'text' ? PROMPT : TOOL_PROMPT }],
          stream: true,
          ...extra,
        }).asResponse();
        assert.equal(response.status, 200);
        assert.match(response.headers.get('content-type'), /^text\/event-stream/);
        checkStreamFraming('anthropic', await response.text());
      });
    }

    if (upstream !== 'anthropic') {
      test('the conversation moves on to an Anthropic upstream: no thinking llmux signed or left ' +
           'unsigned reaches it', async () => {
        const request = {
          model,
          max_tokens: 2048,
          thinking: { type: 'enabled', budget_tokens: 1024 },
          tools: [anthropicTool(WEATHER_TOOL)],
          messages: [{ role: 'user', content: TOOL_PROMPT }],
        };
        const first = await client().messages.create(request);
        const [use] = toolUses(first);
        request.messages.push({ role: 'assistant', content: first.content }, {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: use.id, content: TOOL_RESULT }],
        });
        const mark = await stack.journalMark();
        const second = await client().messages.create({ ...request, model: MODELS.anthropic });
        assert.equal(textOf(second), AFTER_TOOL_ANSWER);
        const { entry } = await theUpstreamCall(stack, mark, { upstream: 'anthropic' });
        const sent = JSON.parse(entry.body);
        for (const message of sent.messages) {
          for (const block of typeof message.content === 'string' ? [] : message.content) {
            if (block.type !== 'thinking' && block.type !== 'redacted_thinking') continue;
            const opaque = block.signature ?? block.data ?? '';
            assert.ok(opaque !== '' && !opaque.startsWith('llmux:'),
                      `Anthropic would refuse this block: ${JSON.stringify(block)}`);
          }
        }
        // Without its thinking block the tool turn cannot go with thinking on (Anthropic: 400).
        const last = sent.messages.findLast((m) => m.role === 'assistant');
        if (sent.thinking && sent.thinking.type !== 'disabled') {
          assert.equal(last.content[0]?.type, 'thinking', `sent: ${entry.body}`);
        }
      });
    }

    test('rate limited upstream: RateLimitError 429 with retry-after', async () => {
      const error = await expectSdkError(
          client().messages.create({
            model: rateLimitedModel('anthropic', upstream, 'create'),
            max_tokens: kMaxTokens,
            messages: [{ role: 'user', content: PROMPT }],
          }),
          Anthropic.RateLimitError, 429);
      assert.equal(error.headers.get('retry-after'), String(RATE_LIMIT_RETRY_AFTER));
      assert.equal(error.error?.error?.type, 'rate_limit_error');
    });

    test('rate limited upstream, stream helper: RateLimitError 429', async () => {
      const error = await expectSdkError(
          () => client().messages.stream({
            model: rateLimitedModel('anthropic', upstream, 'stream'),
            max_tokens: kMaxTokens,
            messages: [{ role: 'user', content: PROMPT }],
          }).finalMessage(),
          Anthropic.RateLimitError, 429);
      assert.equal(error.headers.get('retry-after'), String(RATE_LIMIT_RETRY_AFTER));
    });

    test('context overflow: BadRequestError 400 "prompt is too long"', async () => {
      const error = await expectSdkError(
          client().messages.create({
            model: overflowModel(upstream),
            max_tokens: kMaxTokens,
            messages: [{ role: 'user', content: PROMPT }],
          }),
          Anthropic.BadRequestError, 400);
      assert.match(error.message, /prompt is too long/);
      assert.equal(error.error?.error?.type, 'invalid_request_error');
    });

    test('context overflow, stream helper: BadRequestError 400 "prompt is too long"', async () => {
      const error = await expectSdkError(
          () => client().messages.stream({
            model: overflowModel(upstream),
            max_tokens: kMaxTokens,
            messages: [{ role: 'user', content: PROMPT }],
          }).finalMessage(),
          Anthropic.BadRequestError, 400);
      assert.match(error.message, /prompt is too long/);
    });

    test('upstream drops the connection: InternalServerError 502', async () => {
      const call = client().messages.create({
        model: cutModel(upstream),
        max_tokens: kMaxTokens,
        messages: [{ role: 'user', content: PROMPT }],
      });
      await expectCutAnswer(upstream === 'anthropic', call, Anthropic.InternalServerError);
    });

    test('upstream drops the connection mid-stream: APIError from the stream helper', async () => {
      let text = '';
      const error = await expectSdkError(() => {
        const stream = client().messages.stream({
          model: cutModel(upstream),
          max_tokens: kMaxTokens,
          messages: [{ role: 'user', content: PROMPT }],
        });
        stream.on('text', (delta) => { text += delta; });
        return stream.finalMessage();
      }, Anthropic.APIError, undefined);
      assertCutText(text, ANSWER);
      assert.match(error.message, /\S/);
    });
  });
}

/** What the gateway answers itself, whatever the upstream. */
export function registerAnthropicGateway(stack) {
  describe('anthropic → gateway', () => {
    test('models.list: every model of every channel', async () => {
      const ids = [];
      for await (const entry of sdkClient(stack).models.list()) ids.push(entry.id);
      for (const model of Object.values(MODELS)) {
        assert.ok(ids.includes(model), `${model} missing: ${ids}`);
      }
    });

    test('x-api-key and anthropic-version 2023-06-01 (as Claude Code sends them)', async () => {
      const message = await xApiKeyClient(stack).messages.create({
        model: MODELS.anthropic,
        max_tokens: kMaxTokens,
        messages: [{ role: 'user', content: PROMPT }],
      });
      assert.equal(textOf(message), ANSWER);
      assert.equal(message.stop_reason, 'end_turn');
    });

    test('unknown model: NotFoundError 404', async () => {
      await expectSdkError(
          sdkClient(stack).messages.create({
            model: UNKNOWN_MODEL,
            max_tokens: kMaxTokens,
            messages: [{ role: 'user', content: PROMPT }],
          }),
          Anthropic.NotFoundError, 404);
    });

    test('unknown model, stream helper: NotFoundError 404', async () => {
      await expectSdkError(
          () => sdkClient(stack).messages.stream({
            model: UNKNOWN_MODEL,
            max_tokens: kMaxTokens,
            messages: [{ role: 'user', content: PROMPT }],
          }).finalMessage(),
          Anthropic.NotFoundError, 404);
    });

    test('wrong gateway key: AuthenticationError 401', async () => {
      await expectSdkError(
          sdkClient(stack, WRONG_KEY).messages.create({
            model: MODELS.anthropic,
            max_tokens: kMaxTokens,
            messages: [{ role: 'user', content: PROMPT }],
          }),
          Anthropic.AuthenticationError, 401);
    });
  });
}
