// What the upstream answered, read from the mock provider's journal (the exact body it sent): its
// text, reasoning and tool calls, and its usage normalised to the canonical record of
// REFERENCE.md §8 and written in each client protocol's convention, to compare with what the SDK
// exposes.
import assert from 'node:assert/strict';

/** The protocol of the upstream route a journal entry was sent to. */
export function entryProtocol(entry) {
  const { path } = entry;
  if (path.endsWith('/chat/completions')) return 'chat';
  if (path.endsWith('/responses')) return 'responses';
  if (path.endsWith('/messages')) return 'anthropic';
  if (/:(stream)?generateContent$/i.test(path)) return 'gemini';
  return undefined;
}

/** The `data:` payloads of an SSE body, parsed, with their `event:` names. */
export function sseEvents(body) {
  const events = [];
  for (const frame of body.split(/\r?\n\r?\n/)) {
    let event;
    const data = [];
    for (const line of frame.split(/\r?\n/)) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (data.length === 0) continue;
    const text = data.join('\n');
    if (text === '[DONE]') continue;
    events.push({ event, data: JSON.parse(text) });
  }
  return events;
}

/** The JSON objects of a body: one for a plain answer, every event's for a stream (SSE or
 *  Gemini's JSON array). */
function bodyObjects(body) {
  const trimmed = body.trimStart();
  if (trimmed.startsWith('data:') || trimmed.startsWith('event:')) {
    return sseEvents(body).map((e) => e.data);
  }
  const parsed = JSON.parse(body);
  return Array.isArray(parsed) ? parsed : [parsed];
}

/**
 * What an upstream answer says, whatever its protocol and streamed or not: `text` (answer text
 * joined), `reasoning` (reasoning / thinking / thought text joined), `calls` ([{name, args}], args
 * parsed) in order.
 */
export function upstreamContent(protocol, body) {
  const objects = bodyObjects(body);
  const content = { text: '', reasoning: '', calls: [] };
  switch (protocol) {
    case 'chat': {
      const calls = [];
      for (const o of objects) {
        for (const choice of o.choices ?? []) {
          const part = choice.message ?? choice.delta ?? {};
          if (typeof part.content === 'string') content.text += part.content;
          if (typeof part.reasoning_content === 'string') {
            content.reasoning += part.reasoning_content;
          }
          (part.tool_calls ?? []).forEach((call, i) => {
            const index = call.index ?? i;
            calls[index] ??= { name: '', args: '' };
            if (call.function?.name) calls[index].name = call.function.name;
            calls[index].args += call.function?.arguments ?? '';
          });
        }
      }
      content.calls = calls.map((c) => ({ name: c.name, args: JSON.parse(c.args) }));
      break;
    }
    case 'responses': {
      const items = objects.length === 1 && objects[0].object === 'response'
        ? objects[0].output
        : objects.filter((o) => o.type === 'response.output_item.done').map((o) => o.item);
      for (const item of items) {
        if (item.type === 'message') {
          for (const part of item.content) {
            if (part.type === 'output_text') content.text += part.text;
          }
        }
        if (item.type === 'reasoning') {
          content.reasoning += (item.summary ?? []).map((part) => part.text).join('');
        }
        if (item.type === 'function_call') {
          content.calls.push({ name: item.name, args: JSON.parse(item.arguments) });
        }
      }
      break;
    }
    case 'anthropic': {
      const blocks = [];
      for (const o of objects) {
        if (o.type === 'message') blocks.push(...o.content.map((b) => ({ ...b, json: null })));
        if (o.type === 'content_block_start') blocks[o.index] = { ...o.content_block, json: '' };
        if (o.type === 'content_block_delta') {
          const block = blocks[o.index];
          if (o.delta.type === 'text_delta') block.text += o.delta.text;
          if (o.delta.type === 'thinking_delta') block.thinking += o.delta.thinking;
          if (o.delta.type === 'input_json_delta') block.json += o.delta.partial_json;
        }
      }
      for (const block of blocks) {
        if (block.type === 'text') content.text += block.text;
        if (block.type === 'thinking') content.reasoning += block.thinking;
        if (block.type === 'tool_use') {
          const args = block.json === null ? block.input : JSON.parse(block.json || '{}');
          content.calls.push({ name: block.name, args });
        }
      }
      break;
    }
    case 'gemini': {
      for (const o of objects) {
        for (const part of o.candidates?.[0]?.content?.parts ?? []) {
          if (typeof part.text === 'string') {
            if (part.thought) content.reasoning += part.text; else content.text += part.text;
          }
          if (part.functionCall) {
            const { name, args = {} } = part.functionCall;
            content.calls.push({ name, args });
          }
        }
      }
      break;
    }
    default:
      throw new Error(`unknown protocol ${protocol}`);
  }
  return content;
}

