/* Kernel Atlas: charts, theme, language, and the tables' sorting and filtering.
 *
 * Naming rules shared with Python (generator/views.py and generator/render.py say the same):
 * - Charts: <div class="chart" data-figure="ID"> draws the figure JSON held in
 *   <script type="application/json" id="ID"> (ids "fig-<name>"). The JSON carries no
 *   colors for the theme: they are applied here from the CSS variables --fg and --grid.
 * - Kernel page ids: capture "c<i>", its source-file rows "c<i>-f<j>" and "c<i>-unk", its
 *   ISA link "c<i>-isa"; each carries data-page (its page's relative address). Source pages
 *   (kernels/<slug>/src/c<i>/<file>.html) have lines "L<n>"; the ISA page (isa.html) rows
 *   "pc<pc>". The naming rule is generator/site/views/source.py's alone.
 * - Overview rows (tr.krow): data-verdict, data-category, data-search (lower-case),
 *   data-href (the kernel page, relative). Sortable cells: data-sort; headers:
 *   data-sort-type = "num" | "text". Empty data-sort sorts last in both directions.
 * - Translated text: data-i18n="<dotted.key>" (text) and data-i18n-placeholder; the
 *   dictionary is I18N below. Keys missing from it stay in English. Computed text
 *   (diagnosis clauses, severity) carries its 中文 in data-zh.
 * - Overview rows also carry data-severity (near|tune|rewrite|""); the ranking switch is
 *   input[name=rank] (geomean|headline) showing #rank-geomean or #rank-headline.
 * - Kernel page filtered to a model: #model=<name> or ?model=<name> (URL-encoded); shape
 *   rows carry data-models="a|b" (generator/site/views/coverage.py builds the links).
 * - Static assets are named static/<stem>.<sha256[:10]><ext>; nothing here builds names.
 * - localStorage keys: "kernel-atlas.theme" (light|dark), "kernel-atlas.lang" (en|zh).
 * No fetch(): every page carries its own data, so the site works from file://.
 */
