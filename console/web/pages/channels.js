// Channels: each with its health (breakers, freezes, pauses, learned latency, probe results),
// and for admins the changes: create, enable/disable, edit as JSON, delete, freeze the channel,
// reset a breaker, lift a freeze; per key: freeze, probe, enable/disable, rotate.
import { del, get, post, put, seg } from '../api.js';
import { actionButton, confirmButton, empty, errorBox, field, formValues, h, loading, replace, submitting, table } from '../lib/dom.js';
import { objectEditor } from '../lib/editor.js';
import { NONE, formatMs, formatSeconds, formatTime } from '../lib/format.js';
import { FREEZE_PERIODS, PROTOCOLS, channelFromForm, freezeFromForm, keyEnabled, keyEnabledChange, keyLabel } from '../lib/validate.js';

/** The health sources, each read on its own: one missing route leaves the others shown. */
const kHealth = {
  breakers: ['/admin/breakers', 'breakers'],
  freezes: ['/admin/freezes', 'freezes'],
  pauses: ['/admin/pauses', 'pauses'],
  penalties: ['/admin/latency-penalties', 'latency_penalties'],
  probes: ['/admin/probes', 'probes'],
  buckets: ['/admin/limits', 'buckets'],
};

export function render(root, { canChange }) {
  const body = h('div', { testid: 'channels' }, loading());
  const createBox = h('div');
  const head = h('div', { class: 'page-head' }, h('h1', {}, 'Channels'),
    canChange ? h('div', { class: 'controls' }, h('button', { type: 'button', class: 'btn primary', testid: 'channel-new',
      onclick: () => replace(createBox, createForm(() => { replace(createBox); load(); }, () => replace(createBox))) }, 'New channel')) : null);
  replace(root, head, createBox, body);
  let alive = true;

  async function load() {
    const [list, ...health] = await Promise.allSettled([
      get('/admin/channels'), ...Object.values(kHealth).map(([path]) => get(path))]);
    if (!alive) return;
    if (list.status === 'rejected') {
      replace(body, errorBox(list.reason));
      return;
    }
    const state = {};
    const missing = [];
    Object.entries(kHealth).forEach(([name, [path, member]], i) => {
      const answer = health[i];
      if (answer.status === 'fulfilled') state[name] = answer.value?.[member] ?? [];
      else {
        state[name] = [];
        missing.push(`${path}: ${answer.reason.message}`);
      }
    });
    const views = list.value.channels ?? [];
    replace(body,
      missing.length ? h('div', { class: 'state error', role: 'alert', testid: 'health-errors' },
        h('p', {}, 'Some health information could not be read:'), h('ul', {}, missing.map((m) => h('li', {}, m)))) : null,
      views.length === 0 ? empty('No channels yet.') : views.map((view) => channelCard(view, state, { canChange, reload: load })));
  }

  load();
  return () => {
    alive = false;
  };
}