/**
 * The opaque reasoning payloads an upstream answer carries, which only that provider can read
 * and which must come back unchanged on the next turn for the reasoning to continue: Anthropic
 * thinking signatures and redacted-thinking data, Responses `encrypted_content`, Gemini
 * `thoughtSignature`s.
 */
export function answerSignatures(protocol, body) {
  const objects = bodyObjects(body);
  const found = [];
  switch (protocol) {
    case 'anthropic': {
      const blocks = [];
      for (const o of objects) {
        if (o.type === 'message') blocks.push(...o.content);
        if (o.type === 'content_block_start') blocks[o.index] = { ...o.content_block };
        if (o.type === 'content_block_delta' && o.delta.type === 'signature_delta') {
          blocks[o.index].signature += o.delta.signature;
        }
      }
      for (const b of blocks) {
        if (b.type === 'thinking' && b.signature) found.push(b.signature);
        if (b.type === 'redacted_thinking') found.push(b.data);
      }
      break;
    }
    case 'responses': {
      const items = objects.length === 1 && objects[0].object === 'response'
        ? objects[0].output
        : objects.filter((o) => o.type === 'response.output_item.done').map((o) => o.item);
      for (const item of items) {
        if (item.type === 'reasoning' && item.encrypted_content) found.push(item.encrypted_content);
      }
      break;
    }
    case 'gemini':
      for (const o of objects) {
        for (const part of o.candidates?.[0]?.content?.parts ?? []) {
          if (part.thoughtSignature) found.push(part.thoughtSignature);
        }
      }
      break;
    default:
      break;  // Chat has none
  }
  return found;
}

/** The opaque reasoning payloads (see answerSignatures) in the history of an upstream request. */
export function requestSignatures(protocol, body) {
  const request = JSON.parse(body);
  const found = [];
  switch (protocol) {
    case 'anthropic':
      for (const m of request.messages) {
        for (const b of typeof m.content === 'string' ? [] : m.content) {
          if (b.type === 'thinking' && b.signature) found.push(b.signature);
          if (b.type === 'redacted_thinking') found.push(b.data);
        }
      }
      break;
    case 'responses':
      for (const item of typeof request.input === 'string' ? [] : request.input) {
        if (item.type === 'reasoning' && item.encrypted_content) found.push(item.encrypted_content);
      }
      break;
    case 'gemini':
      for (const c of request.contents) {
        for (const part of c.parts) if (part.thoughtSignature) found.push(part.thoughtSignature);
      }
      break;
    default:
      break;
  }
  return found;
}

/** Text of a content given as a string or as parts/blocks with `text`. */
function textOfContent(content) {
  if (typeof content === 'string') return content;
  return (content ?? [])
      .filter((part) => typeof part.text === 'string' && !part.thought)
      .map((part) => part.text)
      .join('');
}

/**
 * The conversation an upstream request carries, whatever its protocol: `system` (the system
 * prompt's text) and `turns` ([role, text] with roles 'user' and 'assistant'; turns with no text,
 * such as tool results, are left out).
 */
export function upstreamConversation(protocol, body) {
  const request = JSON.parse(body);
  const system = [];
  const turns = [];
  const add = (role, text) => { if (text !== '') turns.push([role, text]); };
  switch (protocol) {
    case 'chat':
      for (const m of request.messages) {
        if (m.role === 'system' || m.role === 'developer') system.push(textOfContent(m.content));
        else if (m.role === 'user' || m.role === 'assistant') add(m.role, textOfContent(m.content));
      }
      break;
    case 'responses':
      if (request.instructions) system.push(request.instructions);
      for (const item of typeof request.input === 'string'
        ? [{ role: 'user', content: request.input }] : request.input) {
        if (item.type && item.type !== 'message') continue;
        const text = textOfContent(item.content);
        if (item.role === 'system' || item.role === 'developer') system.push(text);
        else add(item.role, text);
      }
      break;
    case 'anthropic':
      if (request.system) system.push(textOfContent(request.system));
      for (const m of request.messages) add(m.role, textOfContent(m.content));
      break;
    case 'gemini': {
      const instruction = request.systemInstruction ?? request.system_instruction;
      if (instruction) system.push(textOfContent(instruction.parts));
      for (const c of request.contents) {
        add(c.role === 'model' ? 'assistant' : 'user', textOfContent(c.parts));
      }
      break;
    }
    default:
      throw new Error(`unknown protocol ${protocol}`);
  }
  return { system: system.join('\n'), turns };
}

const count = (value) => (Number.isInteger(value) ? value : 0);

/**
 * The canonical usage of an upstream answer (REFERENCE.md §8): `input` includes cache reads and
 * writes, `output` includes reasoning; the upstream's own total is not used. Stream bodies give
 * their final usage: Chat's usage chunk, Responses' terminal response, Anthropic's message_start
 * merged with the cumulative message_delta (the last value of each field), Gemini's last
 * usageMetadata snapshot.
 */
