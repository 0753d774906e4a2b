// The bytes of a stream as a client gets them, checked against the framing rules the SDKs rely on
// (REFERENCE.md §1.4, §2.4, §3.4, §4.4, §5; CLIENTS.md): a frame an SDK silently drops (an
// Anthropic frame without `event:`, a Gemini frame starting with `event:`) or a stream that ends
// without its terminator would not show in the SDK's result.
import assert from 'node:assert/strict';

/** Splits an SSE body into frames of {event, data (text), lines}. */
function frames(body) {
  assert.ok(!/\r(?!\n)/.test(body), 'a bare CR in the stream');
  const out = [];
  for (const raw of body.split(/\r?\n\r?\n/)) {
    if (raw.trim() === '') continue;
    const frame = { event: undefined, data: [], raw };
    for (const line of raw.split(/\r?\n/)) {
      if (line.startsWith(':')) continue;  // comment / keep-alive
      const colon = line.indexOf(':');
      assert.ok(colon > 0, `a line that is no SSE field: ${JSON.stringify(line)}`);
      const field = line.slice(0, colon);
      const value = line.slice(colon + 1).replace(/^ /, '');
      assert.ok(field === 'event' || field === 'data', `unexpected SSE field ${field}`);
      if (field === 'event') frame.event = value;
      else frame.data.push(value);
    }
    assert.ok(frame.data.length > 0, `a frame without data: ${JSON.stringify(raw)}`);
    frame.data = frame.data.join('\n');
    out.push(frame);
  }
  assert.ok(/\r?\n\r?\n$/.test(body), 'the stream does not end with a complete frame');
  return out;
}

function parse(frame) {
  try {
    return JSON.parse(frame.data);
  } catch {
    assert.fail(`a frame whose data is not JSON: ${JSON.stringify(frame.raw)}`);
  }
}

/**
 * Checks `body`, a stream in `client`'s protocol, frame by frame; returns the parsed payloads.
 * `includeUsage`: a Chat stream asked for its usage chunk.
 */
export function checkStreamFraming(client, body, { includeUsage = false } = {}) {
  const all = frames(body);
  switch (client) {
    case 'chat': {
      assert.ok(all.every((f) => f.event === undefined), 'Chat frames carry no event: line');
      assert.equal(all.at(-1).data, '[DONE]', 'a Chat stream ends with data: [DONE]');
      const chunks = all.slice(0, -1).map(parse);
      assert.ok(chunks.every((c) => c.object === 'chat.completion.chunk' && !c.error),
                'every chunk is a chat.completion.chunk');
      assert.equal(new Set(chunks.map((c) => c.id)).size, 1, 'one id on every chunk');
      const finishes = chunks.filter((c) => c.choices.some((ch) => ch.finish_reason));
      assert.equal(finishes.length, 1, 'exactly one chunk carries finish_reason');
      assert.equal(chunks[0].choices[0]?.delta?.role, 'assistant',
                   'the first chunk gives the role');
      const usageChunks = chunks.filter((c) => c.usage);
      if (includeUsage) {
        assert.equal(usageChunks.length, 1, 'one usage chunk');
        assert.equal(chunks.at(-1), usageChunks[0], 'the usage chunk comes last');
        assert.deepEqual(usageChunks[0].choices, [], 'the usage chunk has no choices');
      } else {
        assert.equal(usageChunks.length, 0, 'no usage chunk unless asked for');
      }
      return chunks;
    }
    case 'responses': {
      const events = all.map((f) => {
        const data = parse(f);
        assert.equal(f.event, data.type, `event: ${f.event} carries a ${data.type}`);
        return data;
      });
      events.forEach((e, i) => assert.equal(e.sequence_number, i, `sequence_number of ${e.type}`));
      assert.equal(events[0].type, 'response.created');
      assert.equal(events.at(-1).type, 'response.completed');
      const byIndex = new Map();
      for (const e of events) {
        if (e.type === 'response.output_item.added') {
          assert.ok(!byIndex.has(e.output_index), `output_index ${e.output_index} added twice`);
          byIndex.set(e.output_index, { added: e.item, done: undefined });
        }
        if (e.type === 'response.output_item.done') {
          const item = byIndex.get(e.output_index);
          assert.ok(item && !item.done, `output_item.done for ${e.output_index} without added`);
          assert.equal(e.item.id, item.added.id, 'item id changes between added and done');
          item.done = e.item;
        }
      }
      for (const [index, item] of byIndex) assert.ok(item.done, `item ${index} never done`);
      const completed = events.at(-1).response;
      assert.deepEqual(completed.output.map((i) => i.id),
                       [...byIndex.values()].map((i) => i.done.id),
                       'response.completed lists the items that were streamed');
      return events;
    }
    case 'anthropic': {
      const events = all.map((f) => {
        const data = parse(f);
        assert.equal(f.event, data.type, `event: ${f.event} carries a ${data.type}`);
        return data;
      }).filter((e) => e.type !== 'ping');
      assert.equal(events[0].type, 'message_start');
      assert.equal(events.at(-1).type, 'message_stop');
      assert.equal(events.at(-2).type, 'message_delta');
      assert.ok(Number.isInteger(events.at(-2).usage?.output_tokens),
                'message_delta has usage.output_tokens');
      let open = null;
      let next = 0;
      for (const e of events.slice(1, -2)) {
        if (e.type === 'content_block_start') {
          assert.equal(open, null, `block ${e.index} starts inside block ${open?.index}`);
          assert.equal(e.index, next, 'blocks are numbered from 0 in order');
          open = { index: e.index, type: e.content_block.type, signature: false };
        } else if (e.type === 'content_block_delta') {
          assert.equal(e.index, open?.index, `a delta for block ${e.index} outside it`);
          const allowed = { text: ['text_delta'], tool_use: ['input_json_delta'],
                            thinking: ['thinking_delta', 'signature_delta'] }[open.type] ?? [];
          assert.ok(allowed.includes(e.delta.type), `${e.delta.type} in a ${open.type} block`);
          if (e.delta.type === 'signature_delta') open.signature = true;
          else assert.ok(!open.signature, 'a delta after the signature');
        } else if (e.type === 'content_block_stop') {
          assert.equal(e.index, open?.index, `content_block_stop for ${e.index}`);
          // The SDK and Claude Code need every thinking block signed.
          if (open.type === 'thinking') {
            assert.ok(open.signature, `thinking block ${e.index} closes without a signature_delta`);
          }
          open = null;
          next += 1;
        } else {
          assert.fail(`unexpected ${e.type} between message_start and message_delta`);
        }
      }
      assert.equal(open, null, 'a block is left open');
      return events;
    }
    case 'gemini': {
      assert.ok(all.every((f) => f.event === undefined), 'Gemini frames carry no event: line');
      assert.ok(body.includes('\r\n\r\n') || all.length === 0, 'Gemini frames end with CRLF CRLF');
      const chunks = all.map(parse);
      assert.ok(chunks.every((c) => !c.error), 'no error chunk');
      const finishes = chunks.filter((c) => c.candidates?.[0]?.finishReason);
      assert.equal(finishes.length, 1, 'exactly one chunk carries finishReason');
      assert.equal(chunks.at(-1), finishes[0], 'finishReason comes on the last chunk');
      // Clients take the usage from the last snapshot; a translated stream may have none before
      // the upstream's usage is known.
      assert.ok(chunks.at(-1).usageMetadata, 'the last chunk has a usageMetadata snapshot');
      return chunks;
    }
    default:
      throw new Error(`unknown protocol ${client}`);
  }
}
