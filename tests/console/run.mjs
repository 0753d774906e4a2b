// The web console in headless Chromium against a real gateway and its mock provider: sign in,
// create a channel and a gateway key through the pages, send requests with the official openai
// SDK on that key, watch them arrive in the live tail, probe, freeze and lift a key, rotate the
// gateway key, create and delete a proxy, switch racing, read the overview's charts, export and
// dry-run an import, and check that a read-only session has no button that changes anything (and
// that the gateway refuses its changes, and changes without the CSRF header). Every page is
// saved as a screenshot under $LLMUX_CONSOLE_ARTIFACTS (default: artifacts/ here). Any console
// error, page error, failed request or error answer the test did not provoke fails it.
//
//   LLMUX_BIN=path/to/llmux node run.mjs        (or ./run.sh path/to/llmux)
//   LLMUX_CONSOLE_DIR=console/web               serve the files from there (development)
import assert from 'node:assert/strict';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import OpenAI from 'openai';

import { parseEventStream } from '../../console/web/lib/live.js';
import { eventually, openBrowser, watch } from './lib/browser.mjs';
import { ADMIN_TOKEN, LIMITED_MODEL, READ_ONLY_TOKEN, Stack } from './lib/stack.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const artifacts = path.resolve(process.env.LLMUX_CONSOLE_ARTIFACTS || path.join(here, 'artifacts'));
const binary = path.resolve(process.env.LLMUX_BIN || path.join(here, '..', '..', 'build', 'dev', 'src', 'app', 'llmux'));

const CHANNEL = 'ui-chan';
const CHANNEL_MODEL = 'ui-model';
const KEY_LABEL = `${CHANNEL}#0`;
const GATEWAY_KEY = 'ui-team';
/** Test ids of the controls that change something: a read-only session must see none. */
const kChangeControls = ['channel-new', 'channel-toggle', 'channel-freeze', 'channel-edit', 'channel-delete', 'key-freeze',
  'key-probe', 'key-toggle', 'key-rotate', 'freeze-lift', 'breaker-reset', 'key-new', 'gateway-key-rotate',
  'gateway-key-revoke', 'proxy-new', 'proxy-edit', 'proxy-delete', 'racing-save', 'racing-reset',
  'import-dry-run', 'import-apply'];
const kPages = ['overview', 'live', 'channels', 'keys', 'proxies', 'racing', 'settings'];

const stack = new Stack(binary);
let browser;
let page;
let watcher;
let gatewayKey;

async function shot(name) {
  await page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });
}

async function signIn(token) {
  await page.goto(`${stack.gatewayUrl}/console/`);
  await page.getByTestId('signin-token').fill(token);
  await page.getByTestId('signin-submit').click();
  await page.getByTestId('session-role').waitFor();
}

/** Opens a page by its link in the navigation (which reads the page again when it is open). */
async function go(route) {
  await page.getByTestId(`nav-${route}`).click();
  await page.locator(`[data-testid="nav-${route}"][aria-current="page"]`).waitFor();
}

/** Loading placeholders gone: the page has read what it shows. */
async function settled() {
  await eventually('the page to load', async () => (await page.getByTestId('loading').count()) === 0);
}

function assertClean() {
  stack.assertAlive();
  assert.deepEqual(watcher.problems(), [], 'the page reported problems');
}

function client() {
  return new OpenAI({ baseURL: `${stack.gatewayUrl}/v1`, apiKey: gatewayKey, timeout: 20000, maxRetries: 0 });
}

