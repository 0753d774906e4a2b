// Formatting of the numbers the admin API returns: durations, token counts, costs, shares, times.
// Pure functions (no DOM), unit-tested in Node; every one renders a missing value as an em dash.

export const NONE = '—';

const isNumber = (v) => typeof v === 'number' && Number.isFinite(v);

/** A duration in milliseconds: "0.4 ms", "35 ms", "2.60 s", "3 min 5 s". */
export function formatMs(ms) {
  if (!isNumber(ms)) return NONE;
  if (ms < 10) return `${(Math.round(ms * 10) / 10).toString()} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60000) return `${(ms / 1000).toFixed(2)} s`;
  const minutes = Math.floor(ms / 60000);
  const seconds = Math.round((ms % 60000) / 1000);
  return seconds ? `${minutes} min ${seconds} s` : `${minutes} min`;
}

/** A token count: 950, "1.2k", "3.4M", "1.2B". */
export function formatTokens(n) {
  if (!isNumber(n)) return NONE;
  const abs = Math.abs(n);
  const scaled = (value, unit) => `${trim(value.toFixed(value < 10 ? 1 : 0))}${unit}`;
  if (abs < 1000) return String(Math.round(n));
  if (abs < 1e6) return scaled(n / 1e3, 'k');
  if (abs < 1e9) return scaled(n / 1e6, 'M');
  return scaled(n / 1e9, 'B');
}

function trim(text) {
  return text.endsWith('.0') ? text.slice(0, -2) : text;
}

/** US dollars: "$12.84", "$0.0042" (small amounts keep two significant digits), "$1,234". */
export function formatCost(usd) {
  if (!isNumber(usd)) return NONE;
  if (usd === 0) return '$0.00';
  const abs = Math.abs(usd);
  const sign = usd < 0 ? '-' : '';
  if (abs < 0.01) return `${sign}$${Number(abs.toPrecision(2)).toString()}`;
  if (abs < 1000) return `${sign}$${abs.toFixed(2)}`;
  return `${sign}$${Math.round(abs).toLocaleString('en-US')}`;
}

/** A ratio as a percentage: 0.99 → "99 %", 0.99512 → "99.51 %". */
export function formatPercent(ratio, digits = 2) {
  if (!isNumber(ratio)) return NONE;
  const value = (ratio * 100).toFixed(digits);
  return `${value.replace(/\.?0+$/, '')} %`;
}

/** Requests per second: "0.02/s", "12.5/s", "1,200/s". */
export function formatRate(perSecond) {
  if (!isNumber(perSecond)) return NONE;
  if (perSecond === 0) return '0/s';
  if (perSecond < 1) return `${Number(perSecond.toPrecision(2))}/s`;
  if (perSecond < 100) return `${trim(perSecond.toFixed(1))}/s`;
  return `${Math.round(perSecond).toLocaleString('en-US')}/s`;
}

/** An RFC 3339 instant as "2024-05-01 12:00:30" (UTC; the API's zone, so logs line up). */
export function formatTime(iso) {
  if (typeof iso !== 'string' || !iso) return NONE;
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  return new Date(t).toISOString().replace('T', ' ').replace(/\.\d+Z$|Z$/, '');
}

/** A count of seconds as a short span: "45 s", "3 min", "2 h 5 min", "3 d". */
export function formatSeconds(seconds) {
  if (!isNumber(seconds)) return NONE;
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86400) {
    const minutes = Math.floor((s % 3600) / 60);
    return minutes ? `${Math.floor(s / 3600)} h ${minutes} min` : `${Math.floor(s / 3600)} h`;
  }
  return `${Math.floor(s / 86400)} d`;
}

/** "used / limit" where a limit of 0 (or none) means unlimited. */
export function formatAgainstLimit(used, limit, format = String) {
  const shown = isNumber(used) ? format(used) : NONE;
  return isNumber(limit) && limit > 0 ? `${shown} / ${format(limit)}` : `${shown} (no limit)`;
}

/** The share of a limit used, 0..1 (null without a limit). */
export function limitShare(used, limit) {
  if (!isNumber(used) || !isNumber(limit) || limit <= 0) return null;
  return Math.min(1, Math.max(0, used / limit));
}
