// The embodied-suite report viewer. Every piece of text from runs, models or data is put in the page with
// textContent (never innerHTML), and text given to Plotly has its markup characters escaped as entities.
"use strict";
(function () {
  const S = window.SUITE;
  const summary = S.summary;
  const index = S.index;
  const col = {};
  index.columns.forEach((c, i) => { col[c] = i; });
  const OUTCOMES = summary.outcomes;  // the failure taxonomy in the core's order (`suite.records.OUTCOMES`)

  // ---------- safe DOM helpers ----------
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") node.className = v;
      else if (k === "onclick") node.addEventListener("click", v);
      else node.setAttribute(k, v);
    }
    for (const child of children) {
      if (child === null || child === undefined) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }
  function plotText(s) {  // Plotly reads a few HTML-like tags in labels: show them as text
    return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }
  function table(columns, rows, id) {
    const t = el("table", id ? {id: id} : {});
    t.append(el("thead", {}, el("tr", {}, ...columns.map((c) => el("th", {}, ...breakable(c))))));
    const body = el("tbody");
    for (const r of rows) body.append(el("tr", {}, ...r.map((c) => c instanceof Node ? el("td", {}, c) : el("td", {}, c === null || c === undefined ? "-" : c))));
    t.append(body);
    return t;
  }
  function breakable(text) {  // a header may wrap after `_` or `/` too (fry_potato_slice), never inside a word
    return String(text).split(/(?<=[_/])/).flatMap((part, i) => i ? [el("wbr"), part] : [part]);
  }
  function rowName(row) {
    let name = (row.model || "-") + " / " + row.agent;
    if (row.label) name += " (" + row.label + ")";
    if (row.data_tag) name += " [data " + row.data_tag + "]";
    return name;
  }
  function short(text, most) {  // a chart label cut to fit beside a bar (the tables carry the whole name)
    const t = String(text);
    return plotText(t.length > (most || 36) ? t.slice(0, (most || 36) - 1) + "…" : t);
  }
  function fmt(m) {
    if (!m || m.mean === null || m.mean === undefined) return "-";
    const k = m.percent ? 100 : 1;
    return interval(m, m.mean, k, "") + (m.paper ? " " + vsPaper(m.paper.diff) : "");
  }
  function whole(text) {  // a cell that may wrap between `mean (n=K)`, `[low, high]` and `(paper ...)`, never inside
    const parts = String(text).split(/ (?=[[(])/);
    return el("span", {}, ...parts.flatMap((p, i) => [i ? " " : null, el("span", {class: "nw"}, p)]));
  }
  function interval(m, mean, k, sign) {  // `mean [low, high]`, (n=K) when from too few tasks, or why there is none
    const num = (v) => (sign && v >= 0 ? sign : "") + (v * k).toFixed(1);
    if (m.ci_low === null || m.ci_low === undefined) return num(mean) + " (" + (m.no_interval || "no interval") + ")";
    const few = m.small_n ? " (n=" + (m.tasks !== undefined ? m.tasks : m.n !== undefined ? m.n : m.pairs) + ")" : "";
    return num(mean) + few + " [" + num(m.ci_low) + ", " + num(m.ci_high) + "]";
  }
  const hasCI = (m) => m.ci_low !== null && m.ci_low !== undefined;
  function vsPaper(diff) { return "(paper " + (diff >= 0 ? "+" : "") + diff.toFixed(1) + ")"; }
  function printed(v) {  // a paper number as printed: one decimal unless it has more, step counts whole
    if (v === null || v === undefined) return "-";
    if (Number.isInteger(v) && Math.abs(v) >= 100) return v.toFixed(0);
    return Math.round(v * 10) / 10 === v ? v.toFixed(1) : String(v);
  }
  let pending = null;  // while the overview is built, charts wait until every one has its place (Plotly sizes by it)
  function plot(container, traces, layout, kind) {
    const div = el("div", {class: "plot" + (kind ? " " + kind : "")});
    container.append(div);
    const draw = () => window.Plotly && window.Plotly.newPlot(div, traces,
      Object.assign({margin: {t: 30, b: 120}, barmode: "group", font: {size: 11}}, layout),
      {displaylogo: false, displayModeBar: false, responsive: true, showLink: false, showSendToCloud: false, showEditInChartStudio: false});
    if (pending) pending.push(draw); else draw();
    return div;
  }
  // the benchmarks in the command line's order (`summary.benchmarks`; by name in a report made before it was kept)
  const seenBenches = new Set(summary.rows.flatMap((r) => Object.keys(r.benchmarks)));
  const benches = (summary.benchmarks || []).filter((b) => seenBenches.has(b));
  benches.push(...[...seenBenches].filter((b) => !benches.includes(b)).sort());
  const benchesOf = (r) => benches.filter((b) => b in r.benchmarks);
  // each benchmark's headline metrics in its plugin's order (the summary's objects are written with sorted keys)
  const metricOrder = index.metric_order || {};
  const OUTCOME_COLORS = {success: "#2e7d32", agent_failure: "#c62828", parse_failure: "#ef6c00",
    budget_exhausted: "#f9a825", model_error: "#6a1b9a", env_error: "#1565c0", timeout: "#757575"};

  // ---------- overview ----------
  function metricNames(b) {  // [[name, label, percent]] of a benchmark, in its headline order
    const names = {};
    for (const r of summary.rows) for (const [n, m] of Object.entries((r.benchmarks[b] || {}).metrics || {})) names[n] = names[n] || m;
    const order = (metricOrder[b] || []).filter((n) => n in names);
    const rest = Object.keys(names).filter((n) => !order.includes(n)).sort();
    return order.concat(rest).map((n) => [n, names[n].label, names[n].percent]);
  }
  function paperRows(b, names) {  // the paper's rows of one benchmark (`suite report --reference`), as printed
    const paper = {};
    for (const e of ((summary.reference || {})[b] || {}).entries || []) {
      if (e.attach !== "headline") continue;
      const key = JSON.stringify([e.model, e.condition]);
      (paper[key] = paper[key] || {model: e.model, condition: e.condition, values: {}}).values[e.metric] = e.value;
    }
    return Object.values(paper).map((p) => ["paper: " + p.model, p.condition,
      ...names.map(([n]) => n in p.values ? printed(p.values[n]) : "-"), "-", "-", "-", "-"]);
  }
  function headlineTable(b, rows, names) {
    const columns = ["model", "agent", ...names.map(([, label]) => label), "n", "infra", "tokens", "cost $"];
    const cells = rows.map((r) => {
      const g = r.benchmarks[b];
      return [r.model || "-", rowName(r).split(" / ").slice(1).join(" / "), ...names.map(([n]) => whole(fmt(g.metrics[n]))),
        String(g.episodes) + (g.unfinished ? " (+" + g.unfinished + " unfinished)" : ""), String(g.infra_failures),
        g.tokens.toLocaleString("en-US"), g.cost_usd.toFixed(4)];
    });
    const t = table(columns, cells.concat(paperRows(b, names)), "headline-" + b);
    t.classList.add("headline");
    return el("div", {class: "table-wrap"}, t);
  }
  function metricChart(box, b, rows, names, percent) {  // one grouped bar chart: metrics on x, a bar per row
    const shown = names.filter(([, , p]) => Boolean(p) === percent);
    if (!shown.length) return;
    const k = percent ? 100 : 1;
    const traces = rows.map((r) => {
      const ms = shown.map(([n]) => r.benchmarks[b].metrics[n] || {});
      const ok = (m) => m.mean !== null && m.mean !== undefined;
      return {type: "bar", name: short(rowName(r), 48), x: shown.map(([, label]) => plotText(label)),
        y: ms.map((m) => ok(m) ? m.mean * k : null),
        error_y: {type: "data", symmetric: false, array: ms.map((m) => ok(m) && hasCI(m) ? (m.ci_high - m.mean) * k : null),
          arrayminus: ms.map((m) => ok(m) && hasCI(m) ? (m.mean - m.ci_low) * k : null)}};
    });
    const top = Math.max(0, ...traces.flatMap((t) => t.y.map((y, j) => (y || 0) + (t.error_y.array[j] || 0))));
    const bottom = Math.min(0, ...traces.flatMap((t) => t.y.map((y, j) => (y || 0) - (t.error_y.arrayminus[j] || 0))));
    const span = top - bottom;
    const yaxis = percent ? {range: [0, 100], title: {text: "%"}}
      : {range: span > 0 ? [bottom && bottom - span * 0.05, top && top + span * 0.1] : [0, 1], title: {text: "value"}};
    plot(box, traces, {yaxis, barmode: "group", margin: {t: 28, b: 80, l: 48, r: 8}, height: 320,
      title: {text: plotText(b + (percent ? ": rates" : ": counts and scores")), font: {size: 13}},
      legend: {orientation: "h", y: -0.12, yanchor: "top"}, showlegend: true}, "chart-" + (percent ? "rates" : "values"));
  }
  function barLabels(rows, most) {  // short row names for a chart's axis, kept apart where cutting makes two alike
    const names = rows.map((r) => short(rowName(r), most));
    return names.map((n, i) => names.indexOf(n) !== names.lastIndexOf(n) ? n + " #" + (summary.rows.indexOf(rows[i]) + 1) : n);
  }
  function outcomeChart(box, b, rows) {  // the failure taxonomy: one stacked bar per row
    const labels = barLabels(rows, 28);
    plot(box, OUTCOMES.map((o) => ({type: "bar", orientation: "h", name: o, marker: {color: OUTCOME_COLORS[o]},
      showlegend: rows.some((r) => r.benchmarks[b].outcomes[o]),  // every outcome drawn, the legend names those seen
      y: labels, x: rows.map((r) => r.benchmarks[b].outcomes[o] || 0)})),
    {barmode: "stack", height: Math.max(260, 170 + 30 * rows.length), margin: {t: 28, b: 130, l: 8, r: 8},
      title: {text: plotText(b + ": outcomes (episodes)"), font: {size: 13}},
      yaxis: {automargin: true, autorange: "reversed"}, legend: {orientation: "h", y: -0.12, yanchor: "top", font: {size: 10}}},
    "chart-outcomes");
  }
  function noScores(section, b, rows) {  // false, with a note of why at the top, when no episode has a score
    const scored = rows.some((r) => Object.values(r.benchmarks[b].metrics || {}).some((m) => m && m.mean !== null && m.mean !== undefined));
    if (!scored) {
      const counts = {};
      for (const r of rows) for (const [o, k] of Object.entries(r.benchmarks[b].outcomes || {})) counts[o] = (counts[o] || 0) + k;
      const cause = OUTCOMES.filter((o) => counts[o]).map((o) => counts[o] + " " + o).join(", ");
      section.append(el("p", {class: "no-scores", id: "no-scores-" + b}, "no scored episodes: " + (cause || "no episode finished")));
    }
    return scored;
  }
  function benchmarkSection(root, b) {  // appended first: Plotly sizes a chart by its place on the page
    const rows = summary.rows.filter((r) => r.benchmarks[b]);
    const names = metricNames(b);
    const section = el("section", {class: "bench", id: "bench-" + b}, el("h2", {}, b));
    root.append(section);
    const scored = noScores(section, b, rows);
    section.append(headlineTable(b, rows, names));
    const charts = el("div", {class: "charts"});
    section.append(charts);
    if (scored) metricChart(charts, b, rows, names, true);
    if (scored) metricChart(charts, b, rows, names, false);
    outcomeChart(charts, b, rows);
    for (const t of scored ? (summary.details || {})[b] || [] : []) {
      const diffs = t.reference_diff || [];
      const cells = t.rows.map((r, i) => r.map((c, j) => (t.text ? t.text[i][j] : c === null || c === undefined ? "-" : typeof c === "number" ? c.toFixed(1) : c) +
        (diffs[i] && diffs[i][j] !== null && diffs[i][j] !== undefined ? " " + vsPaper(diffs[i][j]) : "")));
      section.append(el("h3", {}, b + ": " + t.title), el("div", {class: "table-wrap"}, table(t.columns, cells.concat(t.reference_rows || []))));
    }
  }
  function comparisonsSection(root) {  // paired differences, one table and chart per unit (points apart from counts)
    const section = el("section", {class: "bench", id: "comparisons-section"});
    root.append(section);
    const base = summary.rows[0];
    section.append(el("h2", {}, "Paired differences against " + rowName(base)),
      el("p", {class: "muted"}, "other minus baseline over the episodes both ran on the same data; n = pairs; interval at " +
        Math.round(summary.confidence * 100) + "%"));
    const units = {};
    for (const c of summary.comparisons) {
      const unit = c.unit || (c.percent ? "percentage points" : c.label);  // step counts share one unit
      (units[unit] = units[unit] || []).push(c);
    }
    const other = (c) => rowName(c.other_row !== undefined ? summary.rows[c.other_row] : c.other);
    const all = [];
    for (const [unit, cs] of Object.entries(units)) {
      const k = cs[0].percent ? 100 : 1;
      const rows = cs.map((c) => {
        const cell = c.mean_diff === null ? "-" : interval(c, c.mean_diff, k, "+");
        return [other(c), c.benchmark, c.label, cell, String(c.pairs), String(c.unpaired)];
      });
      all.push(...rows);
      const box = el("div", {class: "unit"}, el("h3", {}, "in " + unit));
      section.append(box);
      box.append(el("div", {class: "table-wrap"}, table(["model / agent", "benchmark", "metric", "difference [CI]", "n (pairs)", "unpaired"], rows)));
      const shown = cs.filter((c) => c.mean_diff !== null);
      if (shown.length) {
        plot(box, [{type: "scatter", mode: "markers", marker: {size: 9},
          y: shown.map((c) => short(c.benchmark + " " + c.label + ", n=" + c.pairs + ": " + other(c), 90)),
          x: shown.map((c) => c.mean_diff * k),
          error_x: {type: "data", symmetric: false, array: shown.map((c) => hasCI(c) ? (c.ci_high - c.mean_diff) * k : null),
            arrayminus: shown.map((c) => hasCI(c) ? (c.mean_diff - c.ci_low) * k : null)}}],
        // under its table at full width, as tall as its labels need: labels and ticks level, the axis title whole
        {height: 90 + 24 * shown.length, margin: {l: 8, t: 10, b: 50, r: 16}, yaxis: {automargin: true, autorange: "reversed"},
          xaxis: {title: {text: plotText("difference (" + unit + ")")}, automargin: true, tickangle: 0, zeroline: true,
            zerolinewidth: 2, rangemode: "tozero"}}, "chart-diff");
      }
    }
    const t = table(["model / agent", "benchmark", "metric", "difference [CI]", "n (pairs)", "unpaired"], all, "comparisons");
    section.append(el("details", {class: "all-comparisons"}, el("summary", {}, "all differences in one table"), t));
  }

  function renderOverview() {
    pending = [];
    const root = document.getElementById("overview");
    const ci = summary.ci || {};
    root.append(el("p", {class: "muted"}, "mean [" + Math.round(summary.confidence * 100) + "% CI, " + (ci.method || "percentile bootstrap") +
      (ci.resamples ? " of " + ci.resamples + " resamples" : "") + "]; rates in %; n = finished episodes; infra failures excluded; " +
      "one section per benchmark: " + benches.join(", ")));
    root.append(el("nav", {class: "toc"}, ...benches.map((b) => el("a", {href: "#bench-" + b, onclick: (e) => {
      e.preventDefault(); document.getElementById("bench-" + b).scrollIntoView(); }}, b))));
    for (const b of benches) benchmarkSection(root, b);
    const outcomes = el("details", {class: "outcome-table"}, el("summary", {}, "Outcomes (failure taxonomy) as a table"),
      table(["model / agent", "benchmark", ...OUTCOMES],
        summary.rows.flatMap((r) => benchesOf(r).map((b) => [rowName(r), b, ...OUTCOMES.map((o) => String(r.benchmarks[b].outcomes[o]))])), "outcomes"));
    root.append(outcomes);
    const placed = summary.rows.flatMap((r) => benchesOf(r).flatMap((b) =>
      Object.keys(r.benchmarks[b].nodes || {}).sort().map((node) => {
        const seen = r.benchmarks[b].nodes[node];
        return [rowName(r), b, node, String(seen.episodes),
          Object.keys(seen.outcomes).sort().map((o) => o + " " + seen.outcomes[o]).join(", "), (seen.gpus || []).join(", ") || "-"];
      })));
    if (placed.length) root.append(el("details", {class: "outcome-table"}, el("summary", {}, "Where episodes ran (Ray nodes)"),
      table(["model / agent", "benchmark", "node", "episodes", "outcomes", "GPUs"], placed, "nodes")));
    if ((summary.comparisons || []).length) comparisonsSection(root);
    const notes = summary.notes || [];
    const kinds = {generated: "GENERATED pack", official: "official data", user: "USER data (not verified as official)"};
    const data = (r) => Object.keys(r.data || {}).sort().map((b) => "; data: " + b + " " +
      (kinds[r.data[b].kind] || r.data[b].kind + " data") + " at " + r.data[b].path).join("");
    const protocol = (r) => Object.keys(r.protocol || {}).map((b) => "; " + b + ": " + (r.protocol[b].follows
      ? "the paper's protocol" : "NOT the paper's protocol (" + r.protocol[b].differs.join("; ") + ")")).join("");
    const runs = summary.runs.map((r) => "run " + r.path + ": " + (r.model || "-") + " / " + r.agent + ", " + r.status + data(r) +
      protocol(r));
    root.append(el("h2", {}, "Notes and runs"));
    root.append(el("ul", {class: "notes"}, ...notes.concat(runs).map((n) => el("li", {}, n))));
    const draws = pending;
    pending = null;
    draws.forEach((draw) => draw());
  }

  // ---------- episode browser ----------
  const FILTERS = ["benchmark", "model", "agent", "outcome", "failure_category"];
  const PAGE = 200;
  let matches = [];
  function renderBrowser() {
    const root = document.getElementById("episodes");
    const bar = el("div", {class: "filters"});
    for (const f of FILTERS) {
      const values = [...new Set(index.rows.map((r) => r[col[f]] === null ? "" : String(r[col[f]])))].sort();
      const select = el("select", {id: "filter-" + f}, el("option", {value: "*"}, "all"), ...values.map((v) => {
        const o = el("option", {}, v === "" ? "(none)" : v); o.value = v; return o; }));
      select.addEventListener("change", applyFilters);
      bar.append(el("label", {}, f.replace("_", " "), select));
    }
    const task = el("input", {id: "filter-task", type: "search", placeholder: "task id contains"});
    task.addEventListener("input", applyFilters);
    bar.append(el("label", {}, "task", task));
    root.append(el("h2", {}, "Episodes"), bar, el("p", {id: "episode-count", class: "muted"}), el("div", {id: "episode-list"}));
    applyFilters();
  }
  function applyFilters() {
    const want = {};
    for (const f of FILTERS) want[f] = document.getElementById("filter-" + f).value;
    const task = document.getElementById("filter-task").value.toLowerCase();
    matches = [];
    index.rows.forEach((r, n) => {
      for (const f of FILTERS) if (want[f] !== "*" && (r[col[f]] === null ? "" : String(r[col[f]])) !== want[f]) return;
      if (task && !String(r[col.task_id]).toLowerCase().includes(task)) return;
      matches.push(n);
    });
    document.getElementById("episode-count").textContent = matches.length + " of " + index.rows.length + " episodes" +
      (matches.length > PAGE ? " (first " + PAGE + " shown; filter to narrow)" : "");
    const list = document.getElementById("episode-list");
    list.replaceChildren(table(["#", "benchmark", "model", "agent", "task", "outcome", "failure category", "steps", "cost $"],
      matches.slice(0, PAGE).map((n) => { const r = index.rows[n]; return [String(n), r[col.benchmark], r[col.model] || "-", r[col.agent], r[col.task_id],
        el("span", {class: "outcome-" + r[col.outcome]}, r[col.outcome]), r[col.failure_category] || "-", String(r[col.steps]), Number(r[col.cost_usd]).toFixed(4)]; })));
    list.querySelectorAll("tbody tr").forEach((tr, i) => tr.addEventListener("click", () => { location.hash = "episode=" + matches[i] + "&step=0"; }));
  }

  // ---------- one episode ----------
  // an episode arrives in parts (docs/report.md): its head (record, outline of every step, first steps) and parts of
  // later steps, from data files of bounded size; a part is asked for only when one of its steps is shown
  const requested = new Set();
  const early = {};  // parts that came (in a file with the ones asked for) before their episode's head
  const waiters = [];  // [ready(), then()] called once ready() holds
  function needFile(k) {
    if (requested.has(k)) return;
    requested.add(k);
    document.head.append(el("script", {src: "data/ep/" + k + ".js"}));
  }
  function merge(ep, k, data) {
    const first = k === 0 ? 0 : data.first;
    data.steps.forEach((st, i) => { ep.steps[first + i] = st; });
    Object.assign(ep.messages, data.messages);
    ep.loaded[k] = true;
  }
  S.part = function (n, k, data) {
    if (k === 0 && !S.episodes[n]) {
      const ep = Object.assign({}, data, {n, steps: new Array(data.step_count), messages: {}, loaded: []});
      S.episodes[n] = ep;
      merge(ep, 0, data);
      for (const [j, d] of Object.entries(early[n] || {})) merge(ep, Number(j), d);
      delete early[n];
    } else if (S.episodes[n]) merge(S.episodes[n], k, data);
    else (early[n] = early[n] || {})[k] = data;
    for (let i = waiters.length - 1; i >= 0; i--) {
      if (waiters[i][0]()) { const then = waiters[i][1]; waiters.splice(i, 1); then(); }
    }
  };
  function whenReady(ready, then, file) {
    if (ready()) return then();
    waiters.push([ready, then]);
    needFile(file);
  }
  function loadEpisode(n, then) {
    const files = index.rows[n][col.files];
    whenReady(() => Boolean(S.episodes[n]), () => then(S.episodes[n]), files[0]);
  }
  function partOf(ep, step) {  // the part holding step `step` (1-based; the start is in the head)
    let k = 0;
    while (k + 1 < ep.part_starts.length && ep.part_starts[k + 1] <= step - 1) k++;
    return k;
  }
  function loadStep(ep, step, then) {  // then() once step `step` of the episode (0: the start) is in memory
    const k = step > 0 && step <= ep.step_count ? partOf(ep, step) : 0;
    whenReady(() => Boolean(ep.loaded[k]), then, index.rows[ep.n][col.files][k]);
  }
  function frames(images) {
    const box = el("div", {class: "frames"});
    for (const im of images || []) {
      if (!im.url) continue;
      const img = el("img", {alt: im.label || "frame", loading: "lazy"});
      img.src = im.url;
      box.append(el("figure", {}, img, el("figcaption", {class: "muted"}, im.label || "")));
    }
    return box;
  }
  function kvTable(pairs) { const t = table(["field", "value"], pairs.map(([k, v]) => [k, v === null || v === undefined ? "-" : (typeof v === "object" ? JSON.stringify(v) : String(v))])); t.classList.add("kv"); return t; }
  function panel(p) {
    const box = el("div", {class: "panel"}, el("h3", {}, p.title || p.kind));
    if (p.kind === "diff") {
      box.append(el("pre", {}, ...(p.lines || []).map(([sign, text]) => el("div", {class: sign === "+" ? "diff-add" : "diff-del"}, sign + " " + text))));
    } else if (p.kind === "images") {
      box.append(frames(p.images));
    } else if (p.kind === "curve") {
      const flat = (p.y || []).every((v) => !v);  // all zero: on 0..1 (docs/report.md), never -1..1
      plot(box, [{type: "scatter", mode: "lines+markers", x: p.x, y: p.y}], {margin: {t: 10, b: 40},
        xaxis: {title: {text: plotText(p.x_label || "")}},
        yaxis: Object.assign({title: {text: plotText(p.y_label || "")}}, flat ? {range: [0, 1]} : {rangemode: "tozero"})});
    } else if (p.kind === "kv") {
      box.append(kvTable(p.items || []));
    } else {
      box.append(el("pre", {}, p.text === undefined ? JSON.stringify(p) : String(p.text)));
    }
    return box;
  }
  function add(node, ...kids) { node.append(...kids.filter((k) => k !== null && k !== undefined)); return node; }
  function facts(pairs) {  // an episode's record as compact "field value" items that wrap
    return el("dl", {class: "facts"}, ...pairs.map(([k, v]) => el("div", {}, el("dt", {}, k),
      el("dd", {}, v === null || v === undefined ? "-" : typeof v === "object" ? JSON.stringify(v) : String(v)))));
  }
  function secs(v) { return typeof v === "number" ? v.toFixed(v < 10 ? 2 : 1) + " s" : v; }
  function money(v) { return typeof v === "number" ? "$" + v.toFixed(4) : v; }
  function actionText(st) {
    const a = (st && st.action) || {};
    return a.parse_error ? "parse failure: " + a.parse_error : (a.text || JSON.stringify(a.value === undefined ? null : a.value));
  }
  function observationBox(text) {  // no empty box where a benchmark shows only frames
    return text ? el("pre", {class: "observation"}, text) : null;
  }
  function callsBox(st) {  // every model call of the step in order, with its module where the agent names one
    const calls = Array.isArray(st.calls) ? st.calls.filter((c) => c && typeof c === "object") : [];
    if (!calls.length) return null;
    return el("div", {class: "calls", id: "calls"}, el("h3", {}, "Model calls of this step (" + calls.length + ")"),
      ...calls.map((c, i) => el("div", {class: "call"},
        el("div", {class: "call-head"}, (i + 1) + ". " + (c.module || "model") + (c.model ? " (" + c.model + ")" : "") +
          (c.verdict ? ", verdict: " + c.verdict : "") +
          (Array.isArray(c.messages) ? ", prompt messages " + (c.messages[0] + 1) + "-" + c.messages[1] : "")),
        el("pre", {}, c.reply === null || c.reply === undefined ? "(no reply)" : String(c.reply)))));
  }
  function metricsBox(rec) {  // the episode's metrics: headline first, then other numbers, then the rest folded
    const head = metricOrder[rec.benchmark] || [];
    const entries = Object.entries(rec.metrics || {});
    const shown = (v) => v === null || v === undefined ? "-" : typeof v === "object" ? JSON.stringify(v) :
      typeof v === "number" ? String(Math.round(v * 1000) / 1000) : String(v);  // 0.667, not 0.6666666666666666
    const groups = [["headline metrics", head.filter((k) => k in (rec.metrics || {})).map((k) => [k, rec.metrics[k]])],
      ["other numbers", entries.filter(([k, v]) => !head.includes(k) && (typeof v === "number" || typeof v === "boolean"))],
      ["text, lists and objects", entries.filter(([k, v]) => !head.includes(k) && typeof v !== "number" && typeof v !== "boolean")]];
    const box = el("div", {id: "metrics"}, el("h3", {}, "Metrics (" + entries.length + ")"));
    for (const [title, items] of groups) {
      if (!items.length) continue;
      const t = kvTable(items.map(([k, v]) => [k, shown(v)]));
      box.append(title === "headline metrics" ? el("div", {class: "metric-group"}, el("h4", {}, title), t)
        : el("details", {class: "metric-group"}, el("summary", {}, title + " (" + items.length + ")"), t));
    }
    return box;
  }
  function stepFrames(ep, step) { return step === 0 ? ep.start.images || [] : ep.steps[step - 1].images || []; }
  function thumbOf(ep, step) {  // the frame a filmstrip cell shows: the RGB image where a step has several (LongAct's
    // rgb, depth and segmentation), else the last one
    const shown = stepFrames(ep, step).filter((i) => i.url);
    return shown.find((i) => /^rgb\b/i.test(i.label || "")) || shown.slice(-1)[0] || null;
  }
  const outline = (ep, step) => ep.outline[step - 1] || ["", 0];  // [action text, parse failure] of a step
  function cellText(eps, step) {  // a step's action in a cell without frames: each episode's, or that it ended
    return eps.map((ep) => step <= ep.step_count ? outline(ep, step)[0].slice(0, 24)
      : "(ended after " + ep.step_count + ")");
  }

  // the filmstrip: a cell per observation (start and every step) on one track, only the cells in view and 400 px
  // either side made (on scrolling), each drawing its thumbnail with its step's part of the episode; with two
  // episodes (side by side) each cell holds both, one above the other. So a 16,000-step episode's strip costs what
  // its visible cells cost.
  const PITCH = 63;  // a cell's width and the gap after it (report.css)
  function filmstrip(eps, mark) {
    const strip = el("div", {class: "filmstrip" + (eps.length > 1 ? " double" : ""), id: "filmstrip", tabindex: "0"});
    const total = Math.max(...eps.map((ep) => ep.step_count));
    const track = el("div", {class: "track", style: "width: " + ((total + 1) * PITCH) + "px"});
    strip.append(track);
    const made = new Map();
    const fill = (cell, step) => {
      const draw = () => {
        const thumbs = eps.map((ep) => {
          const im = step <= ep.step_count ? thumbOf(ep, step) : null;
          if (!im) return el("div", {class: "no-frame"});
          const img = el("img", {alt: "step " + step}); img.src = im.url; return img;
        });
        if (thumbs.some((t) => t.tagName === "IMG")) cell.prepend(...thumbs);
        else if (step > 0) cell.prepend(...cellText(eps, step).map((t) => el("div", {class: "cell-text"}, t)));
      };
      const inside = eps.filter((ep) => step <= ep.step_count);
      let left = inside.length;
      if (!left) draw();
      inside.forEach((ep) => loadStep(ep, step, () => { if (--left === 0) draw(); }));
    };
    const cellAt = (i) => {
      if (made.has(i)) return made.get(i);
      const [text, bad] = i ? outline(eps[0], i) : ["", 0];
      const cls = "cell" + (bad ? " bad" : "") + (mark && mark(i) ? " diverged" : "");
      const cell = el("div", {class: cls, "data-step": String(i), style: "left: " + (i * PITCH) + "px",
        title: i ? "step " + i + ": " + text.slice(0, 80) : "start"}, el("span", {}, String(i)));
      made.set(i, cell);
      track.append(cell);
      fill(cell, i);
      return cell;
    };
    const inView = () => {
      const from = Math.max(0, Math.floor((strip.scrollLeft - 400) / PITCH));
      const to = Math.min(total, Math.ceil((strip.scrollLeft + (strip.clientWidth || 1280) + 400) / PITCH));
      for (let i = from; i <= to; i++) cellAt(i);
    };
    let queued = false;
    strip.addEventListener("scroll", () => { if (!queued) { queued = true; requestAnimationFrame(() => { queued = false; inView(); }); } });
    strip.addEventListener("click", (e) => { const cell = e.target.closest(".cell"); if (cell) goTo(Number(cell.dataset.step)); });
    strip.inView = inView;
    strip.cellAt = cellAt;
    return strip;
  }
  function markStrip(step) {
    const strip = document.getElementById("filmstrip");
    if (!strip) return;
    const old = strip.querySelector(".cell.current");
    if (old) old.classList.remove("current");
    strip.cellAt(step).classList.add("current");
    strip.scrollLeft = Math.max(0, step * PITCH - strip.clientWidth / 2 + PITCH / 2);
    strip.inView();  // the cells now in view (a scroll to the same place fires no event)
  }

  let current = null;
  function showEpisode(n, stepIndex) {
    loadEpisode(n, (ep) => {
      const step = Math.max(0, Math.min(stepIndex, ep.step_count));
      loadStep(ep, step, () => {
        if (current && current.n === n && !current.pair) { current.step = step; renderStep(); return; }
        current = {n, ep, step};
        renderEpisode();
      });
    });
  }
  function pairCandidates(n) {  // episodes of other rows on the same task and the same data
    const r = index.rows[n];
    const data = (row, b) => (((summary.rows[row] || {}).data || {})[b] || {}).id;
    const out = [];
    index.rows.forEach((o, m) => {
      if (m !== n && o[col.benchmark] === r[col.benchmark] && o[col.task_id] === r[col.task_id] && o[col.row] !== r[col.row] &&
          data(o[col.row], o[col.benchmark]) === data(r[col.row], r[col.benchmark])) out.push(m);
    });
    return out;
  }
  function renderEpisode() {
    const {n, ep} = current;
    const rec = ep.record;
    const root = document.getElementById("episode");
    const s = (ep.end || {}).settlement || {};
    const pairs = pairCandidates(n);
    const compare = pairs.length ? el("label", {class: "compare-pick"}, "compare side by side with ",
      (() => { const sel = el("select", {id: "compare-with"}, el("option", {value: ""}, "(pick a run)"),
        ...pairs.map((m) => { const o = el("option", {}, index.rows[m][col.model] + " / " + index.rows[m][col.agent] + " (#" + m + ")"); o.value = String(m); return o; }));
      sel.addEventListener("change", () => { if (sel.value) location.hash = "compare=" + n + "," + sel.value + "&step=" + current.step; });
      return sel; })()) : null;
    const header = el("div", {},
      el("h2", {}, "Episode " + rec.episode_id),
      add(el("p", {}, el("a", {href: "#episodes"}, "back to the episode list"), " "), compare),
      facts([["benchmark", rec.benchmark], ["task", rec.task_id], ["category", rec.task_category], ["model", rec.model], ["agent", rec.agent],
        ["outcome", rec.outcome], ["failure category", rec.failure_category], ["failure reason", rec.failure_reason],
        ["steps", rec.steps], ["end reason", rec.end_reason], ["tokens", rec.prompt_tokens + rec.completion_tokens], ["cost", money(rec.cost_usd)],
        ["duration", secs(rec.duration_s)], ["run", ep.run]]));
    const nav = el("div", {class: "step-nav"},
      el("button", {id: "prev-step", onclick: () => go(-1)}, "◀ previous (k / ←)"),
      el("span", {id: "step-label"}),
      el("button", {id: "next-step", onclick: () => go(1)}, "next (j / →) ▶"),
      el("span", {class: "muted"}, "shift+arrow: 10 steps; Home / End"));
    const settle = el("div", {id: "settlement"}, el("h3", {}, "Settlement"),
      kvTable([["outcome", s.outcome], ["category", s.category], ["failure reason", s.failure_reason], ["end reason", (ep.end || {}).end_reason], ["error", (ep.end || {}).error],
        ["warnings", (rec.warnings || []).join("; ") || null]]),
      metricsBox(rec), ...(ep.panels || []).map(panel));
    root.replaceChildren(header, filmstrip([ep]), nav, el("div", {id: "step-body"}), settle);
    renderStep();
  }
  function renderStep() {
    const {ep, step} = current;
    const total = ep.steps.length;
    document.getElementById("step-label").textContent = step === 0 ? "start (observation 0 of " + total + " steps)" : "step " + step + " of " + total;
    const body = document.getElementById("step-body");
    body.replaceChildren();
    if (step === 0) {
      add(body, el("h3", {}, "Initial observation"), frames(ep.start.images), observationBox(ep.start.observation));
    } else {
      const st = ep.steps[step - 1];
      const a = st.action || {};
      const u = st.usage || {};
      const messages = st.prompt || (st.messages || []).map((h) => ep.messages[h] || {});
      const prompt = el("details", {id: "prompt"}, el("summary", {}, "prompt (" + messages.length + " messages)"),
        ...messages.map((m) => el("div", {}, el("div", {class: "muted"}, m.role || ""), el("pre", {}, typeof m.content === "string" ? m.content : JSON.stringify(m.content, null, 1)))));
      add(body, prompt, callsBox(st),
        el("h3", {}, "Raw reply"), el("pre", {id: "reply"}, st.reply === null || st.reply === undefined ? "(no model reply)" : st.reply),
        el("h3", {}, "Parsed action"),
        a.parse_error ? el("p", {class: "parse-error", id: "action"}, "parse failure: " + a.parse_error) : el("pre", {id: "action"}, a.text || JSON.stringify(a.value)),
        el("h3", {}, "Feedback"), el("pre", {id: "feedback"}, st.feedback || ""),
        facts([["prompt tokens", u.prompt_tokens], ["completion tokens", u.completion_tokens], ["cost", money(u.cost_usd)], ["cached", u.cached],
          ["model latency", secs(u.latency_s)], ["agent time", secs(st.agent_s)], ["env time", secs(st.env_s)], ["done", st.done], ["note", st.note]]),
        (st.images || []).some((i) => i.url) ? el("h3", {}, "Frames after the step") : null, frames(st.images),
        st.observation ? el("h3", {}, "Observation after the step") : null, observationBox(st.observation),
        ...(st.panels || []).map(panel));
    }
    markStrip(step);
  }

  // ---------- two models on one episode, side by side ----------
  function showCompare(a, b, stepIndex) {
    loadEpisode(a, (ea) => loadEpisode(b, (eb) => {
      const total = Math.max(ea.step_count, eb.step_count);
      const step = Math.max(0, Math.min(stepIndex, total));
      loadStep(ea, step, () => loadStep(eb, step, () => {
        if (current && current.pair && current.n === a && current.m === b) { current.step = step; renderPairStep(); return; }
        let diverge = null;
        for (let i = 1; i <= total && diverge === null; i++) if (stepDiffers(ea, eb, i)) diverge = i;
        current = {pair: true, n: a, m: b, ea, eb, step, total, diverge};
        renderCompare();
      }));
    }));
  }
  function stepDiffers(ea, eb, i) {  // the two episodes' actions at step i differ (or one has ended)
    const text = (ep) => i <= ep.step_count ? outline(ep, i)[0] : null;
    return text(ea) !== text(eb);
  }
  function renderCompare() {
    const {ea, eb, total, diverge} = current;
    const root = document.getElementById("episode");
    const who = (ep) => (ep.record.model || "-") + " / " + ep.record.agent;
    const head = el("div", {},
      el("h2", {}, "Side by side: " + ea.record.benchmark + " task " + ea.record.task_id),
      add(el("p", {}, el("a", {href: "#episode=" + current.n + "&step=0"}, "back to the episode"), " ",
        el("span", {id: "divergence", class: diverge ? "diverged-note" : "muted"}, diverge ? "first divergence at step " + diverge + " " : "the actions never diverge")),
        diverge ? el("button", {id: "jump-divergence", onclick: () => goTo(diverge)}, "go to it") : null),
      table(["", who(ea), who(eb)], [["outcome", ea.record.outcome, eb.record.outcome], ["steps", String(ea.record.steps), String(eb.record.steps)],
        ["cost", money(ea.record.cost_usd), money(eb.record.cost_usd)]], "pair-summary"));
    const strip = filmstrip([ea, eb], (i) => diverge !== null && i >= diverge && i > 0 && stepDiffers(ea, eb, i));
    const nav = el("div", {class: "step-nav"},
      el("button", {id: "prev-step", onclick: () => go(-1)}, "◀ previous (k / ←)"), el("span", {id: "step-label"}),
      el("button", {id: "next-step", onclick: () => go(1)}, "next (j / →) ▶"));
    root.replaceChildren(head, strip, nav, el("div", {id: "pair-body", class: "pair"}));
    renderPairStep();
  }
  function pairColumn(ep, step, side) {
    const col_ = el("div", {class: "side", id: "side-" + side}, el("h3", {}, (ep.record.model || "-") + " / " + ep.record.agent));
    if (step === 0) return add(col_, frames(ep.start.images), observationBox(ep.start.observation));
    const st = ep.steps[step - 1];
    if (!st) { col_.append(el("p", {class: "muted"}, "(episode ended after " + ep.steps.length + " steps)")); return col_; }
    add(col_, frames(st.images), el("h4", {}, "reply"), el("pre", {class: "reply"}, st.reply === null || st.reply === undefined ? "(no model reply)" : st.reply),
      el("h4", {}, "action"), el("pre", {class: "action"}, actionText(st)), el("h4", {}, "feedback"), el("pre", {class: "feedback"}, st.feedback || ""),
      observationBox(st.observation));
    return col_;
  }
  function renderPairStep() {
    const {ea, eb, step, total, diverge} = current;
    const differs = step > 0 && stepDiffers(ea, eb, step);
    const label = document.getElementById("step-label");
    label.textContent = (step === 0 ? "start" : "step " + step) + " of " + total + (differs ? " (actions differ" + (step === diverge ? ": first divergence)" : ")") : "");
    label.className = differs ? "diverged-note" : "";
    const body = document.getElementById("pair-body");
    body.replaceChildren(pairColumn(ea, step, "a"), pairColumn(eb, step, "b"));
    body.classList.toggle("differs", differs);
    markStrip(step);
  }
  function goTo(step) {
    if (!current) return;
    const last = current.pair ? current.total : current.ep.steps.length;
    const next = Math.max(0, Math.min(step, last));
    location.hash = (current.pair ? "compare=" + current.n + "," + current.m : "episode=" + current.n) + "&step=" + next;
  }
  function go(delta) { if (current) goTo(current.step + delta); }
  document.addEventListener("keydown", (e) => {
    if (document.getElementById("episode").hidden || e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
    const big = e.shiftKey ? 10 : 1;
    const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;  // with shift, j and k come as J and K
    if (key === "ArrowRight" || key === "j") go(big);
    else if (key === "ArrowLeft" || key === "k") go(-big);
    else if (e.key === "Home") goTo(0);
    else if (e.key === "End") goTo(Infinity);
    else return;
    e.preventDefault();
  });

  // ---------- routing ----------
  function route() {
    const h = location.hash.replace(/^#/, "");
    const params = new URLSearchParams(h.includes("=") ? h : "");
    const view = params.has("episode") || params.has("compare") ? "episode" : (h === "episodes" ? "episodes" : "overview");
    for (const id of ["overview", "episodes", "episode"]) document.getElementById(id).hidden = id !== view;
    if (params.has("compare")) {
      const [a, b] = params.get("compare").split(",").map(Number);
      showCompare(a, b, Number(params.get("step") || 0));
    } else if (view === "episode") showEpisode(Number(params.get("episode")), Number(params.get("step") || 0));
  }
  // ---------- printing: every folded section open, every chart redrawn at its width on the paper ----------
  let unfolded = [];
  function forPrint(printing) {
    if (printing && !unfolded.length) {
      unfolded = [...document.querySelectorAll("#overview details:not([open])")];
      unfolded.forEach((d) => { d.open = true; });
    } else if (!printing) {
      unfolded.forEach((d) => { d.open = false; });
      unfolded = [];
    }
  }
  function fitCharts(printing) {  // in print media the boxes have their printed size; null hands width back to autosize
    if (!window.Plotly) return;
    document.querySelectorAll("#overview .plot").forEach((div) => {
      if (div.layout) window.Plotly.relayout(div, {width: printing ? div.clientWidth : null});
    });
  }
  window.addEventListener("beforeprint", () => forPrint(true));
  window.addEventListener("afterprint", () => forPrint(false));
  window.matchMedia("print").addEventListener("change", (e) => { forPrint(e.matches); fitCharts(e.matches); });
  renderOverview();
  renderBrowser();
  window.addEventListener("hashchange", route);
  route();
  document.body.dataset.readyMs = String(performance.now());
  document.body.dataset.ready = "1";
})();
