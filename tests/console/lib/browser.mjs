// Headless Chromium (the system's, through playwright-core) with a fresh profile, and a watch
// on everything that goes wrong in the page: console errors, uncaught exceptions, failed
// requests and error answers, except those a test expects.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { chromium } from 'playwright-core';

const kArgs = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Answers the page makes on purpose: no session before sign-in (401), no payload capture in
 *  this configuration (404), the live stream cut when a page is left. */
const kAlwaysExpected = [
  ({ url, status }) => url.pathname === '/console/session' && status === 401,
  ({ url, status }) => /^\/admin\/requests\/[^/]+\/payloads$/.test(url.pathname) && status === 404,
  ({ url, failure }) => url.pathname === '/admin/requests/live' && /ERR_ABORTED/.test(failure ?? ''),
];

export async function openBrowser() {
  const profile = await mkdtemp(path.join(tmpdir(), 'llmux-console-chromium-'));
  const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';
  const context = await chromium.launchPersistentContext(profile, {
    executablePath, args: kArgs, headless: true, acceptDownloads: true, viewport: { width: 1280, height: 900 },
  });
  return { context, close: async () => { await context.close(); await rm(profile, { recursive: true, force: true }); } };
}

/** Watches `page`; `problems()` lists what went wrong that no expectation allows. */
export function watch(page) {
  const problems = [];
  const extra = [];
  const expected = (event) => [...kAlwaysExpected, ...extra].some((allow) => allow(event));
  const parse = (url) => {
    try {
      return new URL(url);
    } catch {
      return new URL('about:blank');
    }
  };
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const where = message.location()?.url ?? '';
    // "Failed to load resource" repeats an error answer, which the response handler judges.
    if (/Failed to load resource/.test(message.text())) return;
    problems.push(`console error: ${message.text()} (${where})`);
  });
  // Requests sent and not yet answered or failed: a page asks several things at once, and an
  // expectation must last until the last of them is answered.
  let inFlight = 0;
  page.on('request', () => { inFlight += 1; });
  page.on('requestfinished', () => { inFlight -= 1; });
  page.on('requestfailed', () => { inFlight -= 1; });
  page.on('response', (response) => {
    const event = { url: parse(response.url()), status: response.status(), method: response.request().method() };
    if (event.status >= 400 && !expected(event)) {
      problems.push(`HTTP ${event.status} for ${event.method} ${event.url.pathname}${event.url.search}`);
    }
  });
  page.on('requestfailed', (request) => {
    const event = { url: parse(request.url()), failure: request.failure()?.errorText, method: request.method() };
    if (!expected(event)) problems.push(`request failed: ${event.method} ${event.url.pathname} ${event.failure}`);
  });
  return {
    problems: () => problems.splice(0),
    /** How many of the page's requests are still unanswered. */
    inFlight: () => inFlight,
    /** Allows what `allow(event)` accepts while `during` runs. */
    async expecting(allow, during) {
      extra.push(allow);
      try {
        return await during();
      } finally {
        extra.splice(extra.indexOf(allow), 1);
      }
    },
  };
}

/** Polls `check` until it answers truthy; throws `what` after `timeoutMs`. */
export async function eventually(what, check, timeoutMs = 10000) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      last = await check();
      if (last) return last;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${last?.message ?? last})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
