/**
 * The report's own stylesheet and scripts, inlined into every page: no network, no framework.
 * Plain ES2017 for any current browser; kept as strings because they run in the page, not in Node.
 */

export const CSS = String.raw`
:root { --pass: #1a7f37; --fail: #cf222e; --flaky: #9a6700; --skip: #6e7781; --fg: #1f2328; --muted: #656d76; --line: #d0d7de; --bg2: #f6f8fa; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); margin: 0; padding: 16px 24px 48px; }
h1 { font-size: 20px; margin: 0 0 8px; } h2 { font-size: 16px; margin: 24px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
a { color: #0969da; text-decoration: none; } a:hover { text-decoration: underline; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; }
pre { background: var(--bg2); border: 1px solid var(--line); padding: 8px; overflow: auto; max-height: 480px; white-space: pre-wrap; word-break: break-all; margin: 4px 0; }
table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: var(--bg2); font-weight: 600; }
.facts { display: flex; flex-wrap: wrap; gap: 8px 24px; margin: 8px 0 16px; color: var(--muted); } .facts b { color: var(--fg); }
.pill { display: inline-block; padding: 0 8px; border-radius: 10px; font-size: 12px; font-weight: 600; color: #fff; }
.s-passed { background: var(--pass); } .s-failed, .s-crashed, .s-timeout { background: var(--fail); } .s-flaky { background: var(--flaky); } .s-skipped, .s-stopped { background: var(--skip); }
.totals span { margin-right: 16px; font-weight: 600; }
.t-passed { color: var(--pass); } .t-failed { color: var(--fail); } .t-flaky { color: var(--flaky); } .t-skipped { color: var(--skip); }
.filters { display: flex; gap: 12px; align-items: center; margin: 8px 0; flex-wrap: wrap; }
.filters input[type=search] { padding: 4px 8px; width: 280px; }
.muted { color: var(--muted); } .first { outline: 2px solid var(--fail); }
.role { border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; margin: 8px 0; }
.role h3 { margin: 0 0 4px; font-size: 14px; }
.acl { color: var(--fail); font-weight: 600; }
.tl-tools { display: flex; gap: 8px; align-items: center; margin: 4px 0; }
.tl-wrap { overflow: auto; border: 1px solid var(--line); max-height: 720px; position: relative; }
.tl-wrap svg { display: block; }
.tip { position: fixed; pointer-events: none; background: #1f2328; color: #fff; padding: 4px 8px; border-radius: 4px; font-size: 12px; white-space: pre; z-index: 10; display: none; }
.m-good { background: #dafbe1; } .m-bad { background: #ffebe9; color: var(--fail); font-weight: 600; } .m-neutral { color: var(--muted); }
.noop-badge { display: inline-block; padding: 0 6px; border-radius: 4px; font-size: 11px; font-weight: 600; background: #fff8c5; color: var(--flaky); border: 1px solid #d4a72c; }
.noop-banner { margin: 8px 0; padding: 8px 12px; border: 1px solid #d4a72c; background: #fff8c5; border-radius: 6px; }
.legend span { margin-right: 12px; } .sw { display: inline-block; width: 12px; height: 10px; vertical-align: middle; margin-right: 4px; }
`;

/** The index: filter rows by status and by text (file or title). */
export const INDEX_JS = String.raw`
(function () {
  var rows = Array.prototype.slice.call(document.querySelectorAll('tr[data-status]'));
  var boxes = Array.prototype.slice.call(document.querySelectorAll('input[data-filter]'));
  var text = document.getElementById('q');
  var shown = document.getElementById('shown');
  function apply() {
    var want = {};
    boxes.forEach(function (b) { want[b.getAttribute('data-filter')] = b.checked; });
    var q = text.value.trim().toLowerCase();
    var n = 0;
    rows.forEach(function (r) {
      var ok = want[r.getAttribute('data-status')] && (!q || r.getAttribute('data-text').indexOf(q) >= 0);
      r.style.display = ok ? '' : 'none';
      if (ok) n++;
    });
    shown.textContent = n + ' of ' + rows.length + ' shown';
  }
  boxes.forEach(function (b) { b.addEventListener('change', apply); });
  text.addEventListener('input', apply);
  apply();
})();
`;

/**
 * A scenario page: the timeline (SVG, one lane per role, one row per stream and a host row; bars,
 * shaded queue time, release arrows, mark ticks, failure and deadline lines; zoom and hover) and
 * the wait-for graph (roles on a circle, the cycle in red).
 */
