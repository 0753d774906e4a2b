import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  isClientRequest, mergeRequests, parseEventStream, parseRequestEvent, requestOutcome, shortId, statusClass,
} from '../web/lib/live.js';

test('parseEventStream splits events, skips pings and keeps the unfinished rest', () => {
  const text = ': ping\n\nid: 7\nevent: request\ndata: {"id":"a","seq":7}\n\nevent: request\r\ndata: {"id":"b",\r\ndata: "seq":8}\r\n\r\nid: 9\nevent: req';
  const { events, rest } = parseEventStream(text);
  assert.deepEqual(events, [
    { event: 'request', data: '{"id":"a","seq":7}', id: '7' },
    { event: 'request', data: '{"id":"b",\n"seq":8}', id: null },
  ]);
  assert.equal(rest, 'id: 9\nevent: req');
  const next = parseEventStream(`${rest}uest\ndata:{"id":"c"}\n\n`);
  assert.deepEqual(next.events, [{ event: 'request', data: '{"id":"c"}', id: '9' }]);
  assert.equal(next.rest, '');
});

test('parseRequestEvent accepts request objects only', () => {
  assert.deepEqual(parseRequestEvent('{"id":"9f","seq":1}'), { id: '9f', seq: 1 });
  assert.equal(parseRequestEvent('not json'), null);
  assert.equal(parseRequestEvent('[1]'), null);
  assert.equal(parseRequestEvent('{"seq":1}'), null);
});

test('mergeRequests dedupes by seq, sorts newest first and bounds the list', () => {
  let list = [];
  list = mergeRequests(list, [{ id: 'a', seq: 1 }, { id: 'b', seq: 2 }], 3);
  list = mergeRequests(list, [{ id: 'c', seq: 3 }, { id: 'b', seq: 2, status: 200 }], 3);
  assert.deepEqual(list.map((r) => r.seq), [3, 2, 1]);
  assert.equal(list[1].status, 200);
  list = mergeRequests(list, [{ id: 'd', seq: 4 }], 3);
  assert.deepEqual(list.map((r) => r.id), ['d', 'c', 'b']);
});

test('requestOutcome and statusClass', () => {
  assert.equal(requestOutcome({ state: 'done', status: 200 }), '200');
  assert.equal(requestOutcome({ state: 'done', status: 502, error: 'upstream closed the stream' }), '502 upstream closed the stream');
  assert.equal(requestOutcome({ state: 'in_progress' }), 'in progress');
  assert.equal(statusClass(200), 'ok');
  assert.equal(statusClass(429), 'warn');
  assert.equal(statusClass(502), 'bad');
  assert.equal(statusClass(null), 'bad');
});

test('isClientRequest leaves out the admin API and the console', () => {
  assert.equal(isClientRequest({ route: '/v1/chat/completions', model: 'gpt-4o', gateway_key: 'a', attempts: [{}] }), true);
  assert.equal(isClientRequest({ route: '/v1/chat/completions', model: 'gpt-4o', gateway_key: '', attempts: [] }), true);
  assert.equal(isClientRequest({ route: 'unknown', model: '', gateway_key: '', attempts: [] }), false);
  assert.equal(isClientRequest({ route: '/admin/usage', model: '', attempts: [] }), false);
  assert.equal(isClientRequest({ route: '/console/session' }), false);
  assert.equal(isClientRequest({ route: '/v1/models', model: '', gateway_key: '', attempts: [] }), false);
});

test('shortId', () => {
  assert.equal(shortId('9f0c2a7e51d4b3a8ffff'), '9f0c2a7e51d4');
  assert.equal(shortId('abc'), 'abc');
  assert.equal(shortId(null), '');
});
