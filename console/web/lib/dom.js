// A tiny element builder and the widgets every page uses (loading, error and empty states,
// buttons that show progress while their change runs, tables). Browser only.

/** h('button', {onclick, testid: 'x', class: 'y'}, 'text', child...). `testid` sets
 *  data-testid; `on*` members are listeners; null/false children are skipped. */
export function h(tag, attrs = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name === 'testid') element.dataset.testid = value;
    else if (name.startsWith('on') && typeof value === 'function') {
      element.addEventListener(name.slice(2), value);
    } else if (name === 'class') element.className = value;
    else if (name === 'value') element.value = value; // a textarea's content, an input's value
    else if (name === 'style' && typeof value === 'object') Object.assign(element.style, value);
    else if (name in element && typeof value !== 'string') element[name] = value;
    else element.setAttribute(name, value === true ? '' : value);
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces the children of `element`. */
export function replace(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

export const loading = (what = 'Loading…') =>
  h('p', { class: 'state loading', role: 'status', testid: 'loading' }, what);

export const empty = (what) => h('p', { class: 'state empty', testid: 'empty' }, what);

/** An error in place: its message, and its issues (path: message) when the API gave any. */
export function errorBox(error, { testid = 'error' } = {}) {
  const issues = error?.issues ?? [];
  return h('div', { class: 'state error', role: 'alert', testid },
    h('p', {}, error?.message ?? String(error)),
    issues.length ? issueList(issues) : null);
}

export function issueList(issues, relative = (p) => p) {
  return h('ul', { class: 'issues', testid: 'issues' },
    issues.map((i) => h('li', {}, h('code', { class: 'issue-path' }, relative(i.path) || '(object)'),
      ' ', i.message)));
}

/** A button whose click runs `action` (async): disabled and marked busy while it runs; a
 *  failure is shown by `onError` (default: in `status`, an element next to the button). */
export function actionButton(label, action, { testid, kind = '', title, busyLabel } = {}) {
  const status = h('span', { class: 'action-status', role: 'status' });
  const button = h('button', { type: 'button', class: `btn ${kind}`, testid, title }, label);
  button.addEventListener('click', async () => {
    if (button.disabled) return;
    button.disabled = true;
    button.setAttribute('aria-busy', 'true');
    const original = button.textContent;
    if (busyLabel) button.textContent = busyLabel;
    status.replaceChildren();
    try {
      await action();
    } catch (error) {
      status.replaceChildren(errorBox(error, { testid: 'action-error' }));
    } finally {
      button.disabled = false;
      button.removeAttribute('aria-busy');
      if (busyLabel) button.textContent = original;
    }
  });
  return h('span', { class: 'action' }, button, status);
}

/** A button that asks once more before a destructive action: the first click shows
 *  "Confirm"/"Cancel", the second runs it. */
export function confirmButton(label, action, { testid, confirmLabel = `Confirm ${label.toLowerCase()}` } = {}) {
  const holder = h('span', { class: 'action' });
  const initial = () => {
    const first = h('button', { type: 'button', class: 'btn danger', testid }, label);
    first.addEventListener('click', () => {
      const confirm = actionButton(confirmLabel, action, { testid: testid && `${testid}-confirm`, kind: 'danger' });
      const cancel = h('button', { type: 'button', class: 'btn', onclick: initial }, 'Cancel');
      replace(holder, confirm, cancel);
      confirm.querySelector('button').focus();
    });
    replace(holder, first);
  };
  initial();
  return holder;
}

/** A table from rows: `columns` = [{label, value: (row) => node|string}]. */
export function table(columns, rows, { testid, rowTestid } = {}) {
  return h('div', { class: 'table-wrap' },
    h('table', { testid },
      h('thead', {}, h('tr', {}, columns.map((c) => h('th', { scope: 'col' }, c.label)))),
      h('tbody', {}, rows.map((row, i) => h('tr', { testid: rowTestid ? rowTestid(row, i) : null },
        columns.map((c) => h('td', { 'data-label': c.label }, c.value(row, i))))))));
}

/** A labelled input; `attrs` go to the input (name, type, required, placeholder...). */
export function field(label, attrs = {}, { hint } = {}) {
  const id = `f-${Math.random().toString(36).slice(2, 9)}`;
  const tag = attrs.tag ?? 'input';
  const { tag: _tag, options, ...rest } = attrs;
  const control = tag === 'select'
    ? h('select', { id, ...rest }, (options ?? []).map((o) => h('option', { value: o }, o)))
    : h(tag, { id, ...rest });
  return h('div', { class: 'field' }, h('label', { for: id }, label), control,
    hint ? h('small', { class: 'hint' }, hint) : null);
}

/** The values of a form's named controls. */
export function formValues(form) {
  const values = {};
  for (const control of form.elements) {
    if (control.name) values[control.name] = control.type === 'checkbox' ? control.checked : control.value;
  }
  return values;
}

/** Renders any JSON value as nested tables and lists (the racing page shows whatever it holds). */
export function jsonView(value) {
  if (value === null || value === undefined) return h('span', { class: 'muted' }, '—');
  if (Array.isArray(value)) {
    if (value.length === 0) return h('span', { class: 'muted' }, '(none)');
    if (value.every((v) => v && typeof v === 'object' && !Array.isArray(v))) {
      const keys = [...new Set(value.flatMap((v) => Object.keys(v)))];
      return table(keys.map((k) => ({ label: k, value: (row) => jsonView(row[k]) })), value);
    }
    return h('span', {}, value.map((v) => (typeof v === 'object' ? JSON.stringify(v) : String(v))).join(', '));
  }
  if (typeof value === 'object') {
    return h('dl', { class: 'kv' }, Object.entries(value).map(([k, v]) => [h('dt', {}, k), h('dd', {}, jsonView(v))]));
  }
  return h('span', {}, String(value));
}

/** A page section with a heading. */
export function section(title, ...children) {
  return h('section', { class: 'panel' }, h('h2', {}, title), ...children);
}

/** Copies text to the clipboard; falls back to selecting it in `input`. */
export async function copyText(text, input) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    input?.select();
    return false;
  }
}

/** Runs a form's submit action with its buttons disabled; errors (and issues) shown in `result`. */
export async function submitting(event, form, result, action) {
  event.preventDefault();
  const buttons = [...form.querySelectorAll('button')];
  buttons.forEach((b) => { b.disabled = true; });
  form.setAttribute('aria-busy', 'true');
  replace(result, h('p', { class: 'state loading', role: 'status' }, 'Working…'));
  try {
    await action();
    replace(result);
  } catch (error) {
    const relative = (p) => String(p ?? '').replace(/^[a-z_]+\[\d+\]\.?/, '');
    replace(result, error.issues?.length
      ? h('div', { class: 'state error', role: 'alert', testid: 'form-issues' }, h('p', {}, error.message), issueList(error.issues, relative))
      : errorBox(error));
  } finally {
    buttons.forEach((b) => { b.disabled = false; });
    form.removeAttribute('aria-busy');
  }
}
