// Proxies (egress exits): list, create, edit as JSON, delete.
import { del, get, post, seg } from '../api.js';
import { confirmButton, empty, errorBox, field, formValues, h, loading, replace, submitting, table } from '../lib/dom.js';
import { objectEditor } from '../lib/editor.js';
import { NONE } from '../lib/format.js';
import { PROXY_MODES, proxyFromForm } from '../lib/validate.js';

export function render(root, { canChange }) {
  const body = h('div', { testid: 'proxies' }, loading());
  const topBox = h('div');
  const editBox = h('div');
  replace(root,
    h('div', { class: 'page-head' }, h('h1', {}, 'Proxies'),
      canChange ? h('div', { class: 'controls' }, h('button', { type: 'button', class: 'btn primary', testid: 'proxy-new',
        onclick: () => replace(topBox, createForm(() => { replace(topBox); load(); }, () => replace(topBox))) }, 'New proxy')) : null),
    topBox, editBox, body);
  let alive = true;

  async function load() {
    let answer;
    try {
      answer = await get('/admin/proxies');
    } catch (error) {
      if (alive) replace(body, errorBox(error));
      return;
    }
    if (!alive) return;
    const views = answer.proxies ?? [];
    replace(body, views.length === 0 ? empty('No proxies: channels connect directly (or through the environment\'s proxy).')
      : table([
        { label: 'Name', value: (v) => h('strong', {}, v.name) },
        { label: 'Mode', value: (v) => v.object?.mode ?? NONE },
        { label: 'URL', value: (v) => h('code', {}, v.object?.url ?? NONE) },
        { label: 'Source', value: (v) => `${v.source} v${v.version}` },
        ...(canChange ? [{ label: 'Actions', value: (v) => h('div', { class: 'buttons' },
          h('button', { type: 'button', class: 'btn', testid: 'proxy-edit', onclick: () => replace(editBox,
            objectEditor('proxies', v, { onSaved: () => { replace(editBox); load(); }, onCancel: () => replace(editBox) })) }, 'Edit JSON'),
          confirmButton('Delete', async () => {
            await del(`/admin/proxies/${seg(v.name)}`, { version: v.version });
            await load();
          }, { testid: 'proxy-delete' })) }] : []),
      ], views, { testid: 'proxies-table', rowTestid: (v) => `proxy-${v.name}` }));
  }

  load();
  return () => {
    alive = false;
  };
}

function createForm(onDone, onCancel) {
  const result = h('div', { 'aria-live': 'polite' });
  const form = h('form', { class: 'panel', novalidate: true, testid: 'proxy-form' },
    h('h2', {}, 'New proxy'),
    h('div', { class: 'grid' },
      field('Name', { name: 'name', required: true, testid: 'proxy-name' }),
      field('Mode', { name: 'mode', tag: 'select', options: PROXY_MODES, testid: 'proxy-mode' }),
      field('URL', { name: 'url', type: 'text', placeholder: 'http://proxy.example:3128', testid: 'proxy-url' },
        { hint: 'Not for direct. Credentials belong in environment variables (edit as JSON).' })),
    h('div', { class: 'buttons' },
      h('button', { type: 'submit', class: 'btn primary', testid: 'proxy-create' }, 'Create'),
      h('button', { type: 'button', class: 'btn', onclick: onCancel }, 'Cancel')),
    result);
  form.addEventListener('submit', (event) => submitting(event, form, result, async () => {
    const { value, issues } = proxyFromForm(formValues(form));
    if (issues.length) throw Object.assign(new Error('Fix these first:'), { issues });
    await post('/admin/proxies', value);
    onDone();
  }));
  return form;
}
