import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  mergeRequests, parseEventStream, parseRequestEvent, requestOutcome, shortId, statusClass,
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

test('mergeRequests dedupes by id, sorts newest first and bounds the list', () => {
  // Without start times the seq orders them.
  let list = [];
  list = mergeRequests(list, [{ id: 'a', seq: 1 }, { id: 'b', seq: 2 }], 3);
  list = mergeRequests(list, [{ id: 'c', seq: 3 }, { id: 'b', seq: 2, status: 200 }], 3);
  assert.deepEqual(list.map((r) => r.seq), [3, 2, 1]);
  assert.equal(list[1].status, 200);
  list = mergeRequests(list, [{ id: 'd', seq: 4 }], 3);
  assert.deepEqual(list.map((r) => r.id), ['d', 'c', 'b']);
});

test('mergeRequests keeps live events without a seq apart, ordered by start time', () => {
  const at = (s) => `2024-05-01T12:00:0${s}.000Z`;
  let list = mergeRequests([], [{ id: 'old', seq: 5, started_at: at(1) }]);
  list = mergeRequests(list, [{ id: 'a', seq: 0, started_at: at(3) }]);
  list = mergeRequests(list, [{ id: 'b', seq: 0, started_at: at(2) }]);
  assert.deepEqual(list.map((r) => r.id), ['a', 'b', 'old']);
  // The same request read back from the log (with its seq) replaces the live copy.
  list = mergeRequests(list, [{ id: 'a', seq: 7, started_at: at(3), status: 200 }]);
  assert.deepEqual(list.map((r) => r.id), ['a', 'b', 'old']);
  assert.equal(list[0].status, 200);
  // A live copy after the replayed one: still one entry, the log's seq kept.
  list = mergeRequests(list, [{ id: 'old', seq: 0, started_at: at(1), status: 201 }]);
  assert.deepEqual(list.map((r) => [r.id, r.seq]), [['a', 7], ['b', 0], ['old', 5]]);
  assert.equal(list[2].status, 201);
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

test('shortId', () => {
  assert.equal(shortId('9f0c2a7e51d4b3a8ffff'), '9f0c2a7e51d4');
  assert.equal(shortId('abc'), 'abc');
  assert.equal(shortId(null), '');
});