describe('web console', { timeout: 240000 }, () => {
  before(async () => {
    await mkdir(artifacts, { recursive: true });
    await stack.start();
    const index = await fetch(`${stack.gatewayUrl}/console/`);
    if (index.status !== 200) {
      throw new Error(`GET /console/ answered ${index.status}: this binary has no console files built in ` +
        '(build it with console/web/vendor present, or set LLMUX_CONSOLE_DIR to console/web)');
    }
    browser = await openBrowser();
    page = await browser.context.newPage();
    watcher = watch(page);
  });

  after(async () => {
    await browser?.close();
    await stack.stop();
  });

  test('a wrong token is refused in place; the admin token signs in', async () => {
    await page.goto(`${stack.gatewayUrl}/console`);
    await page.getByTestId('signin-form').waitFor();
    await shot('signin');
    await page.getByTestId('signin-token').fill('not-the-token');
    await page.getByTestId('signin-submit').click();
    await page.getByTestId('signin-error').waitFor();
    await page.getByTestId('signin-token').fill(ADMIN_TOKEN);
    await page.getByTestId('signin-submit').click();
    await page.getByTestId('session-role').waitFor();
    assert.equal(await page.getByTestId('session-role').innerText(), 'admin');
    assert.equal(await page.getByTestId('session-name').innerText(), 'ops');
    const cookies = await browser.context.cookies(stack.gatewayUrl);
    const session = cookies.find((c) => c.name === 'llmux_console');
    assert.ok(session, 'the session cookie is set');
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, 'Strict');
    assertClean();
  });

  test('a change without the CSRF header is refused', async () => {
    const status = await watcher.expecting(({ status: s, url }) => s === 403 && url.pathname === '/admin/racing',
      () => page.evaluate(async () => {
        const answer = await fetch('/admin/racing', { method: 'PUT', headers: { 'Content-Type': 'application/json' },
          body: '{"enabled":true}' });
        await answer.text(); // read to the end: a body left open is cut (a failed request) by the next navigation
        return answer.status;
      }));
    assert.equal(status, 403);
    assertClean();
  });

  test('a channel is created through the form', async () => {
    await go('channels');
    await settled();
    await page.getByTestId('channel-new').click();
    // The form's own check first: nothing is sent while a field is wrong.
    await page.getByTestId('channel-name').fill('bad/name');
    await page.getByTestId('channel-create').click();
    await page.getByTestId('form-issues').waitFor();
    assert.match(await page.getByTestId('form-issues').innerText(), /name/);
    await page.getByTestId('channel-name').fill(CHANNEL);
    await page.getByTestId('channel-protocol').selectOption('openai-chat');
    await page.getByTestId('channel-base-url').fill(stack.mockUrl);
    await page.getByTestId('channel-models').fill(CHANNEL_MODEL);
    await page.getByTestId('channel-keys').fill('ui-upstream-secret');
    await page.getByTestId('channel-create').click();
    const card = page.getByTestId(`channel-${CHANNEL}`);
    await card.waitFor();
    assert.match(await card.getByTestId('keys-table').innerText(), new RegExp(KEY_LABEL));
    assertClean();
  });

  test('an invalid edit shows the gateway\'s issues next to their path', async () => {
    const card = page.getByTestId(`channel-${CHANNEL}`);
    await card.getByTestId('channel-edit').click();
    const editor = card.getByTestId('json-editor');
    const text = await editor.inputValue();
    assert.match(text, /"\*\*\*"/, 'the key is masked');
    await watcher.expecting(({ status, url }) => status === 400 && url.pathname === `/admin/channels/${CHANNEL}`, async () => {
      await editor.fill(text.replace('"openai-chat"', '"carrier-pigeon"'));
      await card.getByTestId('editor-check').click();
      await card.getByTestId('editor-issues').waitFor();
    });
    assert.match(await card.getByTestId('editor-issues').innerText(), /protocol/);
    await editor.fill(text);
    await card.getByTestId('editor-check').click();
    await card.getByTestId('editor-ok').waitFor();
    assertClean();
  });

  test('a gateway key is created and shown once', async () => {
    await go('keys');
    await settled();
    await page.getByTestId('key-new').click();
    await page.getByTestId('key-name').fill(GATEWAY_KEY);
    await page.getByTestId('key-limit-rpm').fill('1000');
    await page.getByTestId('key-limit-daily_cost_usd').fill('25');
    await page.getByTestId('key-create').click();
    await page.getByTestId('secret-value').waitFor();
    gatewayKey = await page.getByTestId('secret-value').inputValue();
    assert.match(gatewayKey, /^sk-llmux-[0-9a-f]{48}$/);
    await page.getByTestId(`gateway-key-${GATEWAY_KEY}`).waitFor();
    await shot('keys-created');
    assertClean();
  });

  test('requests sent with the openai SDK on that key show up live, with their attempts', async () => {
    await go('live');
    await eventually('the live stream to open', async () => /Live/.test(await page.getByTestId('live-status').innerText()));
    const openai = client();
    for (let i = 0; i < 3; i += 1) {
      const answer = await openai.chat.completions.create({ model: CHANNEL_MODEL, messages: [{ role: 'user', content: `hello ${i}` }] });
      assert.ok(answer.choices[0].message.content);
    }
    const stream = await openai.chat.completions.create({ model: CHANNEL_MODEL, stream: true,
      stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'stream please' }] });
    let streamed = '';
    for await (const chunk of stream) streamed += chunk.choices[0]?.delta?.content ?? '';
    assert.ok(streamed.length > 0);
    const rows = page.getByTestId('live-row').filter({ hasText: CHANNEL_MODEL });
    await eventually('4 requests in the live list', async () => (await rows.count()) >= 4);
    assert.match(await rows.first().innerText(), new RegExp(GATEWAY_KEY));
    await rows.first().getByTestId('live-open').click();
    const attempts = page.getByTestId('attempts-table');
    await attempts.waitFor();
    const attempt = await page.getByTestId('attempt-row').first().innerText();
    assert.match(attempt, new RegExp(CHANNEL));
    assert.match(attempt, new RegExp(KEY_LABEL.replace('#', '\\#')));
    assert.match(attempt, /ok/);
    await eventually('the payloads answer', async () => /Not captured|attempt/.test(await page.getByTestId('live-payloads').innerText()));
    await shot('live');
    assertClean();
  });

  test('the live stream replays finished requests in the shape of the request log', async () => {
    const headers = { Authorization: `Bearer ${ADMIN_TOKEN}` };
    const logged = (await (await fetch(`${stack.gatewayUrl}/admin/requests?limit=1`, { headers })).json()).requests[0];
    const abort = new AbortController();
    const answer = await fetch(`${stack.gatewayUrl}/admin/requests/live`, { headers, signal: abort.signal });
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get('content-type'), /^text\/event-stream/);
    const decoder = new TextDecoder();
    let text = '';
    const events = [];
    const timer = setTimeout(() => abort.abort(), 5000);
    try {
      for await (const chunk of answer.body) {
        const parsed = parseEventStream(text + decoder.decode(chunk, { stream: true }));
        text = parsed.rest;
        events.push(...parsed.events.filter((e) => e.event === 'request'));
        if (events.some((e) => JSON.parse(e.data).id === logged.id)) break;
      }
    } finally {
      clearTimeout(timer);
      abort.abort();
    }
    const replayed = JSON.parse(events.find((e) => JSON.parse(e.data).id === logged.id).data);
    assert.deepEqual(Object.keys(replayed).sort(), Object.keys(logged).sort());
    assert.deepEqual(replayed.attempts, logged.attempts);
    assert.equal(replayed.gateway_key, GATEWAY_KEY);
  });

  test('a key is frozen and lifted', async () => {
    await go('channels');
    await settled();
    const card = page.getByTestId(`channel-${CHANNEL}`);
    await card.getByTestId('key-probe').click();
    await card.getByTestId('probe-result').waitFor();
    assert.match(await card.getByTestId('probe-result').innerText(), /pass/);
    await card.getByTestId('key-freeze').click();
    await card.getByTestId('freeze-reason').fill('browser test');
    await card.getByTestId('freeze-submit').click();
    await card.getByTestId('freeze-row').waitFor();
    assert.match(await card.getByTestId('freeze-row').innerText(), /browser test/);
    await card.getByTestId('key-frozen').waitFor();
    // The frozen key is really out of rotation: the channel's only key, so the model has none.
    await assert.rejects(client().chat.completions.create({ model: CHANNEL_MODEL, messages: [{ role: 'user', content: 'frozen?' }] }));
    await shot('channels');
    await card.getByTestId('freeze-lift').click();
    await eventually('the freeze to go', async () => (await card.getByTestId('freeze-row').count()) === 0);
    const answer = await client().chat.completions.create({ model: CHANNEL_MODEL, messages: [{ role: 'user', content: 'thawed' }] });
    assert.ok(answer.choices[0].message.content);
    assertClean();
  });

  test('a channel key is disabled, enabled again and rotated on its own', async () => {
    await go('channels');
    await settled();
    const card = page.getByTestId(`channel-${CHANNEL}`);
    const row = card.getByTestId(`key-row-${KEY_LABEL}`);
    await row.getByTestId('key-toggle').click();
    await eventually('the key disabled', async () => /disabled/.test(await page.getByTestId(`channel-${CHANNEL}`)
      .getByTestId(`key-row-${KEY_LABEL}`).innerText()));
    // The channel's only key: nothing serves the model while it is off.
    await assert.rejects(client().chat.completions.create({ model: CHANNEL_MODEL, messages: [{ role: 'user', content: 'off?' }] }));
    await page.getByTestId(`channel-${CHANNEL}`).getByTestId(`key-row-${KEY_LABEL}`).getByTestId('key-toggle').click();
    await eventually('the key enabled', async () => /enabled/.test(await page.getByTestId(`channel-${CHANNEL}`)
      .getByTestId(`key-row-${KEY_LABEL}`).innerText()));
    await page.getByTestId(`channel-${CHANNEL}`).getByTestId(`key-row-${KEY_LABEL}`).getByTestId('key-rotate').click();
    const form = page.getByTestId('rotate-form');
    await form.locator('input[name=secret]').fill('sk-ui-rotated-secret');
    await form.getByRole('button', { name: 'Rotate' }).click();
    await eventually('the form to close', async () => (await page.getByTestId('rotate-form').count()) === 0);
    const answer = await client().chat.completions.create({ model: CHANNEL_MODEL, messages: [{ role: 'user', content: 'rotated' }] });
    assert.ok(answer.choices[0].message.content);
    // Write-only: the audit names the key's edits, and no page or answer shows the secret.
    const headers = { Authorization: `Bearer ${ADMIN_TOKEN}` };
    const audit = await (await fetch(`${stack.gatewayUrl}/admin/audit?limit=3`, { headers })).text();
    assert.doesNotMatch(audit, /sk-ui-rotated-secret/);
    assert.deepEqual(JSON.parse(audit).audit.map((e) => e.action), ['key-update 0', 'key-update 0', 'key-update 0']);
    assert.doesNotMatch(await page.content(), /sk-ui-rotated-secret/);
    assertClean();
  });

  test('a key the upstream rate-limits shows as paused; a key\'s rate bucket shows its level', async () => {
    await assert.rejects(client().chat.completions.create({ model: LIMITED_MODEL, messages: [{ role: 'user', content: 'too many' }] }),
      (error) => error.status === 429);
    await go('channels');
    await settled();
    const row = page.getByTestId('channel-limited').getByTestId('key-row-limited#0');
    await eventually('the pause on the key', async () => /paused: rate limited/.test(await row.innerText()));
    // A key with a rate limit shows its bucket.
    assert.match(await page.getByTestId('channel-mock').getByTestId('buckets-table').innerText(), /mock#0[\s\S]*of 500 left/);
    assertClean();
  });

  test('a gateway key is rotated: the old secret stops working, the new one works', async () => {
    await go('keys');
    await settled();
    const old = gatewayKey;
    await page.getByTestId(`gateway-key-${GATEWAY_KEY}`).getByTestId('gateway-key-rotate').click();
    await eventually('a new secret', async () => {
      const shown = await page.getByTestId('secret-value').inputValue();
      return shown !== old && /^sk-llmux-[0-9a-f]{48}$/.test(shown);
    });
    gatewayKey = await page.getByTestId('secret-value').inputValue();
    await assert.rejects(new OpenAI({ baseURL: `${stack.gatewayUrl}/v1`, apiKey: old, maxRetries: 0 })
      .chat.completions.create({ model: CHANNEL_MODEL, messages: [{ role: 'user', content: 'old key' }] }),
    (error) => error.status === 401);
    const answer = await client().chat.completions.create({ model: CHANNEL_MODEL, messages: [{ role: 'user', content: 'new key' }] });
    assert.ok(answer.choices[0].message.content);
    assertClean();
  });

  test('a proxy is created and deleted; racing is switched on and handed back', async () => {
    await go('proxies');
    await settled();
    await page.getByTestId('proxy-new').click();
    await page.getByTestId('proxy-name').fill('ui-exit');
    await page.getByTestId('proxy-mode').selectOption('direct');
    await page.getByTestId('proxy-create').click();
    const row = page.getByTestId('proxy-ui-exit');
    await row.waitFor();
    await row.getByTestId('proxy-delete').click();
    await row.getByTestId('proxy-delete-confirm').click();
    await eventually('the proxy to go', async () => (await row.count()) === 0);
    await go('racing');
    await settled();
    await page.getByTestId('racing-enabled').selectOption('true');
    await page.getByTestId('racing-save').click();
    await eventually('racing set by the console', async () =>
      /Racing \(admin\)/.test(await page.getByTestId('racing').innerText()));
    await page.getByTestId('racing-reset').click();
    await eventually('racing handed back', async () =>
      /Racing \(config\)/.test(await page.getByTestId('racing').innerText()));
    assertClean();
  });

  test('the overview draws its charts with data', async () => {
    await go('overview');
    for (const range of ['hour', 'day']) {
      await page.getByTestId('overview-range').selectOption(range);
      for (const chart of ['chart-rps', 'chart-success', 'chart-first-token', 'chart-cost']) {
        const figure = page.getByTestId(chart);
        await figure.locator('canvas').waitFor();
      }
      for (const chart of ['chart-rps', 'chart-success', 'chart-first-token', 'chart-cost']) {
        const points = Number(await page.getByTestId(chart).getAttribute('data-points'));
        assert.ok(points > 0, `${chart} (${range}) has data`);
      }
      assert.match(await page.getByTestId('card-success').innerText(), /99\.5 %/, 'the SLO of the configuration');
      await shot(`overview-${range}`);
    }
    assertClean();
  });

  test('every page renders, also at phone width', async () => {
    for (const route of ['keys', 'proxies', 'racing', 'settings']) {
      await go(route);
      await settled();
      await shot(route);
    }
    await page.getByTestId('audit-row').first().waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-download').click()]);
    const yaml = await readFile(await download.path(), 'utf8');
    assert.match(yaml, new RegExp(`${CHANNEL}`));
    assert.doesNotMatch(yaml, /ui-upstream-secret/, 'secrets are masked in the export');
    await page.getByTestId('import-text').fill(yaml);
    await page.getByTestId('import-dry-run').click();
    await page.getByTestId('import-dry-run-ok').waitFor();
    assert.match(await page.getByTestId('import-dry-run-ok').innerText(), /no change/, 'the export imported back changes nothing');
    await page.setViewportSize({ width: 390, height: 844 });
    for (const route of ['overview', 'channels']) {
      await go(route);
      await settled();
      await shot(`${route}-390`);
    }
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 400, `no horizontal scrolling at 390 px (page is ${width} px wide)`);
    await page.setViewportSize({ width: 1280, height: 900 });
    assertClean();
  });

  test('a read-only session sees no button that changes anything', async () => {
    await page.getByTestId('sign-out').click();
    await page.getByTestId('signin-form').waitFor();
    // Signed out means the cookie no longer opens anything.
    const after = await watcher.expecting(({ status, url }) => status === 401 && url.pathname === '/admin/channels',
      () => page.evaluate(async () => {
        const answer = await fetch('/admin/channels');
        await answer.text();
        return answer.status;
      }));
    assert.equal(after, 401);
    await signIn(READ_ONLY_TOKEN);
    assert.equal(await page.getByTestId('session-role').innerText(), 'read-only');
    for (const route of kPages) {
      await go(route);
      await settled();
      for (const control of kChangeControls) {
        assert.equal(await page.getByTestId(control).count(), 0, `${control} on ${route} for read-only`);
      }
    }
    await go('channels');
    await settled();
    await page.getByTestId(`channel-${CHANNEL}`).waitFor();
    await shot('channels-read-only');
    // The buttons are not the protection: the session itself may not change anything.
    const refused = await watcher.expecting(({ status, url }) => status === 403 && url.pathname === '/admin/freezes',
      () => page.evaluate(async (label) => {
        const session = await (await fetch('/console/session')).json();
        const answer = await fetch('/admin/freezes', { method: 'POST', headers: { 'Content-Type': 'application/json',
          'X-CSRF-Token': session.csrf }, body: JSON.stringify({ channel: 'ui-chan', key: label, reason: 'read-only' }) });
        await answer.text();
        return answer.status;
      }, KEY_LABEL));
    assert.equal(refused, 403);
    assertClean();
  });

  test('a session that ends elsewhere brings the sign-in page back', async () => {
    await watcher.expecting(({ status, url }) => status === 401 && url.pathname.startsWith('/admin/'), async () => {
      await page.evaluate(async () => {
        const session = await (await fetch('/console/session')).json();
        const answer = await fetch('/console/session', { method: 'DELETE', headers: { 'X-CSRF-Token': session.csrf } });
        await answer.text();
      });
      await page.evaluate(() => { location.hash = '#/keys'; });
      await page.getByTestId('signin-note').waitFor();
      // The keys page asked five things at once: the first 401 brings the sign-in page back,
      // the others may be answered (401 too) after it.
      await eventually('the keys page\'s requests to be answered', async () => watcher.inFlight() === 0);
    });
    assert.match(await page.getByTestId('signin-note').innerText(), /session has ended/);
    assertClean();
  });
});
