/* Kernel Atlas: charts, theme, language, and the tables' sorting and filtering.
 *
 * Naming rules shared with Python (generator/views.py and generator/render.py say the same):
 * - Charts: <div class="chart" data-figure="ID"> draws the figure JSON held in
 *   <script type="application/json" id="ID"> (ids "fig-<name>"). The JSON carries no
 *   colors for the theme: they are applied here from the CSS variables --fg and --grid.
 *   Its words are English; fig.zh holds the 中文 overrides ({"layout": {path: text},
 *   "traces": {index: {attribute: value}}}), applied when html[data-lang] is zh.
 * - Kernel page ids: capture "c<i>", its source-file rows "c<i>-f<j>" and "c<i>-unk", its
 *   ISA link "c<i>-isa"; each carries data-page (its page's relative address). Source pages
 *   (kernels/<slug>/src/c<i>/<file>.html) have lines "L<n>"; the ISA page (isa.html) rows
 *   "pc<pc>" (a long listing in parts: isa.html, isa-2.html..., listed in nav.isa-parts). The
 *   naming rule is generator/site/views/source.py's alone.
 * - Overview rows (tr.krow): data-verdict, data-category, data-search (lower-case),
 *   data-href (the kernel page, relative). Sortable cells: data-sort; headers:
 *   data-sort-type = "num" | "text". Empty data-sort sorts last in both directions.
 * - Translated text: data-i18n="<dotted.key>" (text) and data-i18n-placeholder; the
 *   catalogues are templates/i18n/<lang>.json, prepended to this file as window.KA_I18N
 *   (generator/site/i18n.py). Computed text (numbers in it) carries its 中文 in data-zh;
 *   data (names, numbers, code, verdict words) is marked translate="no" and stays as is.
 *   Attributes: data-i18n-title / -aria-label / -alt hold a key, data-zh-<attr> computed 中文
 *   (the English is kept in data-en-<attr>); text mixing words and data is printed in both
 *   languages (span.en-only / span.zh-only, shown by site.css from html[data-lang]).
 * - Overview rows also carry data-severity (near|tune|rewrite|""); the ranking switch is
 *   input[name=rank] (geomean|headline) showing #rank-geomean or #rank-headline.
 * - Kernel page filtered to a model: #model=<name> or ?model=<name> (URL-encoded); shape
 *   rows carry data-models="a|b" (generator/site/views/coverage.py builds the links).
 * - Static assets are named static/<stem>.<sha256[:10]><ext>; nothing here builds names.
 * - Glossary links: a.term (href ".../glossary.html#<id>", data-zh-term "a|b"), written by
 *   generator/site/terms.py; swapText() keeps them when the language switch rewrites a text.
 * - plotly.js's address (relative to the page) is this script tag's data-plotly (templates/base.html);
 *   a chart box carries its height (style) before it is drawn.
 * - localStorage keys: "kernel-atlas.theme" (light|dark), "kernel-atlas.lang" (en|zh).
 * - The address's query holds the reader's choices (issue 23): lang=zh|en and theme=light|dark
 *   on every page (over localStorage; templates/base.html reads theme in <head>); on the overview
 *   q (search), verdict, category, severity, group=0 (flat), rank=headline and
 *   sort=<column>-<asc|desc> (<column>: the header's data-i18n key without "col.").
 * - A large overview (generator/site/deferred.py says the same): <template data-deferred="KEY">
 *   marks a part held by index-data.js as window.KA_DEFERRED = {KEY: html}, put back first;
 *   #pager (data-page-size) then shows the kernel table a page at a time, filters, sorting and
 *   search working over every row; #page-prev, #page-next, #page-at ("page / pages").
 * No fetch(): every page carries its own data, so the site works from file://.
 */
