// @google/genai (official): models.generateContent / generateContentStream through llmux to a
// gemini channel.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { ApiError, FinishReason, GoogleGenAI } from '@google/genai';

import {
  AFTER_TOOL_ANSWER, ANSWER, PROMPT, TIME_TOOL, TOOL_PROMPT, WEATHER_TOOL, assertTokens,
  expectSdkError, thinkingStart,
} from '../lib/expect.mjs';
import { GATEWAY_KEY, MODELS, UNKNOWN_MODEL, WRONG_KEY } from '../lib/stack.mjs';

/** The SDK sends the key as `x-goog-api-key`. Without `apiVersion` it calls `/v1/...`; the Gemini
 *  CLI and most tools call `/v1beta/...`. */
function client(stack, { apiKey = GATEWAY_KEY, apiVersion } = {}) {
  const httpOptions = { baseUrl: stack.gatewayUrl, timeout: 20000 };
  if (apiVersion) httpOptions.apiVersion = apiVersion;
  return new GoogleGenAI({ apiKey, httpOptions });
}

function geminiTool(tool) {
  return { name: tool.name, description: tool.description, parametersJsonSchema: tool.schema };
}

function assertUsage(usage) {
  assert.ok(usage, 'usageMetadata is missing');
  assertTokens(usage.promptTokenCount, 'usageMetadata.promptTokenCount');
  assertTokens(usage.candidatesTokenCount, 'usageMetadata.candidatesTokenCount');
  assert.ok(usage.totalTokenCount >= usage.promptTokenCount + usage.candidatesTokenCount,
            `totalTokenCount ${usage.totalTokenCount} below prompt + candidates`);
}

/** Reads a whole stream: joined text, every function call, the last finishReason and usage. */
async function drain(stream) {
  const result = {
    text: '', thoughts: '', parts: [], calls: [], finishReason: undefined, usage: undefined,
    chunks: 0,
  };
  for await (const chunk of stream) {
    result.chunks += 1;
    // Parts read directly: `chunk.text` warns on chunks that carry function calls.
    for (const part of chunk.candidates?.[0]?.content?.parts ?? []) {
      result.parts.push(part);
      if (typeof part.text !== 'string') continue;
      if (part.thought) result.thoughts += part.text; else result.text += part.text;
    }
    result.calls.push(...(chunk.functionCalls ?? []));
    const reason = chunk.candidates?.[0]?.finishReason;
    if (reason) result.finishReason = reason;
    if (chunk.usageMetadata) result.usage = chunk.usageMetadata;
  }
  return result;
}

