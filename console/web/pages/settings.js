// Settings: the configuration exported (secrets masked) and imported (a dry run first, then
// applied), and the audit log of every change, newest first, paged by `before`.
import { call, get } from '../api.js';
import { actionButton, empty, errorBox, h, issueList, loading, replace, section, table } from '../lib/dom.js';
import { NONE, formatTime } from '../lib/format.js';
import { describeImport } from '../lib/validate.js';

export function render(root, { canChange }) {
  const exportResult = h('div', { 'aria-live': 'polite', testid: 'export-result' });
  const auditBox = h('div', { testid: 'audit' }, loading());
  replace(root,
    h('div', { class: 'page-head' }, h('h1', {}, 'Settings')),
    section('Export',
      h('p', {}, 'The configuration in force as YAML (secrets as ***).'),
      actionButton('Download YAML', async () => {
        const text = await get('/admin/config/export', { accept: 'application/yaml' });
        download('llmux-config.yaml', typeof text === 'string' ? text : JSON.stringify(text));
        replace(exportResult, h('p', { class: 'ok-text' }, `Downloaded (${text.length} characters).`));
      }, { testid: 'export-download', kind: 'primary' }),
      exportResult),
    canChange ? importSection() : null,
    section('Audit log', auditBox));

  let alive = true;
  const pages = [];
  async function loadAudit(before) {
    const query = before ? `?limit=50&before=${encodeURIComponent(before)}` : '?limit=50';
    try {
      const answer = await get(`/admin/audit${query}`);
      if (!alive) return;
      pages.push(...(answer.audit ?? []));
      renderAudit(answer.next_before);
    } catch (error) {
      if (alive) replace(auditBox, errorBox(error));
    }
  }
  function renderAudit(nextBefore) {
    replace(auditBox,
      pages.length === 0 ? empty('No changes recorded.') : table([
        { label: 'When', value: (e) => formatTime(e.at) },
        { label: 'Who', value: (e) => e.actor ?? NONE },
        { label: 'What', value: (e) => `${e.action} ${e.section}/${e.name}` },
        { label: 'Version', value: (e) => String(e.version ?? NONE) },
        { label: 'Change', value: (e) => h('details', {}, h('summary', {}, 'before / after'),
          h('pre', { class: 'code small' }, `before: ${JSON.stringify(e.before?.object ?? e.before, null, 2)}\nafter: ${JSON.stringify(e.after?.object ?? e.after, null, 2)}`)) },
      ], pages, { testid: 'audit-table', rowTestid: () => 'audit-row' }),
      nextBefore !== null && nextBefore !== undefined
        ? actionButton('Older', () => loadAudit(nextBefore), { testid: 'audit-older' }) : null);
  }
  loadAudit();
  return () => {
    alive = false;
  };
}

function importSection() {
  const text = h('textarea', { id: 'import-yaml', class: 'code', rows: 12, spellcheck: 'false', testid: 'import-text' });
  const file = h('input', { id: 'import-file', type: 'file', accept: '.yaml,.yml,application/yaml,text/yaml', testid: 'import-file' });
  const result = h('div', { 'aria-live': 'polite', testid: 'import-result' });
  let checked = null; // the text the last successful dry run saw: applying needs that exact text
  const apply = actionButton('Apply', async () => {
    const answer = await sendImport(text.value, false);
    replace(result, h('div', { class: 'state ok', testid: 'import-applied' }, `Applied: ${describeImport(answer)}.`));
    checked = null;
    applyButton.disabled = true;
  }, { testid: 'import-apply', kind: 'primary' });
  const applyButton = apply.querySelector('button');
  applyButton.disabled = true;
  text.addEventListener('input', () => {
    applyButton.disabled = text.value !== checked;
  });
  file.addEventListener('change', async () => {
    const chosen = file.files?.[0];
    if (!chosen) return;
    text.value = await chosen.text();
    text.dispatchEvent(new Event('input'));
  });
  return section('Import',
    h('p', {}, 'Replace objects from a YAML configuration. A dry run checks it first; apply is possible after a dry run of the same text.'),
    h('div', { class: 'field' }, h('label', { for: 'import-file' }, 'YAML file'), file),
    h('div', { class: 'field' }, h('label', { for: 'import-yaml' }, 'YAML'), text),
    h('div', { class: 'buttons' },
      actionButton('Dry run', async () => {
        try {
          const answer = await sendImport(text.value, true);
          checked = text.value;
          applyButton.disabled = false;
          replace(result, h('div', { class: 'state ok', testid: 'import-dry-run-ok' }, `Valid. Would apply: ${describeImport(answer)}.`));
        } catch (error) {
          checked = null;
          applyButton.disabled = true;
          replace(result, h('div', { class: 'state error', role: 'alert', testid: 'import-issues' },
            h('p', {}, error.message), error.issues?.length ? issueList(error.issues) : null));
        }
      }, { testid: 'import-dry-run' }),
      apply),
    result);
}

const sendImport = (yaml, dryRun) => call('POST', `/admin/config/import${dryRun ? '?dry_run=true' : ''}`,
  { body: yaml, contentType: 'application/yaml' });

function download(name, text) {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/yaml' }));
  const link = h('a', { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