(function () {
  "use strict";

  var KEY_THEME = "kernel-atlas.theme";
  var KEY_LANG = "kernel-atlas.lang";
  var root = document.documentElement;

  function load(key) { try { return window.localStorage.getItem(key); } catch (e) { return null; } }
  function save(key, value) { try { window.localStorage.setItem(key, value); } catch (e) { /* file:// may refuse */ } }

  /* ---- issue 23 (6): the reader's choices ride in the address's query, so a shared link opens
     the same view (names in the header comment). Written with replaceState: no history entry. */
  function param(name) {
    try { return new URLSearchParams(window.location.search).get(name); } catch (e) { return null; }
  }

  function writeParams(update) {
    var params;
    try { params = new URLSearchParams(window.location.search); } catch (e) { return; }
    var before = params.toString();
    Object.keys(update).forEach(function (k) {
      if (update[k] === null || update[k] === "") { params.delete(k); } else { params.set(k, update[k]); }
    });
    var query = params.toString();
    if (query === before || !window.history || !window.history.replaceState) { return; }
    try {
      window.history.replaceState(window.history.state, "", window.location.pathname + (query ? "?" + query : "") + window.location.hash);
    } catch (e) { /* an address that cannot be rewritten keeps its old query */ }
  }
  /* ---- end issue 23 (6) */

  // ------------------------------------------------------------------ theme
  function effectiveTheme() {
    var t = root.getAttribute("data-theme");
    if (t === "light" || t === "dark") { return t; }
    return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  }

  function cssVar(name) { return getComputedStyle(root).getPropertyValue(name).trim(); }

  function themeUpdate() {
    var fg = cssVar("--fg"), grid = cssVar("--grid"), muted = cssVar("--muted");
    return {
      "paper_bgcolor": "rgba(0,0,0,0)", "plot_bgcolor": "rgba(0,0,0,0)",
      "font.color": fg, "legend.font.color": fg,
      "xaxis.gridcolor": grid, "yaxis.gridcolor": grid,
      "xaxis.linecolor": muted, "yaxis.linecolor": muted,
      "xaxis.zerolinecolor": grid, "yaxis.zerolinecolor": grid
    };
  }

  function applyUpdate(layout, update) {
    Object.keys(update).forEach(function (path) {
      var parts = path.split("."), obj = layout;
      for (var i = 0; i < parts.length - 1; i++) {
        if (typeof obj[parts[i]] !== "object" || obj[parts[i]] === null) { obj[parts[i]] = {}; }
        obj = obj[parts[i]];
      }
      obj[parts[parts.length - 1]] = update[path];
    });
    return layout;
  }

  // ------------------------------------------------------------------ charts
  var CONFIG = { responsive: true, displaylogo: false, modeBarButtonsToRemove: ["lasso2d", "select2d"] };

  // A figure's 中文 rides in fig.zh (generator/site/charts.py): layout paths and per-trace attributes.
  /* ---- issue 23 (5): the plotly toolbar sits in the top margin, never on the plot; in a narrow
     box (a phone) a long axis title is wrapped to the plot's span (its words kept whole) and a
     label axis that sizes itself (automargin) starts from a small left margin. */
  var MODEBAR_ROOM = 30;    // px: the toolbar's height with its padding
  var NARROW = 600;         // px: a box narrower than this is a phone's
  var TITLE_CHAR = 8;       // px: the width of a title character, generously

  function wrapWords(text, width) {
    var lines = [], line = "";
    text.split(" ").forEach(function (word) {
      if (line && (line + " " + word).length > width) { lines.push(line); line = word; } else { line = line ? line + " " + word : word; }
    });
    if (line) { lines.push(line); }
    return lines.join("<br>");
  }

  var LEGEND_ROW = 22;      // px: one row of a legend (issue 34)

  function fitLayout(layout, width, data) {
    var m = layout.margin = layout.margin || {};
    if (m.t === undefined || m.t < MODEBAR_ROOM) { m.t = MODEBAR_ROOM; }
    if (!width || width >= NARROW) { return layout; }
    if (layout.yaxis && layout.yaxis.automargin && (m.l === undefined || m.l > 60)) { m.l = 60; }
    var below = layout.showlegend && layout.legend && layout.legend.orientation === "h";
    if (below) {  // the legend at the figure's foot, two entries a row, the axis title above it
      applyUpdate(layout.legend, { xref: "container", x: 0, xanchor: "left", yref: "container", y: 0, yanchor: "bottom",
                                   entrywidth: 0.5, entrywidthmode: "fraction" });
      // issue 34: the foot grows by the legend's extra rows (two entries a row), so the rows never
      // reach the axis title above them, and the figure grows with it
      var entries = (data || []).filter(function (t) { return t.showlegend !== false; }).length;
      var extra = Math.max(0, Math.ceil(entries / 2) - 1) * LEGEND_ROW;
      m.b = (m.b === undefined ? 80 : m.b) + extra;
      layout.height += extra;
    }
    Object.keys(layout).forEach(function (key) {
      var axis = layout[key];
      if (!/^[xy]axis\d*$/.test(key) || !axis || !axis.title) { return; }
      var text = typeof axis.title === "string" ? axis.title : axis.title.text;
      if (!text) { return; }
      var span = key.charAt(0) === "x" ? width - (m.l === undefined ? 80 : m.l) - (m.r === undefined ? 80 : m.r)
        : layout.height - m.t - (m.b === undefined ? 80 : m.b);
      if (key.charAt(0) === "y" && below) { span = span / 2; }  // the legend's rows take the rest of the height
      var perLine = Math.max(10, Math.floor(span / TITLE_CHAR));
      axis.automargin = true;  // the title below the tick labels, inside the box
      if (text.length <= perLine) { return; }
      axis.title = typeof axis.title === "string" ? { text: wrapWords(text, perLine) } : applyUpdate(axis.title, { text: wrapWords(text, perLine) });
    });
    return layout;
  }
  /* ---- end issue 23 (5) */

  function figureFor(fig, zh, width) {
    var data = JSON.parse(JSON.stringify(fig.data || []));
    var layout = JSON.parse(JSON.stringify(fig.layout || {}));
    if (zh && fig.zh) {
      applyUpdate(layout, fig.zh.layout || {});
      var traces = fig.zh.traces || {};
      Object.keys(traces).forEach(function (i) {
        var trace = data[Number(i)];
        if (!trace) { return; }
        Object.keys(traces[i]).forEach(function (k) { trace[k] = traces[i][k]; });
      });
    }
    if (!layout.height) { layout.height = 300; }
    /* ---- issue 13 (scale): explicit heights. The box is as tall as the figure, so that
       plotly's responsive resize follows the width only and never collapses the height. */
    layout.autosize = true;
    /* ---- end issue 13 (scale) */
    return { data: data, layout: fitLayout(applyUpdate(layout, themeUpdate()), width, data) };
  }

  function isZh() { return root.getAttribute("data-lang") === "zh"; }

  /* ---- issue 23 (1): plotly.js is fetched only by a page that has a chart (its address rides
     on this script's data-plotly), after the first paint; a chart is drawn when it comes within
     CHART_MARGIN of the viewport (a hidden one when it is shown). */
  var PLOTLY_SRC = document.currentScript ? document.currentScript.getAttribute("data-plotly") : null;
  var CHART_MARGIN = "300px 0px";

  var plotlyState = "", plotlyWaiters = [];  // "" | "loading" | "failed"; [done, failed] pairs

  function loadPlotly(done, failed) {
    if (window.Plotly) { done(); return; }
    if (!PLOTLY_SRC || plotlyState === "failed") { failed(); return; }
    plotlyWaiters.push([done, failed]);
    if (plotlyState === "loading") { return; }
    plotlyState = "loading";
    var tag = document.createElement("script");
    function settle() {
      var ok = !!window.Plotly;
      plotlyState = ok ? "" : "failed";
      plotlyWaiters.splice(0).forEach(function (w) { w[ok ? 0 : 1](); });
    }
    tag.src = PLOTLY_SRC;
    tag.async = true;
    tag.onload = settle;
    tag.onerror = settle;
    document.head.appendChild(tag);
  }

  function drawChart(el) {
    var src = document.getElementById(el.getAttribute("data-figure"));
    if (!src || el.kaFigure) { return; }
    var fig = el.kaSketched || JSON.parse(src.textContent);
    el.kaFigure = fig;
    var f = figureFor(fig, isZh(), el.clientWidth);
    el.style.height = f.layout.height + "px";
    var sketch = el.querySelector("svg.chart-sketch");
    if (sketch) { el.removeChild(sketch); }
    window.Plotly.newPlot(el, f.data, f.layout, CONFIG);
  }

  /* ---- issue 41: a chart coming into view is drawn at once as a plain SVG of its figure (the
     "sketch": its traces, axes, shapes and legend, no hover), then plotly.js is fetched (after that
     paint) and draws it again in place, interactive. The first chart no longer waits for plotly.js
     (1.2 MB to parse and run). Same run, 7 cold loads each, medians, first chart / the hand-made
     page's load (benchmarks/bench_pages.view): overview 3.65x -> 1.87x, pa 3.57x -> 1.39x,
     flash_attn_func 4.32x -> 2.55x; plotly.js's own draw 3.65x -> 3.83x (overview). A figure the
     sketch does not draw (bars, subplots) waits for plotly.js as before. */
  var SVG = "http://www.w3.org/2000/svg";
  var COLORWAY = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];

  function svgNode(parent, name, attrs, text) {
    var n = document.createElementNS(SVG, name);
    Object.keys(attrs).forEach(function (k) { if (attrs[k] !== undefined && attrs[k] !== null) { n.setAttribute(k, attrs[k]); } });
    if (text !== undefined) { n.textContent = text; }
    parent.appendChild(n);
    return n;
  }

  function plainText(t) { return String(t === undefined || t === null ? "" : t).replace(/<br\s*\/?>/g, " ").replace(/<[^>]*>/g, ""); }

  function titleOf(t) { return plainText(t && typeof t === "object" ? t.text : t); }

  // One axis's scale: data value -> pixel, with its ticks; null when the sketch cannot draw it.
  function axisScale(axis, values, lo, hi) {
    axis = axis || {};
    var type = axis.type || (values.some(function (v) { return typeof v === "string"; }) ? "category" : "linear");
    var cats = null, d2l = function (v) { return typeof v === "number" ? v : NaN; };
    if (type === "log") {
      d2l = function (v) { return typeof v === "number" && v > 0 ? Math.log(v) / Math.LN10 : NaN; };
    } else if (type === "category") {
      cats = axis.categoryorder === "array" && axis.categoryarray ? axis.categoryarray.slice() : [];
      values.forEach(function (v) { if (cats.indexOf(v) < 0) { cats.push(v); } });
      d2l = function (v) { var i = cats.indexOf(v); return i < 0 ? NaN : i; };
    } else if (type !== "linear") {
      return null;
    }
    var range = axis.range ? axis.range.slice() : null;
    if (!range) {
      var ls = values.map(d2l).filter(isFinite);
      if (cats) { range = [-0.5, cats.length - 0.5]; } else if (!ls.length) { range = [0, 1]; } else {
        var a = Math.min.apply(null, ls), b = Math.max.apply(null, ls), pad = (b - a || Math.abs(a) || 1) * 0.06;
        range = [a - pad, b + pad];
      }
    }
    var ticks = [];
    if (axis.tickvals) {
      axis.tickvals.forEach(function (v, i) { ticks.push([d2l(v), axis.ticktext ? axis.ticktext[i] : String(v)]); });
    } else if (cats) {
      var every = Math.max(1, Math.ceil(cats.length / 30));
      cats.forEach(function (c, i) { if (i % every === 0) { ticks.push([i, c]); } });
    } else {
      var span = range[1] - range[0], step = Math.pow(10, Math.floor(Math.log(span / 5) / Math.LN10));
      step *= span / step > 25 ? 5 : span / step > 10 ? 2 : 1;
      if (type === "log") { step = Math.max(1, Math.round(step)); }
      for (var t = Math.ceil(range[0] / step) * step; t <= range[1] + 1e-9; t += step) {
        var v = type === "log" ? Math.pow(10, t) : t;
        ticks.push([t, String(Math.abs(v) < 1e-12 ? 0 : +v.toPrecision(6))]);
      }
    }
    return { d2l: d2l, range: range, ticks: ticks, lo: lo, hi: hi,
             px: function (v) { var l = d2l(v); return lo + (l - range[0]) / (range[1] - range[0]) * (hi - lo); },
             lpx: function (l) { return lo + (l - range[0]) / (range[1] - range[0]) * (hi - lo); } };
  }

  function sketchMarker(g, x, y, symbol, size, color, opacity) {
    var open = /-open/.test(symbol || ""), r = size / 2;
    var a = { "class": "point", fill: open ? "none" : color, stroke: color, "stroke-width": open ? 1.5 : 0, opacity: opacity };
    var corners = /^diamond/.test(symbol || "") ? [[0, -r], [r, 0], [0, r], [-r, 0]]
      : /^triangle-up/.test(symbol || "") ? [[0, -r], [r, r * 0.8], [-r, r * 0.8]]
      : /^triangle-down/.test(symbol || "") ? [[0, r], [r, -r * 0.8], [-r, -r * 0.8]]
      : /^square/.test(symbol || "") ? [[-r, -r], [r, -r], [r, r], [-r, r]] : null;
    if (corners) {
      a.d = "M" + corners.map(function (c) { return (x + c[0]) + "," + (y + c[1]); }).join("L") + "Z";
      svgNode(g, "path", a);
    } else if (/^x/.test(symbol || "")) {
      svgNode(g, "path", { "class": "point", d: "M" + (x - r) + "," + (y - r) + "L" + (x + r) + "," + (y + r) + "M" + (x - r) + "," + (y + r) + "L" + (x + r) + "," + (y - r),
                           stroke: color, "stroke-width": 1.5, fill: "none", opacity: opacity });
    } else {
      a.cx = x; a.cy = y; a.r = r;
      svgNode(g, "circle", a);
    }
  }

  function pick(value, i, fallback) { return Array.isArray(value) ? (value[i] === undefined ? fallback : value[i]) : (value === undefined ? fallback : value); }

  // The error bars of one point along one axis (plotly's error_x / error_y of type "data").
  function sketchError(g, err, i, scale, x, y, horizontal, color) {
    if (!err || err.visible === false || !Array.isArray(err.array)) { return; }
    var v = horizontal ? x : y, plus = err.array[i], minus = err.symmetric === false && err.arrayminus ? err.arrayminus[i] : plus;
    if (typeof plus !== "number" || typeof v !== "number") { return; }
    var a = scale.px(v + plus), b = scale.px(v - (minus || 0));
    if (!isFinite(a) || !isFinite(b)) { return; }
    var other = horizontal ? "y" : "x", at = horizontal ? y : x;
    var line = { stroke: err.color || color, "stroke-width": err.thickness || 1.5 };
    line[horizontal ? "x1" : "y1"] = a; line[horizontal ? "x2" : "y2"] = b; line[other + "1"] = at; line[other + "2"] = at;
    svgNode(g, "line", line);
  }

  // The sketch of a figure in el (see above); false when a trace or an axis is one it does not draw.
  function sketchChart(el, fig) {
    var f = figureFor(fig, isZh(), el.clientWidth), lay = f.layout, data = f.data;
    var ok = data.every(function (t) { return (t.type || "scatter") === "scatter" && !t.xaxis && !t.yaxis; });
    if (!ok || lay.xaxis2 || lay.yaxis2) { return false; }
    var W = el.clientWidth, H = lay.height, m = lay.margin || {};
    var ml = m.l === undefined ? 80 : m.l, mr = m.r === undefined ? 80 : m.r, mt = m.t, mb = m.b === undefined ? 80 : m.b;
    var shown = data.filter(function (t) { return t.visible !== false && t.visible !== "legendonly"; });
    var xs = [], ys = [];
    shown.forEach(function (t) { xs = xs.concat(t.x || []); ys = ys.concat(t.y || []); });
    var sy = axisScale(lay.yaxis, ys, H - mb, mt);
    if (sy && lay.yaxis && lay.yaxis.automargin) {  // room for the longest tick label, as plotly makes it
      ml = Math.max(ml, 12 + 6.2 * Math.max.apply(null, sy.ticks.map(function (t) { return plainText(t[1]).length; }).concat([0])));
    }
    var sx = axisScale(lay.xaxis, xs, ml, W - mr);
    if (!sx || !sy) { return false; }
    var fg = (lay.font && lay.font.color) || "#444", grid = (lay.xaxis && lay.xaxis.gridcolor) || "#eee";
    var svg = svgNode(el, "svg", { "class": "chart-sketch", width: W, height: H, viewBox: "0 0 " + W + " " + H,
                                   "font-family": "system-ui, sans-serif", "font-size": 12, fill: fg, "aria-hidden": "true" });
    var inside = function (p, s) { return p >= Math.min(s.lo, s.hi) - 0.5 && p <= Math.max(s.lo, s.hi) + 0.5; };
    sx.ticks.forEach(function (t) {
      var x = sx.lpx(t[0]);
      if (!inside(x, sx)) { return; }
      svgNode(svg, "line", { x1: x, x2: x, y1: mt, y2: H - mb, stroke: grid });
      svgNode(svg, "text", { x: x, y: H - mb + 16, "text-anchor": "middle" }, plainText(t[1]));
    });
    sy.ticks.forEach(function (t) {
      var y = sy.lpx(t[0]);
      if (!inside(y, sy)) { return; }
      svgNode(svg, "line", { x1: ml, x2: W - mr, y1: y, y2: y, stroke: grid });
      svgNode(svg, "text", { x: ml - 6, y: y + 4, "text-anchor": "end" }, plainText(t[1]));
    });
    (lay.shapes || []).forEach(function (s) {
      var px = function (v, ref, sc) { return ref === "paper" ? sc.lo + v * (sc.hi - sc.lo) : sc.px(v); };
      var x0 = px(s.x0, s.xref, sx), x1 = px(s.x1, s.xref, sx), y0 = px(s.y0, s.yref, sy), y1 = px(s.y1, s.yref, sy);
      if (![x0, x1, y0, y1].every(isFinite)) { return; }
      var line = s.line || {};
      if (s.type === "rect") {
        svgNode(svg, "rect", { x: Math.min(x0, x1), y: Math.min(y0, y1), width: Math.abs(x1 - x0), height: Math.abs(y1 - y0),
                               fill: s.fillcolor || "none", stroke: line.width ? line.color : "none" });
      } else if (s.type === "line") {
        svgNode(svg, "line", { x1: x0, x2: x1, y1: y0, y2: y1, stroke: line.color || fg, "stroke-width": line.width || 2,
                               "stroke-dasharray": line.dash === "dash" ? "9,9" : line.dash === "dot" ? "3,3" : null });
      }
    });
    var legend = [];
    data.forEach(function (t, k) {
      var color = (t.marker && typeof t.marker.color === "string" && t.marker.color) || (t.line && t.line.color) || COLORWAY[k % COLORWAY.length];
      if (t.name && t.showlegend !== false) { legend.push([t.name, color, /markers/.test(t.mode || "") ? pick((t.marker || {}).symbol, 0, "circle") : null]); }
      if (t.visible === false || t.visible === "legendonly") { return; }
      var g = svgNode(svg, "g", { "class": "trace" }), mode = t.mode || "lines+markers", x = t.x || [], y = t.y || [];
      if (/lines/.test(mode)) {
        var d = "", pen = false;
        x.forEach(function (xv, i) {
          var px = sx.px(xv), py = sy.px(y[i]);
          if (!isFinite(px) || !isFinite(py)) { pen = false; return; }
          d += (pen ? "L" : "M") + px.toFixed(1) + "," + py.toFixed(1);
          pen = true;
        });
        var ln = t.line || {};
        svgNode(g, "path", { d: d, fill: "none", stroke: ln.color || color, "stroke-width": ln.width || 2,
                             "stroke-dasharray": ln.dash === "dash" ? "9,9" : ln.dash === "dot" ? "3,3" : null });
      }
      var mk = t.marker || {};
      x.forEach(function (xv, i) {
        var px = sx.px(xv), py = sy.px(y[i]);
        if (!isFinite(px) || !isFinite(py)) { return; }
        var c = pick(mk.color, i, color);
        sketchError(g, t.error_x, i, sx, xv, py, true, c);
        sketchError(g, t.error_y, i, sy, px, y[i], false, c);
        if (/markers/.test(mode)) { sketchMarker(g, px, py, pick(mk.symbol, i, "circle"), pick(mk.size, i, 6), c, t.opacity); }
      });
    });
    var xt = titleOf(lay.xaxis && lay.xaxis.title), yt = titleOf(lay.yaxis && lay.yaxis.title);
    if (xt) { svgNode(svg, "text", { x: (ml + W - mr) / 2, y: H - mb + 36, "text-anchor": "middle" }, xt); }
    if (yt) { svgNode(svg, "text", { x: 14, y: (mt + H - mb) / 2, "text-anchor": "middle", transform: "rotate(-90 14 " + (mt + H - mb) / 2 + ")" }, yt); }
    if (lay.showlegend !== false && legend.length > 1) {
      var lx = ml, ly = H - 8;
      legend.forEach(function (e) {
        var label = plainText(e[0]);
        if (e[2]) { sketchMarker(svg, lx + 5, ly - 4, e[2], 10, e[1]); } else { svgNode(svg, "line", { x1: lx, x2: lx + 10, y1: ly - 4, y2: ly - 4, stroke: e[1], "stroke-width": 2 }); }
        svgNode(svg, "text", { x: lx + 14, y: ly }, label);
        lx += 30 + label.length * 6.5;
      });
    }
    el.style.height = H + "px";
    return true;
  }

  function sketch(el) {
    var src = document.getElementById(el.getAttribute("data-figure"));
    if (!src || el.kaFigure || el.kaSketched) { return; }
    var fig = JSON.parse(src.textContent);
    try {
      if (sketchChart(el, fig)) { el.kaSketched = fig; }
    } catch (e) { /* plotly.js draws it alone */ }
  }
  /* ---- end issue 41 */

  function drawCharts() {
    var nodes = document.querySelectorAll(".chart[data-figure]");
    if (!nodes.length) { return; }
    var failed = false, fetched = false, waiting = [];
    function flush() { waiting.splice(0).forEach(drawChart); }
    function fail() {
      failed = true;
      nodes.forEach(function (n) {
        n.innerHTML = "<p class=\"chart-error\" data-i18n=\"chart.nolib\">" + tr("chart.nolib") + "</p>";
      });
    }
    function draw(el) {
      if (failed) { return; }
      waiting.push(el);
      if (fetched) { loadPlotly(flush, fail); }
    }
    function fetchOnce() {  // after the sketches in view are painted (a frame, then a task)
      if (fetched) { return; }
      fetched = true;
      loadPlotly(flush, fail);
    }
    if (!("IntersectionObserver" in window)) { nodes.forEach(draw); fetchOnce(); return; }
    var asked = false;
    var seen = new IntersectionObserver(function (entries) {
      entries.forEach(function (e) {
        if (e.isIntersecting) { seen.unobserve(e.target); sketch(e.target); draw(e.target); }
      });
      if (!asked) {
        asked = true;
        window.requestAnimationFrame(function () { window.setTimeout(fetchOnce, 0); });
      }
    }, { rootMargin: CHART_MARGIN });
    nodes.forEach(function (el) { seen.observe(el); });
  }
  /* ---- end issue 23 (1) */

  // the language toggle: each drawn chart again in the page's language, same size
  function relabelCharts() {
    if (!window.Plotly) { return; }
    document.querySelectorAll(".chart.js-plotly-plot").forEach(function (el) {
      if (!el.kaFigure || !el.kaFigure.zh) { return; }
      var f = figureFor(el.kaFigure, isZh(), el.clientWidth);
      window.Plotly.react(el, f.data, f.layout, CONFIG);
    });
  }

  function recolorCharts() {
    if (!window.Plotly) { return; }
    var update = themeUpdate();
    document.querySelectorAll(".chart.js-plotly-plot").forEach(function (el) {
      window.Plotly.relayout(el, update);
    });
  }

  function setTheme(theme) {
    root.setAttribute("data-theme", theme);
    save(KEY_THEME, theme);
    writeParams({ theme: theme });
    recolorCharts();
  }

  // ------------------------------------------------------------------ language
  // The catalogues (templates/i18n/<lang>.json) ride in front of this file as window.KA_I18N.
  var CATALOGUES = window.KA_I18N || {};
  var I18N = CATALOGUES.zh || {};
  var EN = CATALOGUES.en || {};
  function tr(key) { return (root.getAttribute("data-lang") === "zh" ? I18N : EN)[key] || EN[key] || key; }

  // Glossary links (generator/site/terms.py): an a.term inside text the switch rewrites is put back
  // around the term's words in the new text: its 中文 forms (data-zh-term, "a|b") or its English.
  // A link whose words the new text lacks waits on the element (kaTerms) for the next switch.
  function swapText(el, text) {
    if (!el.kaTerms) {
      el.kaTerms = Array.prototype.slice.call(el.querySelectorAll("a.term"));
      el.kaTerms.forEach(function (a) { a.setAttribute("data-en-term", a.textContent); });
    }
    el.textContent = text;
    el.kaTerms.forEach(function (a) { relink(el, a); });
  }

  function relink(el, a) {
    var en = a.getAttribute("data-en-term");
    var forms = isZh() ? (a.getAttribute("data-zh-term") || "").split("|").concat([en]) : [en];
    var nodes = Array.prototype.filter.call(el.childNodes, function (n) { return n.nodeType === 3; });
    for (var i = 0; i < forms.length; i++) {
      for (var j = 0; forms[i] && j < nodes.length; j++) {
        var at = nodes[j].data.toLowerCase().indexOf(forms[i].toLowerCase());
        if (at < 0) { continue; }
        var word = nodes[j].splitText(at);
        word.splitText(forms[i].length);
        a.textContent = word.data;
        el.replaceChild(a, word);
        return;
      }
    }
  }

  function setLang(lang, remember) {
    var zh = lang === "zh";
    root.setAttribute("data-lang", zh ? "zh" : "en");
    root.setAttribute("lang", zh ? "zh-CN" : "en");
    document.querySelectorAll("[data-i18n]").forEach(function (el) {
      var key = el.getAttribute("data-i18n");
      if (!key || !Object.prototype.hasOwnProperty.call(I18N, key)) { return; }
      if (!el.hasAttribute("data-i18n-en")) { el.setAttribute("data-i18n-en", el.textContent); }
      swapText(el, zh ? I18N[key] : el.getAttribute("data-i18n-en"));
    });
    // computed text (diagnosis clauses, severity): the 中文 version rides in data-zh
    document.querySelectorAll("[data-zh]").forEach(function (el) {
      if (!el.hasAttribute("data-i18n-en")) { el.setAttribute("data-i18n-en", el.textContent); }
      swapText(el, zh ? el.getAttribute("data-zh") : el.getAttribute("data-i18n-en"));
    });
    // attributes (tooltips, labels for screen readers, alt text): a key in data-i18n-<attr>,
    // or computed 中文 in data-zh-<attr>; the English is kept in data-en-<attr>
    ["title", "aria-label", "alt"].forEach(function (attr) {
      document.querySelectorAll("[data-i18n-" + attr + "],[data-zh-" + attr + "]").forEach(function (el) {
        var saved = "data-en-" + attr, key = el.getAttribute("data-i18n-" + attr);
        if (!el.hasAttribute(saved)) { el.setAttribute(saved, el.getAttribute(attr) || ""); }
        var text = key ? I18N[key] : el.getAttribute("data-zh-" + attr);
        el.setAttribute(attr, zh && text ? text : el.getAttribute(saved));
      });
    });
    document.querySelectorAll("[data-i18n-placeholder]").forEach(function (el) {
      var key = el.getAttribute("data-i18n-placeholder");
      if (!el.hasAttribute("data-i18n-en")) { el.setAttribute("data-i18n-en", el.getAttribute("placeholder") || ""); }
      el.setAttribute("placeholder", zh && I18N[key] ? I18N[key] : el.getAttribute("data-i18n-en"));
    });
    var button = document.getElementById("lang-toggle");
    if (button) { button.textContent = zh ? "EN" : "中文"; }
    if (document.getElementById("model-filter")) { applyModelFilter(false); }
    relabelCharts();
    if (remember !== false) { save(KEY_LANG, zh ? "zh" : "en"); }
    writeParams({ lang: zh ? "zh" : "en" });
  }

  // ------------------------------------------------------------------ sortable tables
  function cellValue(row, index, type) {
    var cell = row.cells[index];
    if (!cell) { return null; }
    var raw = cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent.trim();
    if (raw === "") { return null; }
    if (type === "num") { var n = parseFloat(raw); return isNaN(n) ? null : n; }
    return raw.toLowerCase();
  }

  function sortTable(table, th, direction) {
    var index = th.cellIndex, type = th.getAttribute("data-sort-type");
    var asc = direction ? direction === "asc" : !th.classList.contains("sorted-asc");
    table.querySelectorAll("th[data-sort-type]").forEach(function (h) { h.classList.remove("sorted-asc", "sorted-desc"); });
    th.classList.add(asc ? "sorted-asc" : "sorted-desc");
    if (table.id === "kernel-table") { writeParams({ sort: sortKey(th) + "-" + (asc ? "asc" : "desc") }); }
    table.querySelectorAll("tbody").forEach(function (body) {
      var rows = Array.prototype.filter.call(body.rows, function (r) { return !r.classList.contains("group-head"); });
      rows.sort(function (a, b) {
        var x = cellValue(a, index, type), y = cellValue(b, index, type);
        if (x === null && y === null) { return 0; }
        if (x === null) { return 1; }
        if (y === null) { return -1; }
        var c = type === "num" ? x - y : (x < y ? -1 : x > y ? 1 : 0);
        return asc ? c : -c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
    table.dispatchEvent(new Event("ka-sorted"));  // the overview shows its first page again
  }

  // a kernel-table column in the address: its header's data-i18n key without "col."
  function sortKey(th) { return (th.getAttribute("data-i18n") || String(th.cellIndex)).replace(/^col\./, ""); }

  function restoreSort(table, sort) {
    var m = /^(.+)-(asc|desc)$/.exec(sort || "");
    if (!m) { return; }
    table.querySelectorAll("thead th[data-sort-type]").forEach(function (th) {
      if (sortKey(th) === m[1]) { sortTable(table, th, m[2]); }
    });
  }

  function setupSorting() {
    document.querySelectorAll("table.sortable").forEach(function (table) {
      table.querySelectorAll("thead th[data-sort-type]").forEach(function (th) {
        th.addEventListener("click", function () { sortTable(table, th); });
      });
    });
  }

  // ------------------------------------------------------------------ overview filters
  function setupOverview() {
    var table = document.getElementById("kernel-table");
    if (!table) { return; }
    var search = document.getElementById("search");
    var verdict = document.getElementById("filter-verdict");
    var category = document.getElementById("filter-category");
    var severity = document.getElementById("filter-severity");
    var group = document.getElementById("group-toggle");
    var count = document.getElementById("row-count");
    var flat = table.querySelector("tbody.flat");
    var groups = table.querySelectorAll("tbody.group");
    var pager = document.getElementById("pager");
    var pageSize = pager ? parseInt(pager.getAttribute("data-page-size"), 10) || 0 : 0;
    var page = 0;

    function rows() { return table.querySelectorAll("tr.krow"); }

    // Of the rows that pass the filters (in table order), only the current page's are shown.
    function showPage(matched) {
      var pages = Math.max(1, Math.ceil(matched.length / pageSize));
      page = Math.min(page, pages - 1);
      matched.forEach(function (r, i) { r.hidden = i < page * pageSize || i >= (page + 1) * pageSize; });
      document.getElementById("page-at").textContent = (page + 1) + " / " + pages;
      document.getElementById("page-prev").disabled = page === 0;
      document.getElementById("page-next").disabled = page >= pages - 1;
    }

    function apply() {
      var q = (search.value || "").trim().toLowerCase(), v = verdict.value, c = category.value, shown = 0;
      var sev = severity ? severity.value : "", matched = [];
      rows().forEach(function (r) {
        var ok = (!v || r.getAttribute("data-verdict") === v) && (!c || r.getAttribute("data-category") === c) &&
          (!sev || r.getAttribute("data-severity") === sev) &&
          (!q || r.getAttribute("data-search").indexOf(q) !== -1);
        r.hidden = !ok;
        if (ok) { shown++; matched.push(r); }
      });
      if (pageSize) { showPage(matched); }
      groups.forEach(function (g) { g.hidden = !group.checked || !g.querySelector("tr.krow:not([hidden])"); });
      flat.hidden = group.checked;
      count.textContent = shown + " / " + count.getAttribute("data-total");
      writeParams({ q: search.value.trim(), verdict: v, category: c, severity: sev, group: group.checked ? null : "0" });
      document.querySelectorAll(".card[data-filter-verdict]").forEach(function (card) {
        card.classList.toggle("active", !!v && card.getAttribute("data-filter-verdict") === v);
      });
    }

    function regroup() {
      if (group.checked) {
        Array.prototype.slice.call(flat.rows).forEach(function (r) {
          var g = table.querySelector("tbody.group[data-group=\"" + r.getAttribute("data-category").replace(/["\\]/g, "\\$&") + "\"]");
          if (g) { g.appendChild(r); }
        });
      } else {
        groups.forEach(function (g) {
          Array.prototype.slice.call(g.rows).forEach(function (r) { if (r.classList.contains("krow")) { flat.appendChild(r); } });
        });
      }
      refilter();
    }

    function refilter() { page = 0; apply(); }
    search.addEventListener("input", refilter);
    verdict.addEventListener("change", refilter);
    category.addEventListener("change", refilter);
    if (severity) { severity.addEventListener("change", refilter); }
    table.addEventListener("ka-sorted", refilter);
    if (pageSize) {
      document.getElementById("page-prev").addEventListener("click", function () { page = Math.max(0, page - 1); apply(); });
      document.getElementById("page-next").addEventListener("click", function () { page++; apply(); });
    }
    var rankBy = setupRankSwitch(table);
    group.addEventListener("change", regroup);
    // a shared address: read all its choices (applying one rewrites the address), then apply
    // them in order: ranking, grouping, sort, filters
    var wanted = {};
    ["rank", "group", "sort", "q", "verdict", "category", "severity"].forEach(function (k) { wanted[k] = param(k); });
    if (rankBy && wanted.rank) { rankBy(wanted.rank); }
    if (wanted.group === "0" && group.checked) { group.checked = false; regroup(); }
    restoreSort(table, wanted.sort);
    if (wanted.q !== null) { search.value = wanted.q; }
    [[verdict, "verdict"], [category, "category"], [severity, "severity"]].forEach(function (pair) {
      var want = wanted[pair[1]], select = pair[0];
      if (select && want !== null && Array.prototype.some.call(select.options, function (o) { return o.value === want; })) {
        select.value = want;
      }
    });
    document.querySelectorAll(".card[data-filter-verdict]").forEach(function (card) {
      card.addEventListener("click", function () {
        var v = card.getAttribute("data-filter-verdict");
        verdict.value = verdict.value === v ? "" : v;
        refilter();
      });
    });
    table.addEventListener("click", function (ev) {
      if (ev.target.closest("a, summary, details")) { return; }
      var row = ev.target.closest("tr.krow");
      if (row) { window.location.href = row.getAttribute("data-href"); }
    });
    apply();
  }

  // The overview's ranking switch: the chart of the chosen measure, and the table sorted by it
  // (the header th[data-i18n="col.geomean"] or th[data-i18n="col.headline"], descending).
  function setupRankSwitch(table) {
    var radios = document.querySelectorAll("input[name=\"rank\"]");
    if (!radios.length) { return; }
    function show(mode) {
      ["geomean", "headline"].forEach(function (m) {
        var view = document.getElementById("rank-" + m);
        if (view) { view.hidden = m !== mode; }
      });
      var shown = document.getElementById("rank-" + mode);
      if (shown && window.Plotly) {
        shown.querySelectorAll(".chart.js-plotly-plot").forEach(function (el) { window.Plotly.Plots.resize(el); });
      }
      var group = document.getElementById("group-toggle");
      if (group && group.checked) {  // a ranking is one list: leave the category groups
        group.checked = false;
        group.dispatchEvent(new Event("change"));
      }
      var th = table.querySelector("th[data-i18n=\"col." + mode + "\"]");
      if (th) { sortTable(table, th, "desc"); }
      root.setAttribute("data-rank", mode);
      writeParams({ rank: mode === "geomean" ? null : mode });
    }
    radios.forEach(function (r) {
      r.addEventListener("change", function () { if (r.checked) { show(r.value); } });
    });
    return function (mode) {  // choose a ranking as the reader would (an enabled radio only)
      radios.forEach(function (r) {
        if (r.value === mode && !r.disabled && !r.checked) { r.checked = true; show(mode); }
      });
    };
  }

  // The kernel page's shape table filtered to one model: #model=<name> or ?model=<name>
  // (the overview's coverage cells link here); rows carry data-models="a|b".
  function modelWanted() {
    var m = /(?:^#|&)model=([^&]*)/.exec(window.location.hash);
    if (m) { return decodeURIComponent(m[1]); }
    try { return new URLSearchParams(window.location.search).get("model"); } catch (e) { return null; }
  }

  function applyModelFilter(scroll) {
    var table = document.querySelector("table.shapes");
    if (!table) { return; }
    var model = modelWanted(), shown = 0;
    var rows = table.querySelectorAll("tbody tr[data-models]");
    rows.forEach(function (r) {
      var ok = !model || r.getAttribute("data-models").split("|").indexOf(model) !== -1;
      r.hidden = !ok;
      if (ok) { shown++; }
    });
    var note = document.getElementById("model-filter");
    if (!model) { if (note) { note.remove(); } return; }
    if (!note) {
      note = document.createElement("p");
      note.id = "model-filter";
      note.className = "notice model-filter";
      var wrap = table.closest(".table-wrap") || table;
      wrap.parentNode.insertBefore(note, wrap);
    }
    note.textContent = "";
    var label = document.createElement("span");
    label.textContent = tr("model.showing") + " ";
    var name = document.createElement("strong");
    name.className = "model-name";
    name.textContent = model;
    var count = document.createElement("span");
    count.className = "model-count";
    count.textContent = " (" + shown + " / " + rows.length + " " + tr("model.count") + ") ";
    var all = document.createElement("a");
    all.href = "#speed";
    all.className = "model-all";
    all.textContent = tr("model.all");
    note.appendChild(label); note.appendChild(name); note.appendChild(count); note.appendChild(all);
    if (scroll !== false) { note.scrollIntoView({ block: "start" }); }
  }

  // ------------------------------------------------------------------ kernel page
  function siteRoot(rel) { return new URL(rel || "./", window.location.href).href; }

  function setupKernelPage() {
    var snippet = document.getElementById("pr-snippet");
    var web = window.location.protocol === "http:" || window.location.protocol === "https:";
    if (snippet && web) {
      var base = siteRoot(snippet.getAttribute("data-root"));
      // relative snippet links ("](kernels/...", "](badges/...") become absolute on a web server
      snippet.value = snippet.value.replace(/\]\((kernels|badges)\//g, "](" + base + "$1/");
    }
    var perma = document.querySelector("a.permalink[data-permalink]");
    if (perma && web) {
      var folder = perma.getAttribute("href").replace(/index\.html$/, "");
      perma.setAttribute("href", folder);
    }
    document.querySelectorAll("button.copy-button[data-copy]").forEach(function (button) {
      button.addEventListener("click", function () {
        var area = document.getElementById(button.getAttribute("data-copy"));
        var done = function () {
          button.textContent = tr("head.copied");
        };
        area.focus();
        area.select();
        var ok = false;
        try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
        if (ok) { done(); return; }
        if (navigator.clipboard && window.isSecureContext) {
          navigator.clipboard.writeText(area.value).then(done, function () { /* left selected for Ctrl-C */ });
        }
      });
    });
  }

  function revealTarget() {
    if (!window.location.hash) { return; }
    var el = document.getElementById(decodeURIComponent(window.location.hash.slice(1)));
    if (!el) { return; }
    for (var p = el; p; p = p.parentElement) {
      if (p.tagName === "DETAILS" && !p.open) { p.open = true; }
    }
    el.scrollIntoView({ block: "center" });
  }

  /* ---- issue 13 (scale): links to the kernel page's old in-page anchors ("#c1-f0-L514",
     "#c1-pc123", "#c1-unk") go on to the source and ISA pages. The page names no rule here:
     the row of file f0 ("c1-f0") and the ISA line ("c1-isa") carry data-page, the page's
     relative address, written by Python (generator/site/views/source.py). */
  function forwardOldAnchor() {
    var m = /^#(c\d+)-(?:(f\d+)-L(\d+)|pc(\d+)|(unk)(?:-L0)?)$/.exec(window.location.hash);
    if (!m) { return false; }
    var holder = document.getElementById(m[2] ? m[1] + "-" + m[2] : m[1] + "-isa");
    var page = holder && holder.getAttribute("data-page");
    if (!page) { return false; }
    window.location.replace(page + (m[3] ? "#L" + m[3] : m[4] ? "#pc" + m[4] : ""));
    return true;
  }
  /* ---- end issue 13 (scale) */

  /* ---- issue 23 (2): a long ISA listing is split into pages; "isa.html#pc<pc>" for an
     instruction of another page goes on to it, by the list of pages and their pcs
     (nav.isa-parts a[data-first][data-last], written by generator/site/views/source.py). */
  function forwardIsaPart() {
    var m = /^#pc(\d+)$/.exec(window.location.hash);
    if (!m || document.getElementById("pc" + m[1])) { return false; }
    var pc = Number(m[1]), found = null;
    document.querySelectorAll("nav.isa-parts a[data-first][data-last]").forEach(function (a) {
      if (Number(a.getAttribute("data-first")) <= pc && pc <= Number(a.getAttribute("data-last"))) { found = a; }
    });
    if (!found) { return false; }
    window.location.replace(found.getAttribute("href") + "#pc" + pc);
    return true;
  }
  /* ---- end issue 23 (2) */

  function setupAnchors() {
    if (forwardOldAnchor() || forwardIsaPart()) { return; }
    window.addEventListener("hashchange", revealTarget);
    window.addEventListener("hashchange", applyModelFilter);
    document.addEventListener("click", function (ev) {
      var a = ev.target.closest("a[href^=\"#\"]");
      if (a && a.getAttribute("href") === window.location.hash) { setTimeout(revealTarget, 0); }
    });
    revealTarget();
  }

  // ------------------------------------------------------------------ deferred parts
  // A large overview's parts beyond its first page, from index-data.js, put back where their
  // <template data-deferred> placeholders stand (before the language, tables and charts start).
  function materialize() {
    var parts = window.KA_DEFERRED;
    if (!parts) { return; }
    document.querySelectorAll("template[data-deferred]").forEach(function (t) {
      var html = parts[t.getAttribute("data-deferred")];
      if (html) { t.insertAdjacentHTML("afterend", html); }
      t.parentNode.removeChild(t);
    });
  }

  // ------------------------------------------------------------------ start
  function start() {
    materialize();
    var themeButton = document.getElementById("theme-toggle");
    if (themeButton) {
      themeButton.addEventListener("click", function () { setTheme(effectiveTheme() === "dark" ? "light" : "dark"); });
    }
    if (window.matchMedia) {
      var mq = window.matchMedia("(prefers-color-scheme: dark)");
      if (mq.addEventListener) { mq.addEventListener("change", recolorCharts); }
    }
    var langButton = document.getElementById("lang-toggle");
    if (langButton) {
      langButton.addEventListener("click", function () { setLang(root.getAttribute("data-lang") === "zh" ? "en" : "zh"); });
    }
    var lang = param("lang");  // a shared address's language wins over the one remembered here
    if (lang === "zh" || lang === "en") {
      if (lang === "zh") { setLang("zh", false); }
    } else if (load(KEY_LANG) === "zh") { setLang("zh"); }
    var theme = root.getAttribute("data-theme");  // set in <head> from the address or storage
    if (theme === "light" || theme === "dark") { writeParams({ theme: theme }); }
    setupSorting();
    setupOverview();
    setupKernelPage();
    drawCharts();
    setupAnchors();
    applyModelFilter();
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
