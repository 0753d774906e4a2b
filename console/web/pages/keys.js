// Gateway keys: usage against limits and budgets (/admin/limits, /admin/usage by key), and for
// admins create (the generated key shown once), rotate (a key generated here, shown once) and
// revoke.
import { del, get, post, put, seg } from '../api.js';
import { actionButton, confirmButton, copyText, empty, errorBox, field, formValues, h, loading, replace, submitting, table } from '../lib/dom.js';
import { NONE, formatAgainstLimit, formatCost, formatTokens, limitShare } from '../lib/format.js';
import { periodStarts, spent } from '../lib/limits.js';
import { usageQuery } from '../lib/series.js';
import { LIMIT_FIELDS, gatewayKeyFromForm, generateGatewayKey } from '../lib/validate.js';

export function render(root, { canChange }) {
  const body = h('div', { testid: 'keys' }, loading());
  const topBox = h('div');
  replace(root,
    h('div', { class: 'page-head' }, h('h1', {}, 'Gateway keys'),
      canChange ? h('div', { class: 'controls' }, h('button', { type: 'button', class: 'btn primary', testid: 'key-new',
        onclick: () => replace(topBox, createForm((answer) => { replace(topBox, secretOnce(answer.name, answer.key)); load(); },
          () => replace(topBox))) }, 'New key')) : null),
    topBox, body);
  let alive = true;

  async function load() {
    const now = Date.now();
    const starts = periodStarts(now);
    const byKey = (from) => get(`/admin/usage?${usageQuery({ from, to: now }, { group_by: 'gateway_key' })}`);
    const [list, limits, usage, today, month] = await Promise.allSettled([
      get('/admin/gateway_keys'), get('/admin/limits'), byKey(now - 86400000), byKey(starts.day), byKey(starts.month)]);
    if (!alive) return;
    if (list.status === 'rejected') {
      replace(body, errorBox(list.reason));
      return;
    }
    const views = list.value.gateway_keys ?? [];
    const limitsByName = new Map((limits.value?.gateway_keys ?? []).map((k) => [k.name, k]));
    const rowsByName = (answer) => new Map((answer.value?.rows ?? []).map((r) => [r.group, r]));
    const usageByName = rowsByName(usage);
    const todayByName = rowsByName(today);
    const monthByName = rowsByName(month);
    // Per key, the log's sums of the UTC day and month (null: no request; undefined: unknown).
    const periods = (name) => ({
      day: today.status === 'fulfilled' ? todayByName.get(name) ?? null : undefined,
      month: month.status === 'fulfilled' ? monthByName.get(name) ?? null : undefined,
    });
    replace(body,
      limits.status === 'rejected' ? errorBox({ message: `Limits: ${limits.reason.message}` }, { testid: 'limits-error' }) : null,
      usage.status === 'rejected' ? errorBox({ message: `Usage: ${usage.reason.message}` }, { testid: 'usage-error' }) : null,
      views.length === 0 ? empty('No gateway keys.') : table([
        { label: 'Name', value: (v) => h('strong', {}, v.name) },
        { label: 'Last 24 h', value: (v) => usageCell(usageByName.get(v.name)) },
        { label: 'In flight', value: (v) => formatAgainstLimit(limitsByName.get(v.name)?.in_flight, limitsByName.get(v.name)?.limits?.concurrency) },
        { label: 'Tokens today', value: (v) => meter(spent(limitsByName.get(v.name), periods(v.name), 'tokens_today'), formatTokens) },
        { label: 'Tokens this month', value: (v) => meter(spent(limitsByName.get(v.name), periods(v.name), 'tokens_this_month'), formatTokens) },
        { label: 'Cost today', value: (v) => meter(spent(limitsByName.get(v.name), periods(v.name), 'cost_today'), formatCost) },
        { label: 'Cost this month', value: (v) => meter(spent(limitsByName.get(v.name), periods(v.name), 'cost_this_month'), formatCost) },
        { label: 'Rate limits', value: (v) => rateLimits(v.object?.limits) },
        ...(canChange ? [{ label: 'Actions', value: (v) => h('div', { class: 'buttons' },
          actionButton('Rotate', async () => {
            const key = generateGatewayKey();
            await put(`/admin/gateway_keys/${seg(v.name)}`, { ...v.object, key }, { version: v.version });
            replace(topBox, secretOnce(v.name, key));
            await load();
          }, { testid: 'gateway-key-rotate' }),
          confirmButton('Revoke', async () => {
            await del(`/admin/gateway_keys/${seg(v.name)}`, { version: v.version });
            await load();
          }, { testid: 'gateway-key-revoke' })) }] : []),
      ], views, { testid: 'keys-table', rowTestid: (v) => `gateway-key-${v.name}` }));
  }

  load();
  return () => {
    alive = false;
  };
}

