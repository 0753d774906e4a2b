// @google/genai (official): models.generateContent / generateContentStream through llmux to a
// channel of each upstream protocol (gemini: passthrough; the others: translated).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { ApiError, FinishReason, GoogleGenAI } from '@google/genai';

import {
  AFTER_TOOL_ANSWER, ANSWER, CONVERSATION, MOOD_TOOL, PROMPT, TIME_TOOL, TOOL_PROMPT,
  UNICODE_ANSWER, UNICODE_PROMPT, WEATHER_TOOL, assertCutText, cliRequest, expectCutAnswer,
  expectSdkError, pairName, thinkingStart,
} from '../lib/expect.mjs';
import {
  GATEWAY_KEY, MODELS, RATE_LIMIT_RETRY_AFTER, UNKNOWN_MODEL, WRONG_KEY, cutModel, overflowModel,
  rateLimitedModel,
} from '../lib/stack.mjs';
import {
  assertConversationReached, assertMatchesUpstream, assertSignaturesReturned,
} from '../lib/upstream.mjs';
import { checkStreamFraming } from '../lib/wire.mjs';

/** The SDK sends the key as `x-goog-api-key`. Without `apiVersion` it calls `/v1/...`; the Gemini
 *  CLI and most tools call `/v1beta/...`. */
function sdkClient(stack, { apiKey = GATEWAY_KEY, apiVersion } = {}) {
  const httpOptions = { baseUrl: stack.gatewayUrl, timeout: 20000 };
  if (apiVersion) httpOptions.apiVersion = apiVersion;
  return new GoogleGenAI({ apiKey, httpOptions });
}

function geminiTool(tool) {
  return { name: tool.name, description: tool.description, parametersJsonSchema: tool.schema };
}

/** What a list of parts says, in the shape upstreamContent() gives. */
function partsContent(parts) {
  const content = { text: '', reasoning: '', calls: [] };
  for (const part of parts) {
    if (typeof part.text === 'string') {
      if (part.thought) content.reasoning += part.text; else content.text += part.text;
    }
    if (part.functionCall) {
      content.calls.push({ name: part.functionCall.name, args: part.functionCall.args ?? {} });
    }
  }
  return content;
}

/** Reads a whole stream: every part, every function call, the last finishReason and usage. */
async function drain(stream) {
  const result = { parts: [], calls: [], finishReason: undefined, usage: undefined, chunks: 0 };
  for await (const chunk of stream) {
    result.chunks += 1;
    // Parts read directly: `chunk.text` warns on chunks that carry function calls.
    result.parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
    result.calls.push(...(chunk.functionCalls ?? []));
    const reason = chunk.candidates?.[0]?.finishReason;
    if (reason) result.finishReason = reason;
    if (chunk.usageMetadata) result.usage = chunk.usageMetadata;
  }
  result.content = partsContent(result.parts);
  return result;
}

