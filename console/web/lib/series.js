// Chart series from /admin/usage rows: the time ranges the overview offers, the buckets they are
// read in, and the per-bucket values (gaps filled: a bucket without requests has no row).

const kBucketSeconds = { minute: 60, hour: 3600, day: 86400 };

/** The overview's ranges: last hour by minute, last day by hour, 30 days by day. */
export const RANGES = {
  hour: { label: 'Last hour', seconds: 3600, bucket: 'minute' },
  day: { label: 'Last 24 hours', seconds: 86400, bucket: 'hour' },
  month: { label: 'Last 30 days', seconds: 30 * 86400, bucket: 'day' },
};

/** `{from, to, bucket}` (ms) for a range name at `nowMs`; `from` is floored to its bucket so the
 *  first bucket is whole, `to` is now. */
export function rangeFor(name, nowMs) {
  const range = RANGES[name];
  if (!range) throw new Error(`unknown range ${name}`);
  const step = kBucketSeconds[range.bucket] * 1000;
  const from = Math.floor((nowMs - range.seconds * 1000) / step) * step;
  return { from, to: nowMs, bucket: range.bucket };
}

/** The query string of /admin/usage for a range (times as RFC 3339). */
export function usageQuery({ from, to, bucket }, extra = {}) {
  const params = new URLSearchParams({
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
  });
  if (bucket) params.set('bucket', bucket);
  for (const [name, value] of Object.entries(extra)) {
    if (value !== undefined && value !== null) params.set(name, String(value));
  }
  return params.toString();
}

/** Success rate as the SLO counts it: succeeded / (succeeded + failed); null without either. */
export function successRate(row) {
  const ok = row?.succeeded ?? 0;
  const failed = row?.failed ?? 0;
  return ok + failed > 0 ? ok / (ok + failed) : null;
}

/** Series over every bucket of [from, to): `x` in Unix seconds (uPlot's), `requests`, `rps`,
 *  `successRate`, `firstTokenP50`, `firstTokenP95`, `cost`. Buckets without a row have 0 requests
 *  and cost and null rates and latencies (a gap, not a zero). Rows outside the range are left
 *  out; rows of one bucket (a grouped answer) are added up, latencies taking the largest. */
export function buildUsageSeries(rows, { from, to, bucket }) {
  const stepMs = kBucketSeconds[bucket] * 1000;
  if (!stepMs) throw new Error(`unknown bucket ${bucket}`);
  const first = Math.floor(from / stepMs) * stepMs;
  const count = Math.max(0, Math.ceil((to - first) / stepMs));
  const merged = new Map();
  for (const row of rows ?? []) {
    const at = Date.parse(row.bucket);
    if (Number.isNaN(at) || at < first || at >= first + count * stepMs) continue;
    const index = Math.floor((at - first) / stepMs);
    const sum = merged.get(index) ?? { requests: 0, succeeded: 0, failed: 0, cost_usd: 0,
      p50: null, p95: null };
    sum.requests += row.requests ?? 0;
    sum.succeeded += row.succeeded ?? 0;
    sum.failed += row.failed ?? 0;
    sum.cost_usd += row.cost_usd ?? 0;
    sum.p50 = maxOrNull(sum.p50, row.first_token_p50_ms);
    sum.p95 = maxOrNull(sum.p95, row.first_token_p95_ms);
    merged.set(index, sum);
  }
  const series = { x: [], requests: [], rps: [], successRate: [], firstTokenP50: [],
    firstTokenP95: [], cost: [] };
  for (let i = 0; i < count; i += 1) {
    const sum = merged.get(i);
    series.x.push((first + i * stepMs) / 1000);
    series.requests.push(sum ? sum.requests : 0);
    series.rps.push(sum ? sum.requests / (stepMs / 1000) : 0);
    series.successRate.push(sum ? nullToPercent(successRate(sum)) : null);
    series.firstTokenP50.push(sum ? sum.p50 : null);
    series.firstTokenP95.push(sum ? sum.p95 : null);
    series.cost.push(sum ? sum.cost_usd : 0);
  }
  return series;
}

function maxOrNull(a, b) {
  if (typeof b !== 'number') return a;
  return typeof a === 'number' ? Math.max(a, b) : b;
}

function nullToPercent(ratio) {
  return ratio === null ? null : ratio * 100;
}

/** How many values of a series are real (non-null, and for counts non-zero). */
export function pointsWithData(values) {
  return values.filter((v) => v !== null && v !== undefined && v !== 0).length;
}

/** The totals card of a range from the ungrouped, unbucketed row (or none). */
export function summarize(row, { from, to }) {
  const seconds = Math.max(1, (to - from) / 1000);
  return {
    requests: row?.requests ?? 0,
    rps: (row?.requests ?? 0) / seconds,
    successRate: row ? successRate(row) : null,
    firstTokenP50: row?.first_token_p50_ms ?? null,
    firstTokenP95: row?.first_token_p95_ms ?? null,
    cost: row?.cost_usd ?? 0,
    tokens: (row?.input_tokens ?? 0) + (row?.output_tokens ?? 0),
  };
}

/** The SLO's success-rate target from the exported YAML (`slo: {success_rate: 0.995}` or the
 *  block form); 0.99 (the gateway's default) when it is not set. */
export function sloTarget(yaml) {
  const text = typeof yaml === 'string' ? yaml : '';
  const flow = /^slo:\s*\{([^}]*)\}/m.exec(text);
  const scope = flow ? flow[1] : blockOf(text, 'slo');
  const match = /success_rate:\s*([0-9.]+)/.exec(scope ?? '');
  const value = match ? Number(match[1]) : NaN;
  return Number.isFinite(value) && value > 0 && value < 1 ? value : 0.99;
}

function blockOf(text, key) {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => new RegExp(`^${key}:\\s*$`).test(line));
  if (start < 0) return null;
  const body = [];
  for (const line of lines.slice(start + 1)) {
    if (line.trim() && !/^\s/.test(line)) break;
    body.push(line);
  }
  return body.join('\n');
}
