// The JSON editor of one configuration object (a channel, a proxy): check (dry run) and save
// (PUT with If-Match), the gateway's issues listed with their paths relative to the object.
import { put, seg } from '../api.js';
import { actionButton, errorBox, h, issueList, replace } from './dom.js';
import { parseJsonObject, relativeIssuePath } from './validate.js';

/** An editor for `view` ({name, version, object}) of `section`; `onSaved` after a save. */
export function objectEditor(section, view, { onSaved, onCancel }) {
  const id = `edit-${section}-${view.name}`;
  const text = h('textarea', { id, class: 'code', rows: 16, spellcheck: 'false', testid: 'json-editor',
    value: JSON.stringify(view.object, null, 2) });
  const result = h('div', { class: 'editor-result', 'aria-live': 'polite', testid: 'editor-result' });
  const relative = (path) => relativeIssuePath(path, section);

  const send = async (dryRun) => {
    const parsed = parseJsonObject(text.value);
    if (parsed.issues) {
      replace(result, h('div', { class: 'state error', role: 'alert' }, issueList(parsed.issues)));
      return;
    }
    try {
      await put(`/admin/${section}/${seg(view.name)}${dryRun ? '?dry_run=true' : ''}`, parsed.value,
        { version: view.version });
      replace(result, h('p', { class: 'ok-text', testid: 'editor-ok' }, dryRun ? 'Valid: nothing was changed.' : 'Saved.'));
      if (!dryRun) onSaved?.();
    } catch (error) {
      const shown = error.status === 409
        ? { message: `Changed meanwhile (now version ${error.currentVersion ?? '?'}): reload and edit again.` }
        : error;
      replace(result, error.issues?.length
        ? h('div', { class: 'state error', role: 'alert', testid: 'editor-issues' }, h('p', {}, error.message), issueList(error.issues, relative))
        : errorBox(shown));
    }
  };

  return h('div', { class: 'editor', testid: 'editor' },
    h('label', { for: id }, `${view.name} as JSON (secrets show as "***": leave them to keep them)`),
    text,
    h('div', { class: 'buttons' },
      actionButton('Check', () => send(true), { testid: 'editor-check' }),
      actionButton('Save', () => send(false), { testid: 'editor-save', kind: 'primary' }),
      h('button', { type: 'button', class: 'btn', onclick: onCancel }, 'Cancel')),
    result);
}