export function registerGemini(stack, upstream) {
  const model = MODELS[upstream];
  const matches = (mark, usage, content) =>
    assertMatchesUpstream(stack, mark, 'gemini', { usage, content, upstream });
  const responseParts = (response) => response.candidates?.[0]?.content?.parts ?? [];

  describe(pairName('gemini', upstream), () => {
    test('generateContent, not streamed', async () => {
      const mark = await stack.journalMark();
      const response = await sdkClient(stack).models.generateContent({ model, contents: PROMPT });
      assert.equal(response.text, ANSWER);
      assert.equal(response.candidates?.length, 1);
      assert.equal(response.candidates[0].content.role, 'model');
      assert.equal(response.candidates[0].finishReason, FinishReason.STOP);
      await matches(mark, response.usageMetadata, partsContent(responseParts(response)));
    });

    for (const apiVersion of [undefined, 'v1beta']) {
      test(`generateContentStream (${apiVersion ?? 'default API version'})`, async () => {
        const mark = await stack.journalMark();
        const ai = sdkClient(stack, { apiVersion });
        const result = await drain(await ai.models.generateContentStream({
          model,
          contents: [{ role: 'user', parts: [{ text: PROMPT }] }],
        }));
        assert.ok(result.chunks > 1, `expected the answer in several chunks, got ${result.chunks}`);
        assert.equal(result.content.text, ANSWER);
        assert.equal(result.finishReason, FinishReason.STOP);
        await matches(mark, result.usage, result.content);
      });
    }

    test('systemInstruction and history reach the upstream in its own shape', async () => {
      const mark = await stack.journalMark();
      const response = await sdkClient(stack).models.generateContent({
        model,
        contents: CONVERSATION.turns.map(([role, text]) => ({
          role: role === 'assistant' ? 'model' : 'user',
          parts: [{ text }],
        })),
        config: { systemInstruction: CONVERSATION.system },
      });
      assert.equal(response.text, ANSWER);
      await assertConversationReached(stack, mark, upstream, CONVERSATION);
    });

    test('cachedContent: cached tokens as the upstream counted them, not streamed and streamed',
         async () => {
           const request = {
             model,
             contents: PROMPT,
             config: { cachedContent: 'cachedContents/sdk-conformance' },
           };
           for (const stream of [false, true]) {
             const mark = await stack.journalMark();
             let usage;
             let content;
             if (stream) {
               ({ usage, content } = await drain(
                   await sdkClient(stack).models.generateContentStream(request)));
             } else {
               const response = await sdkClient(stack).models.generateContent(request);
               usage = response.usageMetadata;
               content = partsContent(responseParts(response));
             }
             assert.equal(content.text, ANSWER);
             const { canonical } = await matches(mark, usage, content);
             if (upstream === 'gemini') {
               assert.ok(canonical.cacheRead > 0,
                         `the upstream reported no cache read: ${JSON.stringify(canonical)}`);
             }
           }
         });

    test('tool call round, not streamed', async () => {
      const ai = sdkClient(stack);
      const config = { tools: [{ functionDeclarations: [geminiTool(WEATHER_TOOL)] }] };
      const contents = [{ role: 'user', parts: [{ text: TOOL_PROMPT }] }];
      let mark = await stack.journalMark();
      const first = await ai.models.generateContent({ model, contents, config });
      const calls = first.functionCalls ?? [];
      assert.equal(calls.length, 1, 'expected exactly one functionCall');
      assert.equal(calls[0].name, WEATHER_TOOL.name);
      assert.deepEqual(calls[0].args, WEATHER_TOOL.expectedArguments);
      assert.equal(first.candidates[0].finishReason, FinishReason.STOP);
      await matches(mark, first.usageMetadata, partsContent(responseParts(first)));

      contents.push(first.candidates[0].content, {
        role: 'user',
        parts: [{
          functionResponse: {
            id: calls[0].id,
            name: calls[0].name,
            response: { temperature: 21, unit: 'celsius' },
          },
        }],
      });
      mark = await stack.journalMark();
      const second = await ai.models.generateContent({ model, contents, config });
      assert.equal(second.functionCalls, undefined);
      assert.equal(second.text, AFTER_TOOL_ANSWER);
      assert.equal(second.candidates[0].finishReason, FinishReason.STOP);
      await matches(mark, second.usageMetadata, partsContent(responseParts(second)));
    });

    test('parallel tool calls, streamed; both results sent back streamed', async () => {
      const ai = sdkClient(stack, { apiVersion: 'v1beta' });
      const config = {
        tools: [{ functionDeclarations: [geminiTool(WEATHER_TOOL), geminiTool(TIME_TOOL)] }],
      };
      const contents = [{ role: 'user', parts: [{ text: TOOL_PROMPT }] }];
      let mark = await stack.journalMark();
      const first = await drain(await ai.models.generateContentStream({ model, contents, config }));
      assert.deepEqual(first.calls.map((c) => c.name), [WEATHER_TOOL.name, TIME_TOOL.name]);
      assert.deepEqual(first.calls[0].args, WEATHER_TOOL.expectedArguments);
      assert.deepEqual(first.calls[1].args, TIME_TOOL.expectedArguments);
      assert.equal(first.finishReason, FinishReason.STOP);
      await matches(mark, first.usage, first.content);

      // As the Gemini CLI does: the model turn goes back whole, then one functionResponse per
      // call, in order, paired by name.
      contents.push({ role: 'model', parts: first.parts }, {
        role: 'user',
        parts: first.calls.map((c) => ({
          functionResponse: { id: c.id, name: c.name, response: { output: 'done' } },
        })),
      });
      mark = await stack.journalMark();
      const second = await drain(
          await ai.models.generateContentStream({ model, contents, config }));
      assert.equal(second.calls.length, 0);
      assert.equal(second.content.text, AFTER_TOOL_ANSWER);
      assert.equal(second.finishReason, FinishReason.STOP);
      await matches(mark, second.usage, second.content);
    });

    test('unicode and escapes in text and tool arguments, not streamed and streamed', async () => {
      for (const stream of [false, true]) {
        const ask = async (config) => {
          const mark = await stack.journalMark();
          const request = { model, contents: UNICODE_PROMPT, config };
          if (!stream) {
            const response = await sdkClient(stack).models.generateContent(request);
            const content = partsContent(responseParts(response));
            await matches(mark, response.usageMetadata, content);
            return content;
          }
          const result = await drain(await sdkClient(stack).models.generateContentStream(request));
          await matches(mark, result.usage, result.content);
          return result.content;
        };
        assert.equal((await ask({})).text, UNICODE_ANSWER, `stream: ${stream}`);
        const { calls } = await ask({ tools: [{ functionDeclarations: [geminiTool(MOOD_TOOL)] }] });
        assert.deepEqual(calls, [{ name: MOOD_TOOL.name, args: MOOD_TOOL.expectedArguments }],
                         `stream: ${stream}`);
      }
    });

    test('functionCallingConfig: ANY with one allowed name, NONE', async () => {
      const tools = [{ functionDeclarations: [geminiTool(WEATHER_TOOL), geminiTool(TIME_TOOL)] }];
      const ask = async (functionCallingConfig) => {
        const mark = await stack.journalMark();
        const response = await sdkClient(stack).models.generateContent({
          model, contents: TOOL_PROMPT, config: { tools, toolConfig: { functionCallingConfig } },
        });
        const content = partsContent(responseParts(response));
        await matches(mark, response.usageMetadata, content);
        return content;
      };
      const named = await ask({ mode: 'ANY', allowedFunctionNames: [TIME_TOOL.name] });
      assert.deepEqual(named.calls, [{ name: TIME_TOOL.name, args: TIME_TOOL.expectedArguments }]);
      const none = await ask({ mode: 'NONE' });
      assert.deepEqual(none.calls, []);
      assert.equal(none.text, `You said: "${TOOL_PROMPT}"`);
    });

    test("Gemini CLI's captured request (8 functionDeclarations, thoughts), streamed", async () => {
      const { body, headers } = cliRequest('gemini-cli');
      const { contents, systemInstruction, tools, generationConfig } = body;
      const mark = await stack.journalMark();
      const result = await drain(await sdkClient(stack, { apiVersion: 'v1beta' })
          .models.generateContentStream({
            model,
            contents,
            config: { ...generationConfig, systemInstruction, tools, httpOptions: { headers } },
          }));
      assert.equal(result.finishReason, FinishReason.STOP);
      assert.ok(result.calls.length > 0, 'the mock calls the first of the tools');
      await matches(mark, result.usage, result.content);
    });

    test('thoughts, not streamed: thought parts and thoughtsTokenCount', async () => {
      const mark = await stack.journalMark();
      const response = await sdkClient(stack).models.generateContent({
        model,
        contents: PROMPT,
        // A budget, so that every upstream is asked to think (see the streamed test below).
        config: { thinkingConfig: { includeThoughts: true, thinkingBudget: 1024 } },
      });
      const content = partsContent(responseParts(response));
      assert.ok(content.reasoning.startsWith(thinkingStart(PROMPT)),
                `thoughts: ${content.reasoning}`);
      assert.equal(content.text, ANSWER);
      assert.equal(response.candidates[0].finishReason, FinishReason.STOP);
      await matches(mark, response.usageMetadata, content);
    });

    test('thoughts with a tool, streamed; thoughtSignature replayed on the next turn', async () => {
      const ai = sdkClient(stack, { apiVersion: 'v1beta' });
      const config = {
        thinkingConfig: { includeThoughts: true },
        tools: [{ functionDeclarations: [geminiTool(WEATHER_TOOL)] }],
      };
      const contents = [{ role: 'user', parts: [{ text: TOOL_PROMPT }] }];
      let mark = await stack.journalMark();
      const first = await drain(await ai.models.generateContentStream({ model, contents, config }));
      const { canonical, upstream: said, entry: firstCall } =
          await matches(mark, first.usage, first.content);
      // includeThoughts names no budget or level: a Chat upstream is then left to its default,
      // and the mock's Chat models reason only when given an effort (docs/mock-provider.md).
      const thinks = upstream !== 'chat';
      assert.equal(said.reasoning !== '', thinks, `upstream reasoning: '${said.reasoning}'`);
      if (thinks) {
        assert.ok(first.content.reasoning.startsWith(thinkingStart(TOOL_PROMPT)),
                  `thoughts: ${first.content.reasoning}`);
        assert.equal(first.usage.thoughtsTokenCount, canonical.reasoning || undefined);
      }
      assert.equal(first.calls.length, 1);
      assert.deepEqual(first.calls[0].args, WEATHER_TOOL.expectedArguments);
      const callPart = first.parts.find((part) => part.functionCall);
      if (upstream === 'gemini') {
        assert.ok(callPart.thoughtSignature, 'the functionCall part has no thoughtSignature');
      }
      assert.equal(first.finishReason, FinishReason.STOP);

      // As the Gemini CLI does: the call goes back with its signature, thoughts are not resent.
      contents.push({ role: 'model', parts: [callPart] }, {
        role: 'user',
        parts: [{ functionResponse: { name: WEATHER_TOOL.name, response: { temperature: 21 } } }],
      });
      mark = await stack.journalMark();
      const second = await drain(
          await ai.models.generateContentStream({ model, contents, config }));
      assert.equal(second.calls.length, 0);
      assert.equal(second.content.text, AFTER_TOOL_ANSWER);
      assert.equal(second.finishReason, FinishReason.STOP);
      const { entry: secondCall } = await matches(mark, second.usage, second.content);
      // The functionCall part goes back with its signature.
      if (upstream === 'gemini') assertSignaturesReturned(upstream, firstCall, secondCall);
    });

    for (const [what, extra] of [
      ['text', {}],
      ['thoughts and parallel tool calls', {
        generationConfig: { thinkingConfig: { includeThoughts: true, thinkingBudget: 1024 } },
        tools: [{ functionDeclarations: [geminiTool(WEATHER_TOOL), geminiTool(TIME_TOOL)] }],
      }],
    ]) {
      // The SDK hides the bytes: the same request, as the SDK sends it, by hand.
      test(`stream bytes (${what}): Gemini framing`, async () => {
        const response = await fetch(
            `${stack.gatewayUrl}/v1beta/models/${model}:streamGenerateContent?alt=sse`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'x-goog-api-key': GATEWAY_KEY },
              body: JSON.stringify({
                contents: [{
                  role: 'user',
                  parts: [{ text: what === 'text' ? PROMPT : TOOL_PROMPT }],
                }],
                ...extra,
              }),
            });
        assert.equal(response.status, 200);
        assert.match(response.headers.get('content-type'), /^text\/event-stream/);
        checkStreamFraming('gemini', await response.text());
      });
    }

    // What clients without alt=sse get (llm-gemini, plain REST): one JSON array, sent element by
    // element. The SDK always asks for SSE, so by hand.
    test('streamGenerateContent without alt=sse: one JSON array of chunks', async () => {
      const mark = await stack.journalMark();
      const url = `${stack.gatewayUrl}/v1beta/models/${model}:streamGenerateContent`;
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': GATEWAY_KEY },
        body: JSON.stringify({
          contents: [{ role: 'user', parts: [{ text: TOOL_PROMPT }] }],
          tools: [{ functionDeclarations: [geminiTool(WEATHER_TOOL), geminiTool(TIME_TOOL)] }],
        }),
      });
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type'), /^application\/json/);
      const chunks = JSON.parse(await response.text());
      assert.ok(Array.isArray(chunks) && chunks.length > 0, 'the body is a JSON array of chunks');
      const parts = chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []);
      const content = partsContent(parts);
      assert.deepEqual(content.calls.map((c) => c.name), [WEATHER_TOOL.name, TIME_TOOL.name]);
      assert.equal(chunks.filter((c) => c.candidates?.[0]?.finishReason).length, 1);
      assert.equal(chunks.at(-1).candidates?.[0]?.finishReason, FinishReason.STOP);
      await matches(mark, chunks.at(-1).usageMetadata, content);
    });

    test('rate limited upstream: ApiError 429', async () => {
      const error = await expectSdkError(
          sdkClient(stack).models.generateContent({
            model: rateLimitedModel('gemini', upstream, 'create'),
            contents: PROMPT,
          }),
          ApiError, 429);
      assert.match(error.message, /RESOURCE_EXHAUSTED/);
      // Google gives the retry delay in the body only (RetryInfo), and so must the gateway.
      assert.match(error.message, new RegExp(`"retryDelay":\\s*"${RATE_LIMIT_RETRY_AFTER}s"`));
    });

    test('rate limited upstream, streamed: ApiError 429', async () => {
      const error = await expectSdkError(
          async () => drain(await sdkClient(stack).models.generateContentStream({
            model: rateLimitedModel('gemini', upstream, 'stream'),
            contents: PROMPT,
          })),
          ApiError, 429);
      assert.match(error.message, /RESOURCE_EXHAUSTED/);
    });

    test('context overflow: ApiError 400 INVALID_ARGUMENT', async () => {
      const error = await expectSdkError(
          sdkClient(stack).models.generateContent({
            model: overflowModel(upstream),
            contents: PROMPT,
          }),
          ApiError, 400);
      assert.match(error.message, /INVALID_ARGUMENT/);
    });

    test('context overflow, streamed: ApiError 400 INVALID_ARGUMENT', async () => {
      const error = await expectSdkError(
          async () => drain(await sdkClient(stack).models.generateContentStream({
            model: overflowModel(upstream),
            contents: PROMPT,
          })),
          ApiError, 400);
      assert.match(error.message, /INVALID_ARGUMENT/);
    });

    test('upstream drops the connection: ApiError 502', async () => {
      await expectCutAnswer(
          upstream === 'gemini',
          sdkClient(stack).models.generateContent({ model: cutModel(upstream), contents: PROMPT }),
          ApiError);
    });

    test('upstream drops the connection mid-stream: ApiError from the stream', async () => {
      let text = '';
      const error = await expectSdkError(async () => {
        const stream = await sdkClient(stack).models.generateContentStream({
          model: cutModel(upstream),
          contents: PROMPT,
        });
        for await (const chunk of stream) {
          for (const part of chunk.candidates?.[0]?.content?.parts ?? []) text += part.text ?? '';
        }
        // An error chunk with its code is how the SDK learns of a failure after the head.
      }, ApiError, 502);
      assertCutText(text, ANSWER);
      assert.match(error.message, /\S/);
    });
  });
}

/** What the gateway answers itself, whatever the upstream. */
export function registerGeminiGateway(stack) {
  describe('gemini → gateway', () => {
    test('models.list: every model of every channel', async () => {
      const names = [];
      const pager = await sdkClient(stack, { apiVersion: 'v1beta' }).models.list();
      for await (const entry of pager) names.push(entry.name);
      for (const model of Object.values(MODELS)) {
        assert.ok(names.includes(`models/${model}`), `models/${model} missing: ${names}`);
      }
    });

    test('unknown model: ApiError 404', async () => {
      await expectSdkError(
          sdkClient(stack).models.generateContent({ model: UNKNOWN_MODEL, contents: PROMPT }),
          ApiError, 404);
    });

    test('unknown model, streamed: ApiError 404', async () => {
      await expectSdkError(
          async () => drain(await sdkClient(stack).models.generateContentStream({
            model: UNKNOWN_MODEL,
            contents: PROMPT,
          })),
          ApiError, 404);
    });

    test('wrong gateway key: ApiError 401', async () => {
      await expectSdkError(
          sdkClient(stack, { apiKey: WRONG_KEY }).models.generateContent({
            model: MODELS.gemini,
            contents: PROMPT,
          }),
          ApiError, 401);
    });
  });
}
