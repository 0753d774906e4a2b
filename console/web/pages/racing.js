// Racing: the switches (PUT /admin/racing) and whatever GET /admin/racing holds — counters,
// budget, the thresholds per family × stage — plus the learned latency penalties.
import { get, put } from '../api.js';
import { actionButton, empty, errorBox, h, jsonView, loading, replace, section, table } from '../lib/dom.js';
import { NONE, formatMs, formatTime } from '../lib/format.js';

const kPreferences = ['quality_first', 'balanced', 'cost_first'];

export function render(root, { canChange }) {
  const body = h('div', { testid: 'racing' }, loading());
  replace(root, h('div', { class: 'page-head' }, h('h1', {}, 'Racing')), body);
  let alive = true;

  async function load() {
    const [racing, penalties] = await Promise.allSettled([get('/admin/racing'), get('/admin/latency-penalties')]);
    if (!alive) return;
    if (racing.status === 'rejected') {
      replace(body, errorBox(racing.reason));
      return;
    }
    const r = racing.value;
    const { enabled, cost_preference: preference, thresholds, counters, budget, ...rest } = r;
    const enabledSelect = h('select', { id: 'racing-enabled', testid: 'racing-enabled', disabled: !canChange },
      [['on', true], ['off', false]].map(([label, value]) => h('option', { value: String(value), selected: enabled === value }, label)));
    const preferenceSelect = h('select', { id: 'racing-preference', testid: 'racing-preference', disabled: !canChange },
      kPreferences.map((p) => h('option', { value: p, selected: p === preference }, p)));
    replace(body,
      section('Switches',
        h('div', { class: 'grid' },
          h('div', { class: 'field' }, h('label', { for: 'racing-enabled' }, `Racing (${r.enabled_source ?? 'config'})`), enabledSelect),
          h('div', { class: 'field' }, h('label', { for: 'racing-preference' }, `Cost preference (${r.cost_preference_source ?? 'config'})`), preferenceSelect)),
        canChange ? h('div', { class: 'buttons' },
          actionButton('Save', async () => {
            await put('/admin/racing', { enabled: enabledSelect.value === 'true', cost_preference: preferenceSelect.value });
            await load();
          }, { testid: 'racing-save', kind: 'primary' }),
          actionButton('Back to the configuration', async () => {
            await put('/admin/racing', { enabled: null, cost_preference: null });
            await load();
          }, { testid: 'racing-reset' })) : null),
      section('Thresholds', Array.isArray(thresholds) && thresholds.length ? thresholdTable(thresholds) : empty('None yet.')),
      section('Counters since start', counters ? jsonView(counters) : empty('None.')),
      section('Hedge budget', budget ? jsonView(budget) : empty('None.')),
      Object.keys(rest).length ? section('Other', jsonView(rest)) : null,
      section('Learned latency penalties', penalties.status === 'rejected' ? errorBox(penalties.reason)
        : (penalties.value.latency_penalties ?? []).length === 0 ? empty('None.')
          : table([
            { label: 'Key', value: (p) => h('code', {}, p.key) },
            { label: 'Model', value: (p) => p.model ?? NONE },
            { label: 'Task', value: (p) => p.task_class ?? NONE },
            { label: 'Slow streak', value: (p) => String(p.slow_streak ?? NONE) },
            { label: 'Degraded', value: (p) => (p.degraded ? h('span', { class: 'badge warn' }, 'degraded') : 'no') },
            { label: 'Updated', value: (p) => formatTime(p.updated) },
          ], penalties.value.latency_penalties, { testid: 'penalties-table' })));
  }

  load();
  return () => {
    alive = false;
  };
}

/** Families as rows, stages as columns: the p90 (or the sample count while it fills). */
function thresholdTable(thresholds) {
  const families = [...new Set(thresholds.map((t) => t.family))];
  const stages = [...new Set(thresholds.map((t) => t.stage))];
  const cell = (family, stage) => {
    const t = thresholds.find((x) => x.family === family && x.stage === stage);
    if (!t) return NONE;
    return t.p90_ms === null || t.p90_ms === undefined ? `${t.samples} samples (floor)` : `p90 ${formatMs(t.p90_ms)} · ${t.samples} samples`;
  };
  return table([{ label: 'Family', value: (f) => h('strong', {}, f) },
    ...stages.map((s) => ({ label: s.replaceAll('_', ' '), value: (f) => cell(f, s) }))], families, { testid: 'thresholds-table' });
}
