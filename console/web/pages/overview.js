// Overview: request rate, success rate against the SLO, first-token latency and cost over the
// last hour (by minute), day (by hour) or 30 days (by day), as cards and uPlot charts.
import { get } from '../api.js';
import { timeChart } from '../lib/chart.js';
import { errorBox, h, loading, replace } from '../lib/dom.js';
import { formatCost, formatMs, formatPercent, formatRate, formatTokens } from '../lib/format.js';
import { RANGES, buildUsageSeries, rangeFor, sloTarget, summarize, usageQuery } from '../lib/series.js';

let chosenRange = 'hour';
// The charts follow the traffic while the page is open; a new minute bucket is the finest change.
const kAutoRefreshMs = 60000;

export function render(root) {
  let charts = [];
  let generation = 0;
  const select = h('select', { id: 'overview-range', testid: 'overview-range' },
    Object.entries(RANGES).map(([name, r]) => h('option', { value: name, selected: name === chosenRange }, r.label)));
  const refresh = h('button', { type: 'button', class: 'btn', testid: 'overview-refresh' }, 'Refresh');
  const cards = h('div', { class: 'cards', testid: 'overview-cards' });
  const chartBox = h('div', { class: 'charts', testid: 'overview-charts' });
  replace(root,
    h('div', { class: 'page-head' }, h('h1', {}, 'Overview'),
      h('div', { class: 'controls' }, h('label', { for: 'overview-range' }, 'Range'), select, refresh)),
    cards, chartBox);

  const destroyCharts = () => {
    charts.forEach((c) => c.destroy());
    charts = [];
  };

  async function load({ quiet = false } = {}) {
    const mine = ++generation;
    const range = rangeFor(chosenRange, Date.now());
    refresh.disabled = true;
    if (!quiet) {
      replace(cards, loading());
      destroyCharts();
      replace(chartBox);
    }
    const [totals, buckets, slo] = await Promise.allSettled([
      get(`/admin/usage?${usageQuery({ from: range.from, to: range.to })}`),
      get(`/admin/usage?${usageQuery(range)}`),
      get('/admin/config/export', { accept: 'application/yaml' }),
    ]);
    if (mine !== generation) return;
    refresh.disabled = false;
    destroyCharts();
    replace(chartBox);
    const target = slo.status === 'fulfilled' ? sloTarget(slo.value) : 0.99;
    if (totals.status === 'rejected') replace(cards, errorBox(totals.reason));
    else renderCards(cards, summarize(totals.value.rows?.[0], range), target);
    if (buckets.status === 'rejected') {
      replace(chartBox, errorBox(buckets.reason, { testid: 'charts-error' }));
      return;
    }
    const series = buildUsageSeries(buckets.value.rows, range);
    charts = [
      timeChart({ title: 'Requests per second', testid: 'chart-rps', x: series.x,
        series: [{ label: 'requests/s', values: series.rps }], format: (v) => formatRate(v) }),
      timeChart({ title: `Success rate (SLO ${formatPercent(target)})`, testid: 'chart-success', x: series.x,
        series: [{ label: 'success %', values: series.successRate },
          { label: 'SLO', values: series.x.map(() => target * 100), dash: [6, 4], color: '#9ca3af', counted: false }],
        format: (v) => `${Number(v.toFixed(2))} %` }),
      timeChart({ title: 'First token', testid: 'chart-first-token', x: series.x,
        series: [{ label: 'p50', values: series.firstTokenP50 }, { label: 'p95', values: series.firstTokenP95 }],
        format: (v) => formatMs(v) }),
      timeChart({ title: 'Cost', testid: 'chart-cost', x: series.x,
        series: [{ label: 'USD', values: series.cost }], format: (v) => formatCost(v) }),
    ];
    if (buckets.value.truncated) chartBox.append(h('p', { class: 'note' }, 'The answer was truncated (over 10,000 rows).'));
    charts.forEach((c) => chartBox.append(c.element));
  }

  select.addEventListener('change', () => {
    chosenRange = select.value;
    load();
  });
  refresh.addEventListener('click', () => load());
  load();
  const timer = setInterval(() => load({ quiet: true }), kAutoRefreshMs);
  return () => {
    clearInterval(timer);
    generation += 1;
    destroyCharts();
  };
}

function renderCards(cards, s, target) {
  const meets = s.successRate === null ? null : s.successRate >= target;
  const card = (label, value, testid, extra) => h('div', { class: 'card', testid },
    h('div', { class: 'card-label' }, label), h('div', { class: 'card-value' }, value), extra ?? null);
  replace(cards,
    card('Requests/s', formatRate(s.rps), 'card-rps', h('div', { class: 'muted' }, `${s.requests} requests`)),
    card('Success rate', formatPercent(s.successRate), 'card-success',
      h('div', { class: meets === null ? 'muted' : meets ? 'ok-text' : 'bad-text' },
        meets === null ? `SLO ${formatPercent(target)}` : `${meets ? 'meets' : 'below'} SLO ${formatPercent(target)}`)),
    card('First token p50', formatMs(s.firstTokenP50), 'card-p50'),
    card('First token p95', formatMs(s.firstTokenP95), 'card-p95'),
    card('Cost', formatCost(s.cost), 'card-cost', h('div', { class: 'muted' }, `${formatTokens(s.tokens)} tokens`)));
}
