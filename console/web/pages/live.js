// Live requests: the tail of /admin/requests/live (EventSource, the session cookie), newest
// first; a request opens its attempts in order and its captured payloads. Without the stream the
// page reads the log every few seconds instead.
import { get, seg } from '../api.js';
import { empty, errorBox, h, loading, replace, table } from '../lib/dom.js';
import { NONE, formatCost, formatMs, formatTime, formatTokens } from '../lib/format.js';
import { mergeRequests, parseRequestEvent, requestOutcome, shortId, statusClass } from '../lib/live.js';

const kMaxShown = 200;
const kPollMs = 5000;

export function render(root) {
  let requests = [];
  let selectedId = null;
  let paused = false;
  let source = null;
  let pollTimer = null;
  let closed = false;

  const status = h('p', { class: 'stream-status', role: 'status', testid: 'live-status' }, 'Connecting…');
  const pauseButton = h('button', { type: 'button', class: 'btn', testid: 'live-pause', 'aria-pressed': 'false' }, 'Pause');
  const listBox = h('div', { class: 'live-list', testid: 'live-list' }, loading('Waiting for requests…'));
  const detail = h('div', { class: 'live-detail', testid: 'live-detail', tabindex: '-1' });
  const split = h('div', { class: 'split' }, listBox, detail);
  replace(root,
    h('div', { class: 'page-head' }, h('h1', {}, 'Live requests'), h('div', { class: 'controls' }, status, pauseButton)),
    split);

  pauseButton.addEventListener('click', () => {
    paused = !paused;
    pauseButton.textContent = paused ? 'Resume' : 'Pause';
    pauseButton.setAttribute('aria-pressed', String(paused));
    if (!paused) renderList();
  });

  function add(incoming) {
    requests = mergeRequests(requests, incoming, kMaxShown);
    if (!paused) renderList();
  }

  function renderList() {
    if (requests.length === 0) {
      replace(listBox, empty('No finished requests yet. They appear here as they end.'));
      return;
    }
    replace(listBox, table([
      { label: 'Time', value: (r) => h('span', { class: 'nowrap', title: formatTime(r.started_at) }, formatTime(r.started_at).slice(11)) },
      { label: 'Request', value: (r) => h('button', { type: 'button', class: 'link code', testid: 'live-open', title: r.id,
        'aria-expanded': String(r.id === selectedId), onclick: () => openRequest(r) }, shortId(r.id)) },
      { label: 'Key', value: (r) => r.gateway_key || NONE },
      { label: 'Model', value: (r) => r.model || NONE },
      { label: 'Channel', value: (r) => r.channel || NONE },
      { label: 'Status', value: (r) => h('span', { class: `badge ${statusClass(r.status)}` }, requestOutcome(r)) },
      { label: 'Duration', value: (r) => formatMs(r.total_ms) },
      { label: 'Tokens', value: (r) => formatTokens(r.usage?.total_tokens) },
    ], requests, { testid: 'live-table', rowTestid: () => 'live-row' }));
  }

  async function openRequest(request) {
    selectedId = request.id;
    split.classList.add('has-detail');
    renderList();
    const payloads = h('div', { testid: 'live-payloads' }, loading('Loading payloads…'));
    replace(detail,
      h('h2', {}, `Request ${request.id}`),
      h('dl', { class: 'kv' },
        ...pair('Started', formatTime(request.started_at)), ...pair('Route', request.route ?? NONE),
        ...pair('Gateway key', request.gateway_key ?? NONE), ...pair('Model', request.model ?? NONE),
        ...pair('Status', requestOutcome(request)), ...pair('First byte', formatMs(request.first_byte_ms)),
        ...pair('Total', formatMs(request.total_ms)), ...pair('Cost', formatCost(request.cost_usd))),
      h('h3', {}, 'Attempts'),
      (request.attempts ?? []).length === 0 ? empty('No upstream attempt (answered by the gateway).')
        : attemptList(request),
      h('h3', {}, 'Payloads'), payloads);
    detail.focus();
    try {
      const answer = await get(`/admin/requests/${seg(request.id)}/payloads`);
      const rows = answer?.data ?? [];
      if (selectedId !== request.id) return;
      if (rows.length === 0) {
        replace(payloads, empty('Not captured.'));
        return;
      }
      replace(payloads, rows.map((row) => h('details', { class: 'payload' },
        h('summary', {}, `attempt ${row.attempt} · ${row.kind}${row.truncated ? ' (truncated)' : ''}`),
        h('pre', {}, row.body ?? ''))));
    } catch (error) {
      if (selectedId !== request.id) return;
      replace(payloads, error.status === 404 ? empty('Not captured.') : errorBox(error));
    }
  }

  function startPolling(reason) {
    status.textContent = `${reason} Reading the request log every ${kPollMs / 1000} s.`;
    const poll = async () => {
      try {
        const page = await get('/admin/requests?limit=50&state=done');
        add(page.requests ?? []);
      } catch (error) {
        replace(listBox, errorBox(error));
      }
      if (!closed) pollTimer = setTimeout(poll, kPollMs);
    };
    poll();
  }

  if (typeof EventSource === 'function') {
    source = new EventSource('/admin/requests/live');
    source.addEventListener('open', () => {
      status.textContent = 'Live';
      status.className = 'stream-status ok-text';
      if (requests.length === 0) renderList();
    });
    source.addEventListener('request', (event) => {
      const request = parseRequestEvent(event.data);
      if (request) add([request]);
    });
    source.addEventListener('error', () => {
      if (closed) return;
      if (source.readyState === EventSource.CLOSED) {
        source.close();
        source = null;
        startPolling('The live stream is not available.');
      } else {
        status.textContent = 'Reconnecting…';
        status.className = 'stream-status warn-text';
      }
    });
  } else {
    startPolling('This browser has no EventSource.');
  }

  return () => {
    closed = true;
    source?.close();
    clearTimeout(pollTimer);
  };
}

function pair(label, value) {
  return [h('dt', {}, label), h('dd', {}, value)];
}

/** The attempts in the order they were made, one block each: a table would not fit the detail
 *  column. The request's usage belongs to its last attempt (the one that answered). */
function attemptList(request) {
  const last = request.attempts.length - 1;
  return h('ol', { class: 'attempts', testid: 'attempts-table' }, request.attempts.map((a, i) =>
    h('li', { class: 'attempt', testid: 'attempt-row' },
      h('div', { class: 'attempt-head' },
        h('strong', {}, `#${a.attempt}`), ' ', a.channel ?? NONE, ' · ', h('code', {}, a.key_label ?? NONE), ' · ',
        h('span', { class: `badge ${statusClass(a.status)}` }, `${a.status ?? NONE} ${a.outcome ?? ''}`)),
      h('dl', { class: 'kv compact' },
        ...pair('Upstream model', a.upstream_model ?? NONE),
        ...pair('First byte', formatMs(a.first_byte_ms)), ...pair('First token', formatMs(a.first_token_ms)),
        ...pair('Duration', formatMs(a.duration_ms)),
        ...pair('Tokens', i === last ? tokensOf(request.usage) : NONE)))));
}

function tokensOf(usage) {
  if (!usage) return NONE;
  return `${formatTokens(usage.input_tokens)} in / ${formatTokens(usage.output_tokens)} out`;
}