function channelCard(view, state, { canChange, reload }) {
  const channel = view.object ?? {};
  const name = view.name;
  const enabled = channel.enabled !== false;
  const editBox = h('div');
  const keyBox = h('div');
  // Only breakers that hold traffic back: a closed one has nothing to show or reset.
  const breakers = state.breakers.filter((b) => b.channel === name &&
    (b.failure?.state !== 'closed' || b.storm?.state !== 'closed'));
  const freezes = state.freezes.filter((f) => f.channel === name);
  const keys = Array.isArray(channel.keys) ? channel.keys : [];
  const labels = keys.map((k, i) => keyLabel(name, k, i));

  const putChannel = (object) => put(`/admin/channels/${seg(name)}`, object, { version: view.version });
  // One key changed on its own (by its position): the other keys keep their secrets.
  const putKey = (index, change) => put(`/admin/channels/${seg(name)}/keys/${index}`, change, { version: view.version });
  const models = [...(channel.models ?? []), ...Object.keys(channel.model_map ?? {})];

  return h('article', { class: 'panel channel', testid: `channel-${name}` },
    h('div', { class: 'channel-head' },
      h('h2', {}, name),
      h('span', { class: `badge ${enabled ? 'ok' : 'muted'}`, testid: 'channel-state' }, enabled ? 'enabled' : 'disabled'),
      h('span', { class: 'muted' }, `${channel.protocol ?? (channel.protocols ? 'several protocols' : NONE)} · ${view.source} v${view.version}`),
      canChange ? h('div', { class: 'buttons' },
        actionButton(enabled ? 'Disable' : 'Enable', async () => {
          await putChannel({ ...channel, enabled: !enabled });
          await reload();
        }, { testid: 'channel-toggle' }),
        h('button', { type: 'button', class: 'btn', testid: 'channel-freeze', onclick: () => replace(keyBox,
          freezeForm(name, null, models, () => { replace(keyBox); reload(); }, () => replace(keyBox))) }, 'Freeze'),
        h('button', { type: 'button', class: 'btn', testid: 'channel-edit', onclick: () => replace(editBox,
          objectEditor('channels', view, { onSaved: reload, onCancel: () => replace(editBox) })) }, 'Edit JSON'),
        confirmButton('Delete', async () => {
          await del(`/admin/channels/${seg(name)}`, { version: view.version });
          await reload();
        }, { testid: 'channel-delete' })) : null),
    h('p', { class: 'muted small' }, `${channel.base_url ?? ''} · models: ${models.join(', ') || NONE}`),
    editBox,
    h('h3', {}, 'Keys'),
    keys.length === 0 ? empty('No keys.') : table([
      { label: 'Key', value: (_k, i) => h('code', {}, labels[i]) },
      { label: 'State', value: (k) => h('span', { class: `badge ${keyEnabled(k) ? 'ok' : 'muted'}` }, keyEnabled(k) ? 'enabled' : 'disabled') },
      { label: 'Health', value: (_k, i) => keyHealth(name, labels[i], state) },
      ...(canChange ? [{ label: 'Actions', value: (k, i) => h('div', { class: 'buttons' },
        h('button', { type: 'button', class: 'btn', testid: 'key-freeze',
          onclick: () => replace(keyBox, freezeForm(name, labels[i], models, () => { replace(keyBox); reload(); }, () => replace(keyBox))) }, 'Freeze'),
        actionButton('Probe', async () => {
          const result = await post('/admin/probes/run', { channel: name, key: labels[i] });
          replace(keyBox, probeResult(labels[i], result));
        }, { testid: 'key-probe', busyLabel: 'Probing…' }),
        actionButton(keyEnabled(k) ? 'Disable' : 'Enable', async () => {
          await putKey(i, keyEnabledChange(!keyEnabled(k)));
          await reload();
        }, { testid: 'key-toggle' }),
        h('button', { type: 'button', class: 'btn', testid: 'key-rotate',
          onclick: () => replace(keyBox, rotateForm(labels[i], async (secret) => {
            await putKey(i, { key: secret });
            replace(keyBox);
            await reload();
          }, () => replace(keyBox))) }, 'Rotate')) }] : []),
    ], keys, { testid: 'keys-table', rowTestid: (_k, i) => `key-row-${labels[i]}` }),
    keyBox,
    h('h3', {}, 'Freezes'),
    freezes.length === 0 ? empty('None.') : table([
      { label: 'Key', value: (f) => f.key || '(whole channel)' },
      { label: 'Model', value: (f) => f.model || 'all' },
      { label: 'Until', value: (f) => (f.until ? formatTime(f.until) : 'lifted by hand') },
      { label: 'Why', value: (f) => f.reason || f.rule || NONE },
      ...(canChange ? [{ label: '', value: (f) => actionButton('Lift', async () => {
        await del(`/admin/freezes/${seg(f.id)}`);
        await reload();
      }, { testid: 'freeze-lift' }) }] : []),
    ], freezes, { testid: 'freezes-table', rowTestid: () => 'freeze-row' }),
    bucketSection(state.buckets.filter((b) => b.channel === name)),
    h('h3', {}, 'Breakers'),
    breakers.length === 0 ? empty('None open.') : table([
      { label: 'Model', value: (b) => b.model },
      { label: 'Failures', value: (b) => `${b.failure?.state ?? NONE} (${b.failure?.consecutive_failures ?? 0} in a row)` },
      { label: 'Rate limits', value: (b) => b.storm?.state ?? NONE },
      ...(canChange ? [{ label: '', value: (b) => actionButton('Reset', async () => {
        await del(`/admin/breakers/${seg(name)}/${seg(b.model)}`);
        await reload();
      }, { testid: 'breaker-reset' }) }] : []),
    ], breakers, { testid: 'breakers-table' }));
}

/** The channel's upstream token buckets (a key's rpm/tpm, a model's model_limits) and what is
 *  left in them now; nothing when the channel has none. */
function bucketSection(buckets) {
  if (buckets.length === 0) return null;
  const level = (left, size) => (size ? `${left === null || left === undefined ? NONE : Math.floor(left)} of ${size} left` : 'no limit');
  return [h('h3', {}, 'Rate buckets'), table([
    { label: 'Of', value: (b) => (b.key ? h('code', {}, b.key) : `model ${b.model}`) },
    { label: 'Requests/min', value: (b) => level(b.rpm_level, b.rpm) },
    { label: 'Tokens/min', value: (b) => level(b.tpm_level, b.tpm) },
  ], buckets, { testid: 'buckets-table' })];
}

