// The live tail's data: text/event-stream parsing (for clients without EventSource) and the
// bounded, newest-first list of requests the events are merged into.

/** Splits an event-stream text into complete events `{event, data, id}` and the unfinished rest
 *  (to prepend to the next chunk). Comments (": ping") and events without data are skipped. */
export function parseEventStream(text) {
  const events = [];
  const normalized = text.replace(/\r\n?/g, '\n');
  const blocks = normalized.split('\n\n');
  const rest = blocks.pop();
  for (const block of blocks) {
    const event = { event: 'message', data: '', id: null };
    const data = [];
    for (const line of block.split('\n')) {
      if (!line || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'event') event.event = value;
      else if (field === 'data') data.push(value);
      else if (field === 'id') event.id = value;
    }
    if (data.length === 0) continue;
    event.data = data.join('\n');
    events.push(event);
  }
  return { events, rest };
}

/** One `request` event's data as a request object, or null when it is not one. */
export function parseRequestEvent(data) {
  let value;
  try {
    value = JSON.parse(data);
  } catch {
    return null;
  }
  if (!value || typeof value !== 'object' || typeof value.id !== 'string') return null;
  return value;
}

/** `list` with `incoming` merged in: one entry per request id (the live tail may send a request
 *  twice: once replayed from the log, once as it finished), newest first, at most `max`. A copy
 *  with the log's seq is kept over one without (live events carry seq 0). Newest is by start
 *  time, then seq. */
export function mergeRequests(list, incoming, max = 200) {
  const byId = new Map(list.map((r) => [r.id, r]));
  for (const request of incoming) {
    const known = byId.get(request.id);
    const knownSeq = known?.seq > 0;
    byId.set(request.id, knownSeq && !(request.seq > 0) ? { ...request, seq: known.seq } : request);
  }
  const started = (r) => {
    const t = Date.parse(r.started_at ?? '');
    return Number.isNaN(t) ? 0 : t;
  };
  const merged = [...byId.values()];
  merged.sort((a, b) => started(b) - started(a) || (b.seq ?? 0) - (a.seq ?? 0));
  return merged.slice(0, max);
}

/** The one-line outcome of a request: "200", "502 upstream closed the stream", "in progress". */
export function requestOutcome(request) {
  if (request.state === 'in_progress') return 'in progress';
  const status = request.status ?? '—';
  return request.error ? `${status} ${request.error}` : String(status);
}

/** A status class for styling: ok (2xx), warn (4xx), bad (5xx or none). */
export function statusClass(status) {
  if (typeof status !== 'number') return 'bad';
  if (status < 400) return 'ok';
  if (status < 500) return 'warn';
  return 'bad';
}

/** A short form of a request id for the list (the full one is in the detail). */
export function shortId(id) {
  return typeof id === 'string' && id.length > 12 ? id.slice(0, 12) : String(id ?? '');
}