export function canonicalUsage(protocol, body) {
  const objects = bodyObjects(body);
  switch (protocol) {
    case 'chat': {
      const usage = objects.filter((o) => o.usage).at(-1)?.usage;
      assert.ok(usage, 'the Chat upstream reported no usage');
      return {
        input: count(usage.prompt_tokens),
        cacheRead: count(usage.prompt_tokens_details?.cached_tokens),
        cacheWrite: count(usage.prompt_tokens_details?.cache_write_tokens),
        output: count(usage.completion_tokens),
        reasoning: count(usage.completion_tokens_details?.reasoning_tokens),
      };
    }
    case 'responses': {
      const response = objects.length === 1 && objects[0].object === 'response'
        ? objects[0]
        : objects.filter((o) => /^response\.(completed|incomplete|failed)$/.test(o.type))
            .at(-1)?.response;
      const usage = response?.usage;
      assert.ok(usage, 'the Responses upstream reported no usage');
      return {
        input: count(usage.input_tokens),
        cacheRead: count(usage.input_tokens_details?.cached_tokens),
        cacheWrite: count(usage.input_tokens_details?.cache_write_tokens),
        output: count(usage.output_tokens),
        reasoning: count(usage.output_tokens_details?.reasoning_tokens),
      };
    }
    case 'anthropic': {
      const usage = {};
      const merge = (from) => {
        for (const [key, value] of Object.entries(from ?? {})) {
          if (value !== null && value !== undefined) usage[key] = value;
        }
      };
      for (const o of objects) {
        if (o.type === 'message') merge(o.usage);
        if (o.type === 'message_start') merge(o.message?.usage);
        if (o.type === 'message_delta') merge(o.usage);
      }
      assert.ok(Number.isInteger(usage.output_tokens), 'the Anthropic upstream reported no usage');
      const cacheRead = count(usage.cache_read_input_tokens);
      const cacheWrite = count(usage.cache_creation_input_tokens);
      return {
        input: count(usage.input_tokens) + cacheRead + cacheWrite,
        cacheRead,
        cacheWrite,
        output: count(usage.output_tokens),
        reasoning: count(usage.output_tokens_details?.thinking_tokens),
      };
    }
    case 'gemini': {
      const usage = objects.filter((o) => o.usageMetadata).at(-1)?.usageMetadata;
      assert.ok(usage, 'the Gemini upstream reported no usageMetadata');
      const reasoning = count(usage.thoughtsTokenCount);
      return {
        input: count(usage.promptTokenCount) + count(usage.toolUsePromptTokenCount),
        cacheRead: count(usage.cachedContentTokenCount),
        cacheWrite: 0,
        output: count(usage.candidatesTokenCount) + reasoning,
        reasoning,
      };
    }
    default:
      throw new Error(`unknown protocol ${protocol}`);
  }
}

/**
 * The fields of the SDK's usage object that the canonical record determines, in the client's
 * convention, next to what they should be. Detail counts a protocol leaves out when zero (cached
 * tokens, reasoning tokens) compare as 0 when absent.
 */
function clientView(client, usage, canonical) {
  const { input, cacheRead, cacheWrite, output, reasoning } = canonical;
  switch (client) {
    case 'chat':
      return {
        got: {
          prompt_tokens: usage.prompt_tokens,
          completion_tokens: usage.completion_tokens,
          total_tokens: usage.total_tokens,
          'prompt_tokens_details.cached_tokens': count(usage.prompt_tokens_details?.cached_tokens),
          'prompt_tokens_details.cache_write_tokens':
              count(usage.prompt_tokens_details?.cache_write_tokens),
          'completion_tokens_details.reasoning_tokens':
              count(usage.completion_tokens_details?.reasoning_tokens),
        },
        want: {
          prompt_tokens: input,
          completion_tokens: output,
          total_tokens: input + output,
          'prompt_tokens_details.cached_tokens': cacheRead,
          'prompt_tokens_details.cache_write_tokens': cacheWrite,
          'completion_tokens_details.reasoning_tokens': reasoning,
        },
      };
    case 'responses':
      return {
        got: {
          input_tokens: usage.input_tokens,
          output_tokens: usage.output_tokens,
          total_tokens: usage.total_tokens,
          'input_tokens_details.cached_tokens': count(usage.input_tokens_details?.cached_tokens),
          'input_tokens_details.cache_write_tokens':
              count(usage.input_tokens_details?.cache_write_tokens),
          'output_tokens_details.reasoning_tokens':
              count(usage.output_tokens_details?.reasoning_tokens),
        },
        want: {
          input_tokens: input,
          output_tokens: output,
          total_tokens: input + output,
          'input_tokens_details.cached_tokens': cacheRead,
          'input_tokens_details.cache_write_tokens': cacheWrite,
          'output_tokens_details.reasoning_tokens': reasoning,
        },
      };
    case 'anthropic':
      // input_tokens excludes cache reads and writes (REFERENCE.md §3.5).
      return {
        got: {
          input_tokens: usage.input_tokens,
          cache_read_input_tokens: count(usage.cache_read_input_tokens),
          cache_creation_input_tokens: count(usage.cache_creation_input_tokens),
          output_tokens: usage.output_tokens,
        },
        want: {
          input_tokens: input - cacheRead - cacheWrite,
          cache_read_input_tokens: cacheRead,
          cache_creation_input_tokens: cacheWrite,
          output_tokens: output,
        },
      };
    case 'gemini':
      // candidatesTokenCount excludes thoughtsTokenCount (REFERENCE.md §4.5).
      return {
        got: {
          promptTokenCount: usage.promptTokenCount,
          cachedContentTokenCount: count(usage.cachedContentTokenCount),
          candidatesTokenCount: usage.candidatesTokenCount,
          thoughtsTokenCount: count(usage.thoughtsTokenCount),
          totalTokenCount: usage.totalTokenCount,
        },
        want: {
          promptTokenCount: input,
          cachedContentTokenCount: cacheRead,
          candidatesTokenCount: output - reasoning,
          thoughtsTokenCount: reasoning,
          totalTokenCount: input + output,
        },
      };
    default:
      throw new Error(`unknown protocol ${client}`);
  }
}

