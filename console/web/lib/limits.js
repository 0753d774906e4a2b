// What a gateway key has spent, for its limits' columns. The limiter's own counters
// (/admin/limits) are what it enforces, but it counts only what a limit is set for: without a
// limit its figure stays 0. There the request log's sums (/admin/usage over the UTC day or month)
// say what was used.

/** The four spending columns: the limiter's member, the limit's, and the usage row's fields. */
export const SPENDING = {
  tokens_today: { limit: 'daily_tokens', period: 'day', from: (row) => tokensOf(row) },
  tokens_this_month: { limit: 'monthly_tokens', period: 'month', from: (row) => tokensOf(row) },
  cost_today: { limit: 'daily_cost_usd', period: 'day', from: (row) => row?.cost_usd ?? 0 },
  cost_this_month: { limit: 'monthly_cost_usd', period: 'month', from: (row) => row?.cost_usd ?? 0 },
};

function tokensOf(row) {
  return (row?.input_tokens ?? 0) + (row?.output_tokens ?? 0);
}

/** `{used, limit}` of one column for one key: the limiter's count under a limit, else the
 *  log's (`usage` = {day, month} rows of this key, either possibly missing); used is null when
 *  neither is known. */
export function spent(entry, usage, column) {
  const spec = SPENDING[column];
  const limit = entry?.limits?.[spec.limit] ?? 0;
  if (limit > 0 && typeof entry?.spending?.[column] === 'number') return { used: entry.spending[column], limit };
  const row = usage?.[spec.period];
  if (row === undefined) return { used: null, limit };
  return { used: spec.from(row), limit };
}

/** The start of the UTC day and month of `nowMs`. */
export function periodStarts(nowMs) {
  const now = new Date(nowMs);
  return {
    day: Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()),
    month: Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1),
  };
}