/** Badges of what holds a key back, and its latest probe results. */
function keyHealth(channel, label, state) {
  const items = [];
  for (const f of state.freezes.filter((x) => x.channel === channel && x.key === label)) {
    items.push(h('span', { class: 'badge bad', testid: 'key-frozen' }, `frozen${f.model ? ` (${f.model})` : ''}`));
  }
  for (const p of state.pauses.filter((x) => x.channel === channel && x.key === label)) {
    items.push(h('span', { class: 'badge warn' }, `paused: ${p.reason.replace('_', ' ')}${p.model ? ` (${p.model})` : ''} ${formatSeconds(p.remaining_s)}`));
  }
  for (const l of state.penalties.filter((x) => x.key === label && x.degraded)) {
    items.push(h('span', { class: 'badge warn' }, `slow: ${l.model}`));
  }
  for (const p of state.probes.filter((x) => x.channel === channel && x.key === label)) {
    items.push(h('span', { class: `badge ${p.pass ? 'ok' : 'bad'}`, title: p.reason ?? '' },
      `probe ${p.scenario} ${p.model}: ${p.pass ? 'pass' : 'fail'} ${formatMs(p.latency_ms)}`));
  }
  return items.length ? h('div', { class: 'badges' }, items) : h('span', { class: 'ok-text' }, 'healthy');
}

function probeResult(label, result) {
  return h('div', { class: `state ${result?.pass ? 'ok' : 'error'}`, role: 'status', testid: 'probe-result' },
    `Probe of ${label}: ${result?.pass ? 'pass' : 'fail'}${result?.reason ? ` — ${result.reason}` : ''} ` +
    `(${result?.scenario ?? ''} ${result?.model ?? ''}, ${formatMs(result?.latency_ms)})`);
}

/** Freezes a key (`label`), or the whole channel when `label` is null. */
function freezeForm(channel, label, models, onDone, onCancel) {
  const result = h('div', { 'aria-live': 'polite' });
  const form = h('form', { class: 'inline-form panel', novalidate: true, testid: 'freeze-form' },
    h('h4', {}, label ? `Freeze ${label}` : `Freeze the channel ${channel}`),
    h('div', { class: 'grid' },
      field('Model (empty: every model)', { name: 'model', tag: 'select', options: ['', ...models] }),
      field('Minutes', { name: 'minutes', type: 'number', min: '1', step: '1', inputmode: 'numeric', testid: 'freeze-minutes' },
        { hint: 'Or a period; neither: until lifted.' }),
      field('Period', { name: 'period', tag: 'select', options: ['', ...FREEZE_PERIODS], testid: 'freeze-period' },
        { hint: 'To the end of the UTC day, week or month, or forever.' }),
      field('Reason', { name: 'reason', type: 'text', testid: 'freeze-reason', value: 'frozen from the console' })),
    h('div', { class: 'buttons' },
      h('button', { type: 'submit', class: 'btn primary', testid: 'freeze-submit' }, 'Freeze'),
      h('button', { type: 'button', class: 'btn', onclick: onCancel }, 'Cancel')),
    result);
  form.addEventListener('submit', (event) => submitting(event, form, result, async () => {
    const { value, issues } = freezeFromForm({ channel, key: label, ...formValues(form) });
    if (issues.length) throw Object.assign(new Error('Fix these first:'), { issues });
    await post('/admin/freezes', value);
    onDone();
  }));
  return form;
}

function rotateForm(label, save, onCancel) {
  const result = h('div', { 'aria-live': 'polite' });
  const form = h('form', { class: 'inline-form panel', testid: 'rotate-form' },
    h('h4', {}, `New secret for ${label}`),
    field('Secret', { name: 'secret', type: 'password', autocomplete: 'off', required: true }),
    h('div', { class: 'buttons' },
      h('button', { type: 'submit', class: 'btn primary' }, 'Rotate'),
      h('button', { type: 'button', class: 'btn', onclick: onCancel }, 'Cancel')),
    result);
  form.addEventListener('submit', (event) => submitting(event, form, result, async () => {
    const secret = form.elements.secret.value.trim();
    if (!secret || /\s/.test(secret) || secret === '***') throw new Error('A secret without spaces is needed.');
    await save(secret);
  }));
  return form;
}

function createForm(onDone, onCancel) {
  const result = h('div', { 'aria-live': 'polite', testid: 'channel-create-result' });
  const form = h('form', { class: 'panel', novalidate: true, testid: 'channel-form' },
    h('h2', {}, 'New channel'),
    h('div', { class: 'grid' },
      field('Name', { name: 'name', required: true, testid: 'channel-name' }),
      field('Protocol', { name: 'protocol', tag: 'select', options: PROTOCOLS, testid: 'channel-protocol' }),
      field('Base URL', { name: 'base_url', type: 'url', required: true, placeholder: 'https://api.example.com', testid: 'channel-base-url' }),
      field('Models (comma or line separated)', { name: 'models', required: true, testid: 'channel-models' }),
      field('Keys (one per line)', { name: 'keys', tag: 'textarea', rows: 3, required: true, testid: 'channel-keys', autocomplete: 'off' })),
    h('div', { class: 'buttons' },
      h('button', { type: 'submit', class: 'btn primary', testid: 'channel-create' }, 'Create'),
      h('button', { type: 'button', class: 'btn', onclick: onCancel }, 'Cancel')),
    result);
  form.addEventListener('submit', (event) => submitting(event, form, result, async () => {
    const { value, issues } = channelFromForm(formValues(form));
    if (issues.length) throw Object.assign(new Error('Fix these first:'), { issues });
    await post('/admin/channels', value);
    onDone();
  }));
  return form;
}
