// A time-series chart drawn by uPlot (the vendored IIFE build, a global). The container carries
// data-points (the real values drawn) so a test can tell a chart with data from an empty one.
import { h } from './dom.js';
import { pointsWithData } from './series.js';

const kColors = ['#2563eb', '#d97706', '#059669', '#dc2626'];

/** Draws `series` ([{label, values, dash?}]) over `x` (Unix seconds) into a new element, sized
 *  to its container; answers {element, destroy}. `format` formats axis values. */
export function timeChart({ title, x, series, format = (v) => String(v), testid, yRange }) {
  const element = h('figure', { class: 'chart', testid });
  const caption = h('figcaption', {}, title);
  const plotHolder = h('div', { class: 'chart-plot' });
  element.append(caption, plotHolder);
  const points = series.reduce((sum, s) => sum + (s.counted === false ? 0 : pointsWithData(s.values)), 0);
  element.dataset.points = String(points);
  const uPlot = globalThis.uPlot;
  if (typeof uPlot !== 'function') {
    plotHolder.append(h('p', { class: 'state error', role: 'alert' }, 'Chart library missing (vendor/uPlot).'));
    return { element, destroy() {} };
  }
  if (points === 0) {
    plotHolder.append(h('p', { class: 'state empty' }, 'No data in this range.'));
  }
  const options = {
    width: 600,
    height: 180,
    legend: { live: false },
    cursor: { drag: { x: false, y: false } },
    scales: { x: { time: true }, y: yRange ? { range: yRange } : { auto: true } },
    axes: [{}, { values: (_u, values) => values.map(format), size: 64 }],
    series: [{}, ...series.map((s, i) => ({
      label: s.label,
      stroke: s.color ?? kColors[i % kColors.length],
      width: 2,
      dash: s.dash,
      spanGaps: false,
      // Isolated values between gaps have no line to show them: draw points while they are few.
      points: { show: s.counted !== false && pointsWithData(s.values) <= 90, size: 6 },
      value: (_u, v) => (v === null || v === undefined ? '—' : format(v)),
    }))],
  };
  const plot = new uPlot(options, [x, ...series.map((s) => s.values)], plotHolder);
  const fit = () => {
    const width = Math.max(240, plotHolder.clientWidth || element.clientWidth || 600);
    plot.setSize({ width, height: 180 });
  };
  // The window's resize, not a ResizeObserver: the plot resizing its holder would observe itself.
  let timer = null;
  const onResize = () => {
    clearTimeout(timer);
    timer = setTimeout(fit, 100);
  };
  window.addEventListener('resize', onResize);
  requestAnimationFrame(fit);
  return {
    element,
    destroy() {
      window.removeEventListener('resize', onResize);
      clearTimeout(timer);
      plot.destroy();
    },
  };
}