function usageCell(row) {
  if (!row) return h('span', { class: 'muted' }, 'no requests');
  return h('span', {}, `${row.requests} req · ${formatTokens((row.input_tokens ?? 0) + (row.output_tokens ?? 0))} tok · ${formatCost(row.cost_usd)}`);
}

/** "used / limit" with a bar when there is a limit. */
function meter({ used, limit }, format) {
  if (used === null) return NONE;
  const share = limitShare(used, limit);
  return h('div', { class: 'meter-cell' },
    h('span', {}, formatAgainstLimit(used, limit, format)),
    share === null ? null : h('meter', { min: '0', max: '1', value: String(share), high: '0.8', optimum: '0',
      'aria-label': 'share of the limit used' }));
}

function rateLimits(limits) {
  const shown = ['rpm', 'rpd', 'tpm'].filter((k) => limits?.[k]).map((k) => `${k} ${limits[k]}`);
  return shown.length ? shown.join(' · ') : h('span', { class: 'muted' }, 'none');
}

/** A secret shown once, with a copy button: the gateway never shows it again. */
function secretOnce(name, key) {
  const input = h('input', { type: 'text', readonly: true, value: key, class: 'code', id: 'secret-once',
    testid: 'secret-value', 'aria-label': `The key of ${name}` });
  const copied = h('span', { class: 'muted', role: 'status' });
  return h('div', { class: 'panel secret', testid: 'secret-once' },
    h('h2', {}, `Key of ${name}`),
    h('p', {}, 'Copy it now: it is shown only this once.'),
    h('div', { class: 'buttons' }, input,
      h('button', { type: 'button', class: 'btn primary', testid: 'secret-copy', onclick: async () => {
        copied.textContent = (await copyText(key, input)) ? 'Copied.' : 'Selected: press Ctrl+C.';
      } }, 'Copy'), copied));
}

function createForm(onCreated, onCancel) {
  const result = h('div', { 'aria-live': 'polite', testid: 'key-create-result' });
  const form = h('form', { class: 'panel', novalidate: true, testid: 'key-form' },
    h('h2', {}, 'New gateway key'),
    h('div', { class: 'grid' },
      field('Name', { name: 'name', required: true, testid: 'key-name' }),
      LIMIT_FIELDS.map((f) => field(f.replaceAll('_', ' '), { name: f, type: 'number', min: '0',
        step: f.endsWith('_usd') ? '0.01' : '1', inputmode: 'decimal', testid: `key-limit-${f}` }))),
    h('p', { class: 'muted small' }, 'Empty limits are not set. The key is generated by the gateway.'),
    h('div', { class: 'buttons' },
      h('button', { type: 'submit', class: 'btn primary', testid: 'key-create' }, 'Create'),
      h('button', { type: 'button', class: 'btn', onclick: onCancel }, 'Cancel')),
    result);
  form.addEventListener('submit', (event) => submitting(event, form, result, async () => {
    const { value, issues } = gatewayKeyFromForm(formValues(form));
    if (issues.length) throw Object.assign(new Error('Fix these first:'), { issues });
    const answer = await post('/admin/gateway_keys', value);
    onCreated({ name: value.name, key: answer?.key });
  }));
  return form;
}