(function () {
  "use strict";

  var KEY_THEME = "kernel-atlas.theme";
  var KEY_LANG = "kernel-atlas.lang";
  var root = document.documentElement;

  function load(key) { try { return window.localStorage.getItem(key); } catch (e) { return null; } }
  function save(key, value) { try { window.localStorage.setItem(key, value); } catch (e) { /* file:// may refuse */ } }

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

  function drawCharts() {
    var nodes = document.querySelectorAll(".chart[data-figure]");
    if (!nodes.length) { return; }
    if (!window.Plotly) {
      nodes.forEach(function (el) {
        el.innerHTML = "<p class=\"chart-error\">The chart library did not load.</p>";
      });
      return;
    }
    var update = themeUpdate();
    nodes.forEach(function (el) {
      var src = document.getElementById(el.getAttribute("data-figure"));
      if (!src) { return; }
      var fig = JSON.parse(src.textContent);
      var layout = fig.layout || {};
      if (!layout.height) { layout.height = 300; }
      /* ---- issue 13 (scale): explicit heights. The box is as tall as the figure, so that
         plotly's responsive resize follows the width only and never collapses the height. */
      layout.autosize = true;
      el.style.height = layout.height + "px";
      /* ---- end issue 13 (scale) */
      window.Plotly.newPlot(el, fig.data, applyUpdate(layout, update), CONFIG);
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
    recolorCharts();
  }

  // ------------------------------------------------------------------ language
  var I18N = {
    "nav.overview": "总览", "nav.api": "JSON", "nav.history": "历史", "head.history": "历史",
    "history.title": "各次测量的几何平均", "history.sweeps": "测量：", "history.points": "次测量",
    "history.regressed": "个内核在最近一步出现回退",
    "history.help": "每个点是一次记录的测量（从旧到新），颜色表示判定；灰色带是测得的噪声（p90/p10）；三角形标出同时超过噪声和相对阈值的回退。", "nav.back": "← 全部内核", "ui.theme": "主题",
    "footer.made": "由 Kernel Atlas 根据性能剖析数据生成，可离线浏览。", "footer.date": "测量日期：",
    "overview.kernels": "个内核", "overview.missing": "本次构建缺少：", "overview.reading": "整体结论",
    "overview.table": "内核列表", "overview.notes": "备注",
    "overview.help": "几何平均：在所有已测形状上（最佳基线时间 / 候选时间）的几何平均；大于 1 表示候选更快。WIN ≥ 1.05，PARITY 在 ±5% 以内，HEADROOM 低于 0.95，BLOCKED 表示候选无法编译、运行或通过校验。点击一行查看详情。",
    "chart.overview": "各内核相对最佳基线的加速比", "chart.overview.help": "菱形：已测形状的几何平均；圆点：单个形状。对数坐标；虚线为 1.0，灰色带为持平区间。",
    "chart.none": "还没有任何已测形状，无法作图。", "chart.absent": "未在图中：",
    "chart.shapes": "每个形状的加速比（对数坐标）", "chart.stalls": "按类型统计的停顿周期", "chart.timeline": "单个采样 wave 的时间线",
    "chart.compare": "停顿类型占比", "chart.roofline": "屋顶线模型",
    "controls.search": "按名称搜索内核", "controls.allcats": "全部类别", "controls.group": "按类别分组",
    "col.kernel": "内核", "col.verdict": "判定", "col.geomean": "相对最佳几何平均", "col.wins": "胜出",
    "col.weighted": "加权几何平均", "col.failures": "失败", "col.baseline": "最佳基线", "col.topstall": "主要停顿",
    "col.stallratio": "停顿比例", "col.occupancy": "占用率", "col.limiter": "限制因素", "col.category": "类别",
    "col.args": "形状", "col.stage": "阶段", "col.model": "模型", "col.weight": "权重", "col.speedup": "加速比",
    "col.failure": "失败原因", "col.type": "类型", "col.share": "占比", "col.line": "源代码行", "col.rate": "停顿率",
    "col.dominant": "主要类型", "col.change": "变化",
    "head.vsbest": "相对最佳基线的几何平均", "head.wins": "胜出", "head.weighted": "加权",
    "head.permalink": "永久链接", "head.json": "JSON", "head.copypr": "复制到 PR", "head.copy": "复制", "head.copied": "已复制",
    "panel.why": "为何没有胜出", "panel.ncu": "性能剖析摘要（Nsight Compute）", "panel.speed": "各形状的速度",
    "panel.captures": "采集", "panel.compare": "采集对比", "panel.counters": "运行统计与计数器",
    "panel.roofline": "屋顶线模型", "panel.advice": "优化计划", "panel.report": "REPORT.md", "panel.data": "数据与来源",
    "why.fromanalysis": "来自主采集的分析（本次构建没有建议模块）。",
    "speed.headline": "性能剖析中的代表性对比：", "speed.perbaseline": "各基线", "speed.perstage": "各阶段",
    "speed.permodel": "各模型", "speed.pershape": "全部形状", "speed.provenance": "计时数据来源",
    "fact.verdict": "判定", "fact.geomean": "相对最佳几何平均", "fact.weighted": "加权几何平均", "fact.wpl": "胜 / 平 / 负",
    "fact.shapes": "形状", "fact.coverage": "候选结果", "fact.failures": "失败", "fact.worst": "最差形状", "fact.best": "最佳形状",
    "fact.noise": "噪声（p90/p10 中位数）", "fact.reference": "参考实现", "fact.instructions": "指令数",
    "fact.total": "总周期", "fact.stall": "停顿周期", "fact.mapped": "已映射到源码", "fact.arch": "架构", "fact.jit": "JIT 内核",
    "fact.waves": "采样 wave", "fact.wave": "wave", "fact.duration": "时长", "fact.issuestall": "发射 / 停顿",
    "cap.primary": "主采集", "cap.stalltypes": "停顿类型", "cap.wavestates": "wave 状态", "cap.nowavestates": "该采集没有 wave 状态文件。",
    "cap.occupancy": "占用率", "cap.noocc": "没有占用率：缺少寄存器数据。", "cap.toplines": "热点源代码行",
    "cap.nostall": "没有停顿的源代码行。", "cap.topins": "热点指令", "speed.providernotes": "每列计时的内容 (baseline_matrix.yaml)", "cap.working": "仅工作中的 wave", "cap.opcodes": "按操作码的停顿", "col.opcode": "操作码", "col.count": "指令数", "col.reason": "NCU 原因", "cap.findings": "发现", "cap.timeline": "单个采样 wave 的时间线",
    "cap.source": "逐行源代码", "cap.jump": "跳到最热的一行", "cap.hottest": "最热的一行",
    "cap.nosource": "数据包中没有源文件：按 文件:行号 列出。", "cap.instr": "条指令", "cap.isa": "ISA 列表",
    "occ.isa": "架构 VGPR（ISA 扫描）", "occ.csv": "架构 VGPR（kernel trace CSV）", "occ.accum": "累加 VGPR",
    "occ.total": "计入的 VGPR", "occ.sgpr": "SGPR", "occ.lds": "每个工作组的 LDS", "occ.wg": "工作组大小", "occ.arch": "架构",
    "advice.ofstalls": "的停顿", "advice.try": "可以尝试：", "advice.evidence": "证据", "overview.more": "更多发现",
    "cap.nowavestates.ncu": "Nsight Compute 采样的是 warp 停顿；wave 状态只来自 AMD ATT 跟踪。",
    "cap.noocc.ncu": "实际与理论占用率见上方的性能剖析摘要。", "counters.table": "本次运行的内核表", "counters.pmc": "PMC 计数器",
    "run.traced": "被跟踪的内核", "run.timing": "调度时间", "run.gpu": "GPU",
    "ncu.bottleneck": "瓶颈：", "ncu.config": "配置", "ncu.stages": "阶段", "ncu.keyissue": "关键问题",
    "ncu.opportunities": "主要优化机会", "ncu.metric": "指标：", "ncu.advice": "Nsight Compute 的说明",
    "ncu.baseline": "与基线对比", "ncu.profiled": "已剖析", "cmp.totals": "总计", "cmp.stalls": "停顿类型（占比）",
    "cmp.waves": "wave 状态", "cmp.lines": "A 与 B 的热点行", "advice.none": "该采集没有发现。", "counters.run": "本次运行", "roofline.points": "全部数据点",
    "data.json": "本页 JSON", "data.badge": "徽章", "data.pr": "PR 片段", "data.index": "全部内核 JSON",
    "data.bundle": "数据包路径", "data.campaign": "计时数据路径", "data.missing": "缺少", "data.broken": "损坏", "data.notes": "备注",
    "rank.by": "排序依据：", "rank.geomean": "多形状几何平均", "rank.headline": "性能剖析的代表性对比",
    "rank.disagree": "两种排序不一致之处：", "chart.headline": "各内核在性能剖析中的代表性对比",
    "chart.headline.help": "圆点：性能剖析报告的单个（候选，基线）对比，颜色表示它自己的判定；空心菱形：多形状几何平均。对数坐标。",
    "chart.noheadline": "没有代表性对比：", "controls.allseverity": "全部严重程度",
    "col.severity": "严重程度", "col.headline": "代表性对比", "col.diagnosis": "诊断 · 第一步",
    "diag.label": "诊断：", "diag.first": "第一步：", "coverage.title": "覆盖：模型 × 内核",
    "coverage.help": "每格：该模型已测 / 台账形状数；W 胜出，L 落后，U 不支持，F 失败（候选）。颜色：该格的几何平均（胜出、持平、落后）。点击一格打开只显示该模型形状的内核页。",
    "coverage.shapes": "形状", "model.showing": "只显示模型的形状：", "model.count": "个形状", "model.all": "显示全部形状"
  };

  /* ---- issue 13 (scale): words of the source-file list and the source pages */
  I18N["cap.sourcefiles"] = "源文件"; I18N["col.file"] = "文件"; I18N["col.mapped"] = "已映射";
  /* ---- end issue 13 (scale) */

  function setLang(lang) {
    var zh = lang === "zh";
    root.setAttribute("data-lang", zh ? "zh" : "en");
    root.setAttribute("lang", zh ? "zh-CN" : "en");
    document.querySelectorAll("[data-i18n]").forEach(function (el) {
      var key = el.getAttribute("data-i18n");
      if (!key || !Object.prototype.hasOwnProperty.call(I18N, key)) { return; }
      if (!el.hasAttribute("data-i18n-en")) { el.setAttribute("data-i18n-en", el.textContent); }
      el.textContent = zh ? I18N[key] : el.getAttribute("data-i18n-en");
    });
    // computed text (diagnosis clauses, severity): the 中文 version rides in data-zh
    document.querySelectorAll("[data-zh]").forEach(function (el) {
      if (!el.hasAttribute("data-i18n-en")) { el.setAttribute("data-i18n-en", el.textContent); }
      el.textContent = zh ? el.getAttribute("data-zh") : el.getAttribute("data-i18n-en");
    });
    document.querySelectorAll("[data-i18n-placeholder]").forEach(function (el) {
      var key = el.getAttribute("data-i18n-placeholder");
      if (!el.hasAttribute("data-i18n-en")) { el.setAttribute("data-i18n-en", el.getAttribute("placeholder") || ""); }
      el.setAttribute("placeholder", zh && I18N[key] ? I18N[key] : el.getAttribute("data-i18n-en"));
    });
    var button = document.getElementById("lang-toggle");
    if (button) { button.textContent = zh ? "EN" : "中文"; }
    if (document.getElementById("model-filter")) { applyModelFilter(false); }
    save(KEY_LANG, zh ? "zh" : "en");
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

    function rows() { return table.querySelectorAll("tr.krow"); }

    function apply() {
      var q = (search.value || "").trim().toLowerCase(), v = verdict.value, c = category.value, shown = 0;
      var sev = severity ? severity.value : "";
      rows().forEach(function (r) {
        var ok = (!v || r.getAttribute("data-verdict") === v) && (!c || r.getAttribute("data-category") === c) &&
          (!sev || r.getAttribute("data-severity") === sev) &&
          (!q || r.getAttribute("data-search").indexOf(q) !== -1);
        r.hidden = !ok;
        if (ok) { shown++; }
      });
      groups.forEach(function (g) { g.hidden = !group.checked || !g.querySelector("tr.krow:not([hidden])"); });
      flat.hidden = group.checked;
      count.textContent = shown + " / " + count.getAttribute("data-total");
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
      apply();
    }

    search.addEventListener("input", apply);
    verdict.addEventListener("change", apply);
    category.addEventListener("change", apply);
    if (severity) { severity.addEventListener("change", apply); }
    setupRankSwitch(table);
    group.addEventListener("change", regroup);
    document.querySelectorAll(".card[data-filter-verdict]").forEach(function (card) {
      card.addEventListener("click", function () {
        var v = card.getAttribute("data-filter-verdict");
        verdict.value = verdict.value === v ? "" : v;
        apply();
      });
    });
    table.addEventListener("click", function (ev) {
      if (ev.target.closest("a")) { return; }
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
    }
    radios.forEach(function (r) {
      r.addEventListener("change", function () { if (r.checked) { show(r.value); } });
    });
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
    var zh = root.getAttribute("data-lang") === "zh";
    note.textContent = "";
    var label = document.createElement("span");
    label.textContent = (zh ? I18N["model.showing"] : "Showing the shapes of model:") + " ";
    var name = document.createElement("strong");
    name.className = "model-name";
    name.textContent = model;
    var count = document.createElement("span");
    count.className = "model-count";
    count.textContent = " (" + shown + " / " + rows.length + (zh ? " " + I18N["model.count"] : " shapes") + ") ";
    var all = document.createElement("a");
    all.href = "#speed";
    all.className = "model-all";
    all.textContent = zh ? I18N["model.all"] : "show every shape";
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
          button.textContent = root.getAttribute("data-lang") === "zh" ? I18N["head.copied"] : "Copied";
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

  function setupAnchors() {
    if (forwardOldAnchor()) { return; }
    window.addEventListener("hashchange", revealTarget);
    window.addEventListener("hashchange", applyModelFilter);
    document.addEventListener("click", function (ev) {
      var a = ev.target.closest("a[href^=\"#\"]");
      if (a && a.getAttribute("href") === window.location.hash) { setTimeout(revealTarget, 0); }
    });
    revealTarget();
  }

  // ------------------------------------------------------------------ start
  function start() {
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
    if (load(KEY_LANG) === "zh") { setLang("zh"); }
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