export function registerGemini(stack) {
  describe('gemini models', () => {
    test('generateContent, not streamed', async () => {
      const response = await client(stack).models.generateContent({
        model: MODELS.gemini,
        contents: PROMPT,
      });
      assert.equal(response.text, ANSWER);
      assert.equal(response.candidates?.length, 1);
      assert.equal(response.candidates[0].content.role, 'model');
      assert.equal(response.candidates[0].finishReason, FinishReason.STOP);
      assertUsage(response.usageMetadata);
    });

    for (const apiVersion of [undefined, 'v1beta']) {
      test(`generateContentStream, streamed (${apiVersion ?? 'default API version'})`, async () => {
        const stream = await client(stack, { apiVersion }).models.generateContentStream({
          model: MODELS.gemini,
          contents: [{ role: 'user', parts: [{ text: PROMPT }] }],
        });
        const result = await drain(stream);
        assert.ok(result.chunks > 1, `expected the answer in several chunks, got ${result.chunks}`);
        assert.equal(result.text, ANSWER);
        assert.equal(result.finishReason, FinishReason.STOP);
        assertUsage(result.usage);
      });
    }

    test('tool call round, not streamed', async () => {
      const ai = client(stack);
      const config = { tools: [{ functionDeclarations: [geminiTool(WEATHER_TOOL)] }] };
      const contents = [{ role: 'user', parts: [{ text: TOOL_PROMPT }] }];
      const first = await ai.models.generateContent({ model: MODELS.gemini, contents, config });
      const calls = first.functionCalls ?? [];
      assert.equal(calls.length, 1, 'expected exactly one functionCall');
      assert.equal(calls[0].name, WEATHER_TOOL.name);
      assert.deepEqual(calls[0].args, WEATHER_TOOL.expectedArguments);
      assert.equal(first.candidates[0].finishReason, FinishReason.STOP);
      assertUsage(first.usageMetadata);

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
      const second = await ai.models.generateContent({ model: MODELS.gemini, contents, config });
      assert.equal(second.functionCalls, undefined);
      assert.equal(second.text, AFTER_TOOL_ANSWER);
      assert.equal(second.candidates[0].finishReason, FinishReason.STOP);
    });

    test('parallel tool calls, streamed', async () => {
      const stream = await client(stack).models.generateContentStream({
        model: MODELS.gemini,
        contents: TOOL_PROMPT,
        config: {
          tools: [{ functionDeclarations: [geminiTool(WEATHER_TOOL), geminiTool(TIME_TOOL)] }],
        },
      });
      const result = await drain(stream);
      assert.deepEqual(result.calls.map((c) => c.name), [WEATHER_TOOL.name, TIME_TOOL.name]);
      assert.deepEqual(result.calls[0].args, WEATHER_TOOL.expectedArguments);
      assert.deepEqual(result.calls[1].args, TIME_TOOL.expectedArguments);
      assert.equal(result.finishReason, FinishReason.STOP);
      assertUsage(result.usage);
    });

    test('thoughts with a tool, streamed; thoughtSignature replayed on the next turn', async () => {
      const ai = client(stack);
      const config = {
        thinkingConfig: { includeThoughts: true },
        tools: [{ functionDeclarations: [geminiTool(WEATHER_TOOL)] }],
      };
      const contents = [{ role: 'user', parts: [{ text: TOOL_PROMPT }] }];
      const first = await drain(
          await ai.models.generateContentStream({ model: MODELS.gemini, contents, config }));
      assert.ok(first.thoughts.startsWith(thinkingStart(TOOL_PROMPT)), `thoughts: ${first.thoughts}`);
      assert.equal(first.calls.length, 1);
      assert.deepEqual(first.calls[0].args, WEATHER_TOOL.expectedArguments);
      const callPart = first.parts.find((part) => part.functionCall);
      assert.ok(callPart.thoughtSignature, 'the functionCall part has no thoughtSignature');
      assert.equal(first.finishReason, FinishReason.STOP);
      assertUsage(first.usage);
      assertTokens(first.usage.thoughtsTokenCount, 'usageMetadata.thoughtsTokenCount');

      // As the Gemini CLI does: the call goes back with its signature, thoughts are not resent.
      contents.push({ role: 'model', parts: [callPart] }, {
        role: 'user',
        parts: [{ functionResponse: { name: WEATHER_TOOL.name, response: { temperature: 21 } } }],
      });
      const second = await drain(
          await ai.models.generateContentStream({ model: MODELS.gemini, contents, config }));
      assert.equal(second.calls.length, 0);
      assert.equal(second.text, AFTER_TOOL_ANSWER);
      assert.equal(second.finishReason, FinishReason.STOP);
    });

    test('unknown model: ApiError 404', async () => {
      await expectSdkError(
          client(stack).models.generateContent({ model: UNKNOWN_MODEL, contents: PROMPT }),
          ApiError, 404);
    });

    test('unknown model, streamed: ApiError 404', async () => {
      await expectSdkError(
          async () => drain(await client(stack).models.generateContentStream({
            model: UNKNOWN_MODEL,
            contents: PROMPT,
          })),
          ApiError, 404);
    });

    test('wrong gateway key: ApiError 401', async () => {
      await expectSdkError(
          client(stack, { apiKey: WRONG_KEY }).models.generateContent({
            model: MODELS.gemini,
            contents: PROMPT,
          }),
          ApiError, 401);
    });
  });
}