/**
 * The one upstream call made since `mark` (Stack.journalMark): asserts there was exactly one, to
 * `upstream`'s protocol when given, and returns {entry, protocol}.
 */
export async function theUpstreamCall(stack, mark, { upstream, status = 200 } = {}) {
  const calls = await stack.upstreamCalls(mark);
  assert.equal(calls.length, 1,
               `expected one upstream call, the mock got ${calls.length}: ` +
               calls.map((c) => `${c.path} ${c.status}`).join(', '));
  const [entry] = calls;
  const protocol = entryProtocol(entry);
  if (upstream) assert.equal(protocol, upstream, `the call went to ${entry.path}`);
  assert.equal(entry.status, status,
               `the upstream answered ${entry.status}: ${entry.response_body}`);
  return { entry, protocol };
}

/** Asserts that the one upstream call made since `mark` carried `conversation` ({system, turns},
 *  see upstreamConversation), whatever shape the client gave it. */
export async function assertConversationReached(stack, mark, upstream, conversation) {
  const { entry, protocol } = await theUpstreamCall(stack, mark, { upstream });
  assert.deepEqual(upstreamConversation(protocol, entry.body), conversation,
                   `the ${protocol} upstream got: ${entry.body}`);
}

/**
 * Checks one client call against the one upstream call it caused (made since `mark`):
 * - `usage`, as the `client` SDK exposes it, equals the upstream's usage normalised, written in
 *   the client's convention;
 * - `content` ({text, reasoning, calls}: what the SDK's answer holds), when given, equals what
 *   the upstream answered.
 * Returns {canonical, upstream: the upstream's content, entry: the journal entry}.
 */
export async function assertMatchesUpstream(stack, mark, client, { usage, content, upstream }) {
  const { entry, protocol } = await theUpstreamCall(stack, mark, { upstream });
  const canonical = canonicalUsage(protocol, entry.response_body);
  assert.ok(canonical.input > 0 && canonical.output > 0,
            `the upstream reported no tokens: ${JSON.stringify(canonical)}`);
  assert.ok(usage, 'the SDK exposes no usage');
  const { got, want } = clientView(client, usage, canonical);
  assert.deepEqual(got, want,
                   `${client} usage differs from the ${protocol} upstream's ` +
                   `${JSON.stringify(canonical)}`);
  const said = upstreamContent(protocol, entry.response_body);
  if (content) {
    assert.deepEqual(content, said, `${client} answer differs from the ${protocol} upstream's`);
  }
  return { canonical, upstream: said, entry };
}

/**
 * Asserts that the reasoning payloads the upstream minted in its answer (journal entry `first`)
 * came back to it, unchanged, in the history of the next request (journal entry `second`).
 */
export function assertSignaturesReturned(protocol, first, second) {
  const minted = answerSignatures(protocol, first.response_body);
  assert.ok(minted.length > 0, `the ${protocol} upstream minted no reasoning signature`);
  const returned = requestSignatures(protocol, second.body);
  for (const signature of minted) {
    assert.ok(returned.includes(signature),
              `a reasoning signature of the ${protocol} upstream did not come back: ` +
              `${signature.slice(0, 40)}… ` +
              `(request: ${second.body.slice(0, 600)})`);
  }
}
