import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';

import { ApiError, call, errorFromAnswer, readSession, setCsrf, setUnauthorizedHandler } from '../web/api.js';

const realFetch = globalThis.fetch;
afterEach(() => {
  globalThis.fetch = realFetch;
  setCsrf(null);
  setUnauthorizedHandler(null);
});

/** A fetch that records its calls and answers `answers` in turn. */
function fakeFetch(...answers) {
  const calls = [];
  globalThis.fetch = async (url, init) => {
    calls.push({ url, init });
    const a = answers.shift();
    return new Response(a.body ?? null, { status: a.status ?? 200, headers: a.headers ?? {} });
  };
  return calls;
}

test('errorFromAnswer reads the API error shape with its issues', () => {
  const e = errorFromAnswer(400, JSON.stringify({ error: { message: 'invalid', type: 'invalid_request_error',
    issues: [{ path: 'channels[0].protocol', message: 'unknown' }] } }));
  assert.ok(e instanceof ApiError);
  assert.equal(e.status, 400);
  assert.equal(e.message, 'invalid');
  assert.equal(e.type, 'invalid_request_error');
  assert.deepEqual(e.issues, [{ path: 'channels[0].protocol', message: 'unknown' }]);
  const conflict = errorFromAnswer(409, '{"error":{"message":"stale","type":"conflict_error","current_version":4}}');
  assert.equal(conflict.currentVersion, 4);
  assert.match(errorFromAnswer(404, 'Not Found').message, /HTTP 404/);
  assert.match(errorFromAnswer(501, '').message, /not implemented/);
});

test('a change carries the CSRF token and If-Match; a read does not', async () => {
  const calls = fakeFetch({ body: '{"ok":true}', headers: { 'content-type': 'application/json' } },
    { status: 204 });
  setCsrf('c0ffee');
  assert.deepEqual(await call('GET', '/admin/channels'), { ok: true });
  assert.equal(await call('PUT', '/admin/channels/a', { body: { x: 1 }, version: 3 }), null);
  assert.equal(calls[0].init.headers['X-CSRF-Token'], undefined);
  assert.equal(calls[1].init.headers['X-CSRF-Token'], 'c0ffee');
  assert.equal(calls[1].init.headers['If-Match'], '"3"');
  assert.equal(calls[1].init.headers['Content-Type'], 'application/json');
  assert.equal(calls[1].init.body, '{"x":1}');
  assert.equal(calls[1].init.credentials, 'same-origin');
});

test('text bodies and answers pass through; the ETag is read', async () => {
  const calls = fakeFetch({ body: 'listen: x\n', headers: { 'content-type': 'application/yaml' } },
    { body: '{"name":"a"}', headers: { 'content-type': 'application/json', etag: '"7"' } });
  assert.equal(await call('POST', '/admin/config/import', { body: 'a: 1', contentType: 'application/yaml' }), 'listen: x\n');
  assert.equal(calls[0].init.headers['Content-Type'], 'application/yaml');
  assert.equal(calls[0].init.body, 'a: 1');
  assert.deepEqual(await call('GET', '/admin/channels/a', { withEtag: true }), { body: { name: 'a' }, etag: '7' });
});

test('a 401 from the admin API calls the sign-in handler; the session route does not', async () => {
  const seen = [];
  setUnauthorizedHandler((e) => seen.push(e.status));
  fakeFetch({ status: 401, body: '{"error":{"message":"no","type":"authentication_error"}}' },
    { status: 401, body: '{"error":{"message":"no","type":"authentication_error"}}' });
  await assert.rejects(call('GET', '/admin/channels'), (e) => e.status === 401);
  assert.equal(await readSession(), null);
  assert.deepEqual(seen, [401]);
});

test('a network failure is an ApiError with status 0', async () => {
  globalThis.fetch = async () => {
    throw new TypeError('fetch failed');
  };
  await assert.rejects(call('GET', '/admin/usage'), (e) => e instanceof ApiError && e.status === 0 && /network/.test(e.message));
});