export const SCENARIO_JS = String.raw`
(function () {
  var NS = 'http://www.w3.org/2000/svg';
  var data = JSON.parse(document.getElementById('scenario-data').textContent);
  var tip = document.createElement('div'); tip.className = 'tip'; document.body.appendChild(tip);
  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function hover(e, text) {
    e.addEventListener('mousemove', function (ev) { tip.textContent = text; tip.style.display = 'block'; tip.style.left = (ev.clientX + 12) + 'px'; tip.style.top = (ev.clientY + 12) + 'px'; });
    e.addEventListener('mouseleave', function () { tip.style.display = 'none'; });
  }
  function fmt(us) { return us >= 1000 ? (us / 1000).toFixed(3) + ' ms' : us.toFixed(1) + ' us'; }
  // Axis ticks on round steps (1, 2 or 5 times a power of ten), labelled with the step's precision.
  function niceStep(span) {
    var raw = span / 8, p = Math.pow(10, Math.floor(Math.log10(raw))), m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
  }
  function axisLabel(us, step) {
    var unit = step >= 1e6 ? [1e6, ' s'] : step >= 1000 ? [1000, ' ms'] : [1, ' us'];
    var digits = Math.max(0, -Math.floor(Math.log10(step / unit[0]) + 1e-9));
    return (us / unit[0]).toFixed(digits) + unit[1];
  }
  var COLORS = { record: '#1f6feb', ipc_record: '#1f6feb', wait: '#8250df', ipc_wait: '#8250df', reset: '#57606a', memcpy: '#1a7f37', memset: '#1a7f37', host_func: '#bf8700' };

  function timeline(tl, host) {
    var zoom = 1;
    var LABEL = 230, ROW = 16, HEAD = 18, AXIS = 34;
    var wrap = host.querySelector('.tl-wrap');
    var y = {}; var top = AXIS; var laneTop = [];
    tl.lanes.forEach(function (lane, li) {
      laneTop.push(top); top += HEAD;
      lane.rows.forEach(function (row, ri) { y[li + '/' + ri] = top; top += ROW; });
      top += 6;
    });
    var height = top + 4;
    var labelGroup = null;
    wrap.addEventListener('scroll', function () { if (labelGroup) labelGroup.setAttribute('transform', 'translate(' + wrap.scrollLeft + ',0)'); });
    function draw() {
      var plot = Math.max(200, (wrap.clientWidth - LABEL - 24) * zoom);
      var span = Math.max(tl.endT, 1) * 1.02;
      function x(t) { return LABEL + (t / span) * plot; }
      wrap.innerHTML = '';
      var svg = el('svg', { width: LABEL + plot + 16, height: height, 'class': 'timeline' }, wrap);
      var defs = el('defs', {}, svg);
      var m = el('marker', { id: 'arrowhead', viewBox: '0 0 10 10', refX: '9', refY: '5', markerWidth: '6', markerHeight: '6', orient: 'auto-start-reverse' }, defs);
      el('path', { d: 'M0,0 L10,5 L0,10 z', fill: '#cf222e' }, m);
      var step = niceStep(Math.max(span, 1e-3) / Math.min(zoom, 64)); // more ticks when zoomed in, bounded
      for (var t = 0; t <= span; t += step) {
        el('line', { x1: x(t), x2: x(t), y1: AXIS - 4, y2: height, stroke: '#eaeef2', 'class': 'axis-tick' }, svg);
        // The last labels end at their tick: never cut by the plot's edge.
        var right = x(t) > LABEL + plot - 60;
        var lab = el('text', { x: right ? x(t) - 2 : x(t) + 2, y: 12, 'font-size': 10, fill: '#656d76', 'text-anchor': right ? 'end' : 'start', 'class': 'axis-label' }, svg); lab.textContent = axisLabel(t, step);
      }
      tl.lanes.forEach(function (lane, li) {
        el('rect', { x: 0, y: laneTop[li], width: LABEL + plot + 16, height: HEAD - 2, fill: '#f6f8fa' }, svg);
      });
      // Release arrows are drawn over the bars but take no pointer: a short wait lies under the end
      // of its own arrow, and its bar must still show its details. An arrow's own hover is a wider
      // invisible path under the bars, so where both are, the bar wins.
      var arrows = tl.arrows.map(function (a) {
        var x1 = x(a[2]), y1 = y[a[0] + '/' + a[1]] + ROW / 2, x2 = x(a[5]), y2 = y[a[3] + '/' + a[4]] + ROW / 2;
        var mid = Math.max(x1, x2) + 12;
        return {
          d: 'M' + x1 + ',' + y1 + ' C' + mid + ',' + y1 + ' ' + mid + ',' + y2 + ' ' + x2 + ',' + y2,
          tip: 'record in ' + tl.lanes[a[0]].label + ' released a wait in ' + tl.lanes[a[3]].label + '\nrecord at ' + fmt(a[2]) + ', wait ended at ' + fmt(a[5]),
        };
      });
      arrows.forEach(function (a) {
        hover(el('path', { d: a.d, fill: 'none', stroke: 'transparent', 'stroke-width': 8, 'pointer-events': 'stroke', 'class': 'arrow-hit' }, svg), a.tip);
      });
      tl.bars.forEach(function (b) {
        var top = y[b[0] + '/' + b[1]] + 2, h = ROW - 4;
        var color = COLORS[b[6]] || '#6e7781';
        if (b[4] > 0) el('rect', { x: x(b[2] - b[4]), y: top + 3, width: Math.max(1, x(b[2]) - x(b[2] - b[4])), height: h - 6, fill: color, opacity: 0.25, 'pointer-events': 'none', 'class': 'queue' }, svg);
        // A transparent 4 px stroke widens where the pointer finds a bar (a short wait is 1.5 px wide).
        var bar = el('rect', { x: x(b[2]), y: top, width: Math.max(1.5, x(b[2] + b[3]) - x(b[2])), height: h, fill: color, stroke: b[7] ? '#cf222e' : 'transparent', 'stroke-width': b[7] ? 1 : 4, 'pointer-events': 'all', 'stroke-dasharray': b[7] ? '3,2' : '', 'class': 'bar' }, svg);
        hover(bar, b[5] + '\nrole: ' + tl.lanes[b[0]].label + '\n' + tl.lanes[b[0]].rows[b[1]].label + '\nstart ' + fmt(b[2]) + (b[7] === 2 ? ', stopped by the harness: unfinished at ' + tl.unfinishedUntil + ' (' + fmt(b[3]) + ' later)' : b[7] ? ', never finished: drawn up to ' + tl.unfinishedUntil + ' (' + fmt(b[3]) + ' later)' : ', took ' + fmt(b[3])) + (b[4] > 0 ? '\nqueued ' + fmt(b[4]) + ' before it started' : ''));
      });
      tl.ticks.forEach(function (k) {
        var top = y[k[0] + '/' + k[1]];
        var tick = el('line', { x1: x(k[2]), x2: x(k[2]), y1: top + 1, y2: top + ROW - 1, stroke: k[4] === 'mark' ? '#0969da' : k[4] === 'cancel' ? '#cf222e' : '#57606a', 'stroke-width': 2, 'class': k[4] === 'mark' ? 'mark' : 'tick' }, svg);
        hover(tick, k[3] + '\n' + tl.lanes[k[0]].label + '\nat ' + fmt(k[2]));
      });
      arrows.forEach(function (a) {
        el('path', { d: a.d, fill: 'none', stroke: '#cf222e', 'stroke-width': 1.2, 'stroke-opacity': arrows.length > 16 ? 0.4 : 1, 'marker-end': 'url(#arrowhead)', 'pointer-events': 'none', 'class': 'arrow' }, svg);
      });
      [[tl.failureT, '#cf222e', 'first failure'], [tl.deadlineT, '#9a6700', 'deadline']].forEach(function (v) {
        if (v[0] === null) return;
        var line = el('line', { x1: x(v[0]), x2: x(v[0]), y1: AXIS - 16, y2: height, stroke: v[1], 'stroke-width': 2, 'stroke-dasharray': '6,3', 'class': 'vline' }, svg);
        var t = el('text', { x: x(v[0]) + 3, y: v[2] === 'deadline' ? 26 : 34, 'font-size': 10, fill: v[1], 'text-anchor': x(v[0]) > LABEL + plot - 80 ? 'end' : 'start' }, svg); t.textContent = v[2];
        hover(line, v[2] + ' at ' + fmt(v[0]));
      });
      // The labels stay in view when the zoomed plot scrolls sideways.
      var labels = el('g', { 'class': 'labels' }, svg);
      el('rect', { x: 0, y: 0, width: LABEL - 4, height: height, fill: '#fff', opacity: 0.92 }, labels);
      tl.lanes.forEach(function (lane, li) {
        el('rect', { x: 0, y: laneTop[li], width: LABEL - 4, height: HEAD - 2, fill: '#f6f8fa' }, labels);
        var h = el('text', { x: 4, y: laneTop[li] + 12, 'font-size': 12, 'font-weight': 600, 'class': 'lane-label' }, labels); h.textContent = lane.label;
        lane.rows.forEach(function (row, ri) {
          var r = el('text', { x: 14, y: y[li + '/' + ri] + 11, 'font-size': 10, fill: '#656d76' }, labels); r.textContent = row.label;
        });
      });
      labelGroup = labels;
      labels.setAttribute('transform', 'translate(' + wrap.scrollLeft + ',0)');
      host.querySelector('.zoom-level').textContent = Math.round(zoom * 100) + '%';
    }
    host.querySelector('.zoom-in').addEventListener('click', function () { zoom = Math.min(zoom * 2, 1024); draw(); });
    host.querySelector('.zoom-out').addEventListener('click', function () { zoom = Math.max(zoom / 2, 1); draw(); });
    host.querySelector('.zoom-fit').addEventListener('click', function () { zoom = 1; draw(); });
    wrap.addEventListener('wheel', function (ev) {
      if (!ev.ctrlKey) return;
      ev.preventDefault();
      var before = wrap.scrollLeft + ev.clientX - wrap.getBoundingClientRect().left;
      var old = zoom;
      zoom = Math.min(Math.max(ev.deltaY < 0 ? zoom * 1.25 : zoom / 1.25, 1), 1024);
      draw();
      wrap.scrollLeft = before * (zoom / old) - (ev.clientX - wrap.getBoundingClientRect().left);
    }, { passive: false });
    draw();
  }

  function waitGraph(g, host) {
    var n = g.nodes.length, W = Math.max(520, 140 * Math.min(n, 8), 36 * n), H = n > 2 ? W * 0.7 : 160, R = Math.min(W, H) / 2 - 50;
    var svg = el('svg', { width: W, height: H, 'class': 'wait-graph' }, host);
    var defs = el('defs', {}, svg);
    [['wg-head', '#57606a'], ['wg-head-cycle', '#cf222e']].forEach(function (d) {
      var m = el('marker', { id: d[0], viewBox: '0 0 10 10', refX: '10', refY: '5', markerWidth: '8', markerHeight: '8', orient: 'auto' }, defs);
      el('path', { d: 'M0,0 L10,5 L0,10 z', fill: d[1] }, m);
    });
    var pos = {};
    g.nodes.forEach(function (node, i) {
      // One role in the middle, two side by side, more on a circle.
      var a = -Math.PI / 2 + (2 * Math.PI * i) / Math.max(n, 1);
      pos[node.name] = n === 1 ? [W / 2, H / 2] : n === 2 ? [W / 2 + (i === 0 ? -150 : 150), H / 2] : [W / 2 + R * Math.cos(a), H / 2 + R * Math.sin(a)];
    });
    var BOX_W = n > 12 ? 80 : 120, BOX_H = 36; // many roles: smaller boxes on a larger circle
    g.edges.forEach(function (e) {
      var p = pos[e.from], q = pos[e.to];
      if (!p || !q) return;
      var dx = q[0] - p[0], dy = q[1] - p[1], len = Math.sqrt(dx * dx + dy * dy) || 1;
      // Leave the boxes; bend a little so that A→B and B→A do not overlap.
      var ux = dx / len, uy = dy / len;
      var s = Math.min(Math.abs((BOX_W / 2) / (ux || 1e-9)), Math.abs((BOX_H / 2) / (uy || 1e-9)));
      var x1 = p[0] + ux * s, y1 = p[1] + uy * s, x2 = q[0] - ux * (s + 2), y2 = q[1] - uy * (s + 2);
      var cx = (x1 + x2) / 2 - uy * 30, cy = (y1 + y2) / 2 + ux * 30;
      el('path', { d: 'M' + x1 + ',' + y1 + ' Q' + cx + ',' + cy + ' ' + x2 + ',' + y2, fill: 'none', stroke: e.inCycle ? '#cf222e' : '#57606a', 'stroke-width': e.inCycle ? 3 : 1.5, 'marker-end': 'url(#' + (e.inCycle ? 'wg-head-cycle' : 'wg-head') + ')', 'class': e.inCycle ? 'wg-edge cycle' : 'wg-edge' }, svg);
    });
    g.nodes.forEach(function (node) {
      var p = pos[node.name];
      var grp = el('g', { 'class': node.inCycle ? 'wg-node cycle' : 'wg-node' }, svg);
      el('rect', { x: p[0] - BOX_W / 2, y: p[1] - BOX_H / 2, width: BOX_W, height: BOX_H, rx: 6, fill: node.inCycle ? '#ffebe9' : '#f6f8fa', stroke: node.inCycle ? '#cf222e' : '#8c959f', 'stroke-width': node.inCycle ? 2 : 1 }, grp);
      var t = el('text', { x: p[0], y: p[1] + (node.call ? -2 : 4), 'text-anchor': 'middle', 'font-size': 13, 'font-weight': 600 }, grp); t.textContent = node.name;
      if (node.call) { var c = el('text', { x: p[0], y: p[1] + 12, 'text-anchor': 'middle', 'font-size': 9, fill: '#656d76' }, grp); var name = node.call.split('(')[0]; c.textContent = name.length > 22 ? name.slice(0, 21) + '…' : name; }
      hover(grp, node.name + (node.call ? '\nin ' + node.call : '') + (node.inCycle ? '\npart of the deadlock' : ''));
    });
  }

  var tlHost = document.getElementById('timeline');
  if (tlHost && data.timeline) timeline(data.timeline, tlHost);
  var wgHost = document.getElementById('wait-graph');
  if (wgHost && data.waitGraph) waitGraph(data.waitGraph, wgHost);
})();
`;
