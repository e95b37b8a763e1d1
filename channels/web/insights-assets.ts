/**
 * @module channels/web/insights-assets
 * What the insights page alone loads from `/ui/assets`: uPlot (served from its npm package, never a CDN: the page's
 * content security policy allows scripts from this origin only), the small script that draws the page's two charts
 * with it, and their styles. uPlot was chosen for being small (~50 KB minified, no dependencies), fast on a phone
 * (canvas, not one DOM node per point), MIT-licensed and maintained; its time axes read UTC here, as the page does.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

let uplot: { js: string; css: string } | undefined;

/** uPlot's script and stylesheet, read from the installed package on first use. */
export function uplotAssets(): { js: string; css: string } {
  if (!uplot) {
    const dir = join(dirname(createRequire(import.meta.url).resolve('uplot/package.json')), 'dist');
    uplot = {
      js: readFileSync(join(dir, 'uPlot.iife.min.js'), 'utf8'),
      css: readFileSync(join(dir, 'uPlot.min.css'), 'utf8'),
    };
  }
  return uplot;
}

/** The insights page's styles: figures, charts that fit the screen, tables that scroll on a phone. */
export const INSIGHTS_CSS = `.totals { display: grid; grid-template-columns: repeat(auto-fit, minmax(8.5rem, 1fr)); gap: 0.75rem; margin: 0 0 1rem; }
.totals .card { margin: 0; }
.totals .figure { font-size: 1.8rem; font-weight: 600; }
.totals .approved a { color: var(--good); } .totals .denied a, .totals .expired a { color: var(--bad); } .totals .pending a { color: var(--wait); }
.chart-box { width: 100%; min-height: 180px; }
.chart h2, .insights-table h2 { font-size: 1.1rem; margin: 0 0 0.5rem; }
.insights-table { margin: 0 0 1.25rem; }
table.audit td.num, table.audit th.num { text-align: right; font-variant-numeric: tabular-nums; }
.uplot { font-family: inherit; color: var(--fg); }
.u-legend { font-size: 0.85rem; }
`;

/**
 * The chart script: reads each `[data-chart]` box's figures, draws them with uPlot at the box's width, and redraws on
 * resize. Without script (or uPlot) the boxes stay empty and the table of the same figures below them remains.
 */
export const INSIGHTS_JS = `(function () {
  'use strict';
  if (!window.uPlot || !document.querySelectorAll) return;
  var css = getComputedStyle(document.documentElement);
  function color(name, fallback) { return (css.getPropertyValue(name) || fallback).trim(); }
  function seconds(days) { return days.map(function (d) { return Date.parse(d + 'T00:00:00Z') / 1000; }); }
  function toSeconds(list) { return list.map(function (ms) { return ms === null ? null : ms / 1000; }); }
  var fg = color('--fg', '#1c2024'), grid = color('--line', '#dde1e6');
  var axis = { stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
  // One point a day: ticks fall on whole days (every 1, 2, 7 or 30 of them, as the width allows), labelled by date.
  var DAY = 86400;
  var dayAxis = Object.assign({}, axis, { space: 60, incrs: [DAY, 2 * DAY, 7 * DAY, 14 * DAY, 30 * DAY, 91 * DAY],
    values: function (u, vals) { return vals.map(function (v) { var d = new Date(v * 1000); return (d.getUTCMonth() + 1) + '/' + d.getUTCDate(); }); } });
  // Points always shown: a window of one day is one point per line, and a line of one point draws nothing.
  function line(label, stroke, fmt, dash, ring) { return { label: label, stroke: stroke, width: 2, dash: dash, points: ring ? { show: true, size: 13, fill: 'transparent' } : { show: true, size: 7, fill: stroke }, value: fmt }; }
  function count(u, v) { return v === null ? '–' : String(v); }
  function secs(u, v) { return v === null ? '–' : (v < 10 ? v.toFixed(1) : Math.round(v)) + ' s'; }
  var builders = {
    daily: function (spec) {
      // Expired is drawn over Denied, dashed: on days when both counts are equal, Denied shows between its dashes.
      return { series: [{}, line('Approved', color('--good', '#17803d'), count), line('Denied', color('--bad', '#b42318'), count), line('Expired', color('--wait', '#9a6700'), count, [6, 6])],
        data: [seconds(spec.days), spec.approved, spec.denied, spec.expired], axes: [dayAxis, Object.assign({}, axis, { values: function (u, vals) { return vals.map(function (v) { return Math.round(v) === v ? String(v) : ''; }); } })] };
    },
    decision: function (spec) {
      // p90 is a ring around its point: on a day when p50 and p90 are equal (decisions that all took about as long),
      // a filled p90 dot, drawn after p50, hid the p50 dot.
      return { series: [{}, line('p50', color('--accent', '#2456c8'), secs), line('p90', color('--wait', '#9a6700'), secs, undefined, true)],
        data: [seconds(spec.days), toSeconds(spec.p50), toSeconds(spec.p90)], axes: [dayAxis, Object.assign({}, axis, { values: function (u, vals) { return vals.map(function (v) { return v + ' s'; }); } })] };
    }
  };
  // One day alone is a zero-width range, which uPlot widens by too little to show: half a day each side instead.
  function dayRange(u, min, max) { return min === max ? [min - DAY / 2, max + DAY / 2] : [min, max]; }
  var boxes = document.querySelectorAll('[data-chart]');
  var charts = [];
  function size(box) { var w = Math.max(240, box.clientWidth); return { width: w, height: Math.max(180, Math.min(300, Math.round(w * 0.45))) }; }
  for (var i = 0; i < boxes.length; i++) {
    var box = boxes[i];
    var spec = JSON.parse(box.getAttribute('data-chart'));
    var built = builders[spec.kind] && builders[spec.kind](spec);
    if (!built) continue;
    var s = size(box);
    var chart = new uPlot({ width: s.width, height: s.height, tzDate: function (ts) { return uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'); },
      scales: { x: { time: true, range: dayRange } }, series: built.series, axes: built.axes, cursor: { drag: { x: false, y: false } } }, built.data, box);
    charts.push({ chart: chart, box: box });
    box.setAttribute('data-drawn', 'true');
  }
  var pending = null;
  window.addEventListener('resize', function () {
    clearTimeout(pending);
    pending = setTimeout(function () { charts.forEach(function (c) { c.chart.setSize(size(c.box)); }); }, 100);
  });
})();
`;
