// Checks of the console's forms before anything is sent (the gateway validates again and its
// issues are shown too), plus the small helpers the forms share: key labels, generated keys.

const kNamePattern = /^[A-Za-z0-9._-]{1,64}$/;
export const PROTOCOLS = ['openai-chat', 'openai-responses', 'anthropic', 'gemini'];
export const PROXY_MODES = ['network', 'url_prefix', 'direct', 'node'];

/** An issue list entry as the API gives them. */
const issue = (path, message) => ({ path, message });

export function checkName(name, path = 'name') {
  if (!name) return [issue(path, 'required')];
  if (!kNamePattern.test(name)) return [issue(path, '1..64 of A-Z a-z 0-9 . _ -')];
  return [];
}

function checkUrl(url, path, schemes) {
  if (!url) return [issue(path, 'required')];
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    return [issue(path, 'not a URL')];
  }
  const scheme = parsed.protocol.slice(0, -1);
  return schemes.includes(scheme) ? [] : [issue(path, `must start with ${schemes.join(':// or ')}://`)];
}

/** Splits a list field typed as lines or commas; blanks dropped. */
export function splitList(text) {
  return String(text ?? '').split(/[\n,]/).map((s) => s.trim()).filter(Boolean);
}

/** The new-channel form → `{value, issues}`: the channel body to POST when there is no issue. */
export function channelFromForm({ name, protocol, base_url: baseUrl, keys, models }) {
  const keyList = splitList(keys);
  const modelList = splitList(models);
  const issues = [
    ...checkName(name?.trim()),
    ...(PROTOCOLS.includes(protocol) ? [] : [issue('protocol', `one of ${PROTOCOLS.join(', ')}`)]),
    ...checkUrl(baseUrl?.trim(), 'base_url', ['http', 'https']),
    ...(keyList.length ? [] : [issue('keys', 'at least one key')]),
    ...keyList.filter((k) => /\s/.test(k) || k === '***').map(() => issue('keys', 'a key has no spaces and is not ***')),
    ...(modelList.length ? [] : [issue('models', 'at least one model')]),
  ];
  return {
    value: { name: name?.trim(), protocol, base_url: baseUrl?.trim(), keys: keyList, models: modelList },
    issues,
  };
}

const kLimitFields = ['rpm', 'rpd', 'tpm', 'concurrency', 'daily_tokens', 'monthly_tokens',
  'daily_cost_usd', 'monthly_cost_usd'];
export const LIMIT_FIELDS = kLimitFields;

/** The new-gateway-key form → `{value, issues}`; empty limits are left out. */
export function gatewayKeyFromForm({ name, ...limits }) {
  const issues = [...checkName(name?.trim())];
  const value = { name: name?.trim() };
  const chosen = {};
  for (const field of kLimitFields) {
    const raw = String(limits[field] ?? '').trim();
    if (!raw) continue;
    const number = Number(raw);
    const isCost = field.endsWith('_usd');
    if (!Number.isFinite(number) || number <= 0 || (!isCost && !Number.isInteger(number))) {
      issues.push(issue(`limits.${field}`, isCost ? 'a number > 0' : 'an integer ≥ 1'));
      continue;
    }
    chosen[field] = number;
  }
  if (Object.keys(chosen).length) value.limits = chosen;
  return { value, issues };
}

/** The new-proxy form → `{value, issues}`. */
export function proxyFromForm({ name, mode, url }) {
  const issues = [...checkName(name?.trim())];
  if (!PROXY_MODES.includes(mode)) issues.push(issue('mode', `one of ${PROXY_MODES.join(', ')}`));
  const value = { name: name?.trim(), mode };
  if (mode !== 'direct') {
    const schemes = mode === 'network' ? ['http', 'https', 'socks5', 'socks5h'] : ['http', 'https'];
    issues.push(...checkUrl(url?.trim(), 'url', schemes));
    value.url = url?.trim();
  }
  return { value, issues };
}

/** A JSON editor's text → `{value}` (an object) or `{issues}` naming where parsing stopped. */
export function parseJsonObject(text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { issues: [issue('(json)', error.message)] };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    return { issues: [issue('(json)', 'must be a JSON object')] };
  }
  return { value };
}

/** An API issue's path made relative to the edited object: `channels[2].keys[0]` → `keys[0]`. */
export function relativeIssuePath(path, section) {
  const text = String(path ?? '');
  const match = new RegExp(`^${section}(\\[\\d+\\]|\\.[^.[]+)\\.?`).exec(text);
  if (!match) return text;
  return text.slice(match[0].length) || '(object)';
}

/** A channel key's label as the gateway prints it: `<channel>/<name>` or `<channel>#<index>`. */
export function keyLabel(channel, key, index) {
  return key && typeof key === 'object' && key.name ? `${channel}/${key.name}` : `${channel}#${index}`;
}

/** Whether a channel key entry is enabled (a bare string always is). */
export function keyEnabled(key) {
  return !(key && typeof key === 'object' && key.enabled === false);
}

/** The body of PUT /admin/channels/{name}/keys/{key} that enables or disables one key. */
export function keyEnabledChange(enabled) {
  return { enabled };
}

/** A gateway key as the gateway generates them: `sk-llmux-` and 48 hex digits. `fill` fills a
 *  Uint8Array with random bytes (crypto.getRandomValues). */
export function generateGatewayKey(fill = (bytes) => globalThis.crypto.getRandomValues(bytes)) {
  const bytes = new Uint8Array(24);
  fill(bytes);
  return `sk-llmux-${[...bytes].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

export const FREEZE_PERIODS = ['today', 'week', 'month', 'forever'];

/** The freeze form → `{value, issues}`: the body of POST /admin/freezes. No key freezes the whole
 *  channel; `minutes` (1..525600) or a `period` (to the end of the UTC day, week or month, or
 *  forever), not both; neither: until lifted. */
export function freezeFromForm({ channel, key, model, minutes, period, reason }) {
  const issues = [];
  const value = { channel };
  if (key) value.key = key;
  if (model) value.model = model;
  const rawMinutes = String(minutes ?? '').trim();
  if (rawMinutes) {
    const n = Number(rawMinutes);
    if (!Number.isInteger(n) || n < 1 || n > 525600) issues.push(issue('minutes', 'an integer 1..525600'));
    else value.minutes = n;
  }
  if (period) {
    if (!FREEZE_PERIODS.includes(period)) issues.push(issue('period', `one of ${FREEZE_PERIODS.join(', ')}`));
    else if (rawMinutes) issues.push(issue('period', 'minutes or a period, not both'));
    else value.period = period;
  }
  if (reason?.trim()) value.reason = reason.trim();
  return { value, issues };
}

/** What an import did or would do, in words: its changes (`changes`, or `applied` as older
 *  gateways said) and the top-level settings it left to the file (`ignored`). */
export function describeImport(answer) {
  const changes = answer?.changes ?? answer?.applied ?? [];
  const words = changes.map((c) => (typeof c === 'string' ? c : [c.action, c.section && `${c.section}/${c.name}`].filter(Boolean).join(' ')));
  const text = words.length ? words.join(', ') : 'no change';
  const ignored = answer?.ignored ?? [];
  return ignored.length ? `${text}; left to the file: ${ignored.join(', ')}` : text;
}
