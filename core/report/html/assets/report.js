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
    t.append(el("thead", {}, el("tr", {}, ...columns.map((c) => el("th", {}, c)))));
    const body = el("tbody");
    for (const r of rows) body.append(el("tr", {}, ...r.map((c) => c instanceof Node ? el("td", {}, c) : el("td", {}, c === null || c === undefined ? "-" : c))));
    t.append(body);
    return t;
  }
  function rowName(row) {
    let name = (row.model || "-") + " / " + row.agent;
    if (row.label) name += " (" + row.label + ")";
    if (row.data_tag) name += " [data " + row.data_tag + "]";
    return name;
  }
  function fmt(m) {
    if (!m || m.mean === null || m.mean === undefined) return "-";
    const k = m.percent ? 100 : 1;
    const few = m.small_n ? " (n=" + m.n + ")" : "";
    return (m.mean * k).toFixed(1) + few + " [" + (m.ci_low * k).toFixed(1) + ", " + (m.ci_high * k).toFixed(1) + "]" +
      (m.paper ? " " + vsPaper(m.paper.diff) : "");
  }
  function vsPaper(diff) { return "(paper " + (diff >= 0 ? "+" : "") + diff.toFixed(1) + ")"; }
  function printed(v) {  // a paper number as printed: one decimal unless it has more, step counts whole
    if (v === null || v === undefined) return "-";
    if (Number.isInteger(v) && Math.abs(v) >= 100) return v.toFixed(0);
    return Math.round(v * 10) / 10 === v ? v.toFixed(1) : String(v);
  }
  function plot(container, traces, layout) {
    const div = el("div", {class: "plot"});
    container.append(div);
    if (window.Plotly) {
      window.Plotly.newPlot(div, traces, Object.assign({margin: {t: 30, b: 120}, barmode: "group"}, layout),
        {displaylogo: false, responsive: true, showLink: false, showSendToCloud: false, showEditInChartStudio: false});
    }
    return div;
  }
  const benches = [...new Set(summary.rows.flatMap((r) => Object.keys(r.benchmarks)))].sort();

  // ---------- overview ----------
  function headlineTable() {
    const columns = ["model", "agent"];
    const metricNames = {};
    for (const b of benches) {
      const names = {};
      for (const r of summary.rows) for (const [n, m] of Object.entries((r.benchmarks[b] || {}).metrics || {})) names[n] = names[n] || m.label;
      metricNames[b] = Object.entries(names);
      for (const [, label] of metricNames[b]) columns.push(b + " " + label);
      columns.push(b + " n", b + " infra");
    }
    columns.push("tokens", "cost $");
    const rows = summary.rows.map((r) => {
      const cells = [r.model || "-", rowName(r).split(" / ").slice(1).join(" / ")];
      for (const b of benches) {
        const g = r.benchmarks[b];
        if (!g) { cells.push(...Array(metricNames[b].length + 2).fill("-")); continue; }
        for (const [n] of metricNames[b]) cells.push(fmt(g.metrics[n]));
        cells.push(String(g.episodes) + (g.unfinished ? " (+" + g.unfinished + " unfinished)" : ""), String(g.infra_failures));
      }
      const gs = Object.values(r.benchmarks);
      cells.push(gs.reduce((a, g) => a + g.tokens, 0).toLocaleString("en-US"), gs.reduce((a, g) => a + g.cost_usd, 0).toFixed(4));
      return cells;
    });
    // the papers' rows (`suite report --reference`): their numbers as printed, no intervals, after the runs' rows
    const paper = {};
    for (const [b, ref] of Object.entries(summary.reference || {})) {
      for (const e of ref.entries) {
        if (e.attach !== "headline") continue;
        const key = JSON.stringify([b, e.model, e.condition]);
        (paper[key] = paper[key] || {bench: b, model: e.model, condition: e.condition, values: {}}).values[e.metric] = e.value;
      }
    }
    for (const p of Object.values(paper)) {
      const cells = ["paper: " + p.model, p.condition];
      for (const b of benches) {
        for (const [n] of metricNames[b]) cells.push(b === p.bench && n in p.values ? printed(p.values[n]) : "-");
        cells.push("-", "-");
      }
      rows.push(cells.concat(["-", "-"]));
    }
    return {columns, rows, metricNames};
  }

  function renderOverview() {
    const root = document.getElementById("overview");
    const ci = summary.ci || {};
    const head = headlineTable();
    root.append(el("h2", {}, "Headline metrics"));
    root.append(el("p", {class: "muted"}, "mean [" + Math.round(summary.confidence * 100) + "% CI, " + (ci.method || "percentile bootstrap") +
      (ci.resamples ? " of " + ci.resamples + " resamples" : "") + "]; n = finished episodes; infra failures excluded"));
    root.append(table(head.columns, head.rows, "headline"));
    for (const b of benches) {
      for (const [name, label] of head.metricNames[b]) {
        const rows = summary.rows.filter((r) => r.benchmarks[b] && r.benchmarks[b].metrics[name] && r.benchmarks[b].metrics[name].mean !== null);
        if (!rows.length) continue;
        const ms = rows.map((r) => r.benchmarks[b].metrics[name]);
        const k = ms[0].percent ? 100 : 1;
        root.append(el("h3", {}, b + ": " + label));
        plot(root, [{type: "bar", x: rows.map((r) => plotText(rowName(r))), y: ms.map((m) => m.mean * k),
          error_y: {type: "data", symmetric: false, array: ms.map((m) => (m.ci_high - m.mean) * k), arrayminus: ms.map((m) => (m.mean - m.ci_low) * k)},
          name: plotText(label)}], {yaxis: {title: {text: plotText(label) + (ms[0].percent ? " (%)" : "")}}});
      }
    }
    root.append(el("h2", {}, "Outcomes (failure taxonomy)"));
    for (const b of benches) {
      const rows = summary.rows.filter((r) => r.benchmarks[b]);
      root.append(el("h3", {}, b));
      plot(root, OUTCOMES.map((o) => ({type: "bar", name: o, x: rows.map((r) => plotText(rowName(r))),
        y: rows.map((r) => r.benchmarks[b].outcomes[o] || 0)})), {barmode: "stack", yaxis: {title: {text: "episodes"}}});
    }
    root.append(table(["model / agent", "benchmark", ...OUTCOMES],
      summary.rows.flatMap((r) => Object.keys(r.benchmarks).sort().map((b) => [rowName(r), b, ...OUTCOMES.map((o) => String(r.benchmarks[b].outcomes[o]))])), "outcomes"));
    if ((summary.comparisons || []).length) {
      const base = summary.rows[0];
      root.append(el("h2", {}, "Paired differences against " + rowName(base)));
      const rows = summary.comparisons.map((c) => {
        const other = c.other_row !== undefined ? summary.rows[c.other_row] : c.other;
        const k = c.percent ? 100 : 1;
        const cell = c.mean_diff === null ? "-" : (c.mean_diff * k >= 0 ? "+" : "") + (c.mean_diff * k).toFixed(1) +
          " [" + (c.ci_low * k).toFixed(1) + ", " + (c.ci_high * k).toFixed(1) + "]" + (c.small_n ? " (n=" + c.pairs + ")" : "");
        return [rowName(other), c.benchmark, c.label, cell, String(c.pairs), String(c.unpaired)];
      });
      root.append(table(["model / agent", "benchmark", "metric", "difference [CI]", "pairs", "unpaired"], rows, "comparisons"));
      const shown = summary.comparisons.filter((c) => c.mean_diff !== null);
      if (shown.length) {
        plot(root, [{type: "scatter", mode: "markers", orientation: "h",
          y: shown.map((c) => plotText(c.benchmark + " " + c.label + ": " + rowName(c.other_row !== undefined ? summary.rows[c.other_row] : c.other))),
          x: shown.map((c) => c.mean_diff * (c.percent ? 100 : 1)),
          error_x: {type: "data", symmetric: false, array: shown.map((c) => (c.ci_high - c.mean_diff) * (c.percent ? 100 : 1)),
            arrayminus: shown.map((c) => (c.mean_diff - c.ci_low) * (c.percent ? 100 : 1))}}],
        {margin: {l: 320, t: 20}, xaxis: {title: {text: "difference (points)"}, zeroline: true}});
      }
    }
    const details = Object.entries(summary.details || {});
    if (details.length) root.append(el("h2", {}, "Benchmark details"));
    for (const [b, tables] of details) {
      for (const t of tables) {
        root.append(el("h3", {}, b + ": " + t.title));
        const diffs = t.reference_diff || [];
        const rows = t.rows.map((r, i) => r.map((c, j) => (c === null || c === undefined ? "-" : typeof c === "number" ? c.toFixed(1) : c) +
          (diffs[i] && diffs[i][j] !== null && diffs[i][j] !== undefined ? " " + vsPaper(diffs[i][j]) : "")));
        root.append(table(t.columns, rows.concat(t.reference_rows || [])));
      }
    }
    const notes = summary.notes || [];
    const kinds = {generated: "GENERATED pack", official: "official data", user: "USER data (not verified as official)"};
    const data = (r) => Object.keys(r.data || {}).sort().map((b) => "; data: " + b + " " +
      (kinds[r.data[b].kind] || r.data[b].kind + " data") + " at " + r.data[b].path).join("");
    const runs = summary.runs.map((r) => "run " + r.path + ": " + (r.model || "-") + " / " + r.agent + ", " + r.status + data(r));
    root.append(el("h2", {}, "Notes and runs"));
    root.append(el("ul", {class: "notes"}, ...notes.concat(runs).map((n) => el("li", {}, n))));
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
  function episodeFile(n) { return "data/ep/" + Math.floor(n / index.per_file) + ".js"; }
  S.loaded = function (n, data) {
    S.episodes[n] = data;
    (S.waiting[n] || []).forEach((f) => f(data));
    delete S.waiting[n];
  };
  function loadEpisode(n, then) {
    if (S.episodes[n]) return then(S.episodes[n]);
    const first = !S.waiting[n];
    (S.waiting[n] = S.waiting[n] || []).push(then);
    if (first) document.head.append(el("script", {src: episodeFile(n)}));
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
      plot(box, [{type: "scatter", mode: "lines+markers", x: p.x, y: p.y}], {margin: {t: 10, b: 40},
        xaxis: {title: {text: plotText(p.x_label || "")}}, yaxis: {title: {text: plotText(p.y_label || "")}}});
    } else if (p.kind === "kv") {
      box.append(kvTable(p.items || []));
    } else {
      box.append(el("pre", {}, p.text === undefined ? JSON.stringify(p) : String(p.text)));
    }
    return box;
  }
  let current = null;
  function showEpisode(n, stepIndex) {
    loadEpisode(n, (ep) => {
      current = {n, ep, step: Math.max(0, Math.min(stepIndex, ep.steps.length))};
      renderEpisode();
    });
  }
  function renderEpisode() {
    const {n, ep, step} = current;
    const rec = ep.record;
    const root = document.getElementById("episode");
    const s = (ep.end || {}).settlement || {};
    const header = el("div", {},
      el("h2", {}, "Episode " + rec.episode_id),
      el("p", {}, el("a", {href: "#episodes"}, "back to the episode list")),
      kvTable([["benchmark", rec.benchmark], ["task", rec.task_id], ["category", rec.task_category], ["model", rec.model], ["agent", rec.agent],
        ["outcome", rec.outcome], ["failure category", rec.failure_category], ["failure reason", rec.failure_reason],
        ["steps", rec.steps], ["end reason", rec.end_reason], ["tokens", rec.prompt_tokens + rec.completion_tokens], ["cost $", rec.cost_usd],
        ["duration s", rec.duration_s], ["run", ep.run]]));
    const total = ep.steps.length;
    const nav = el("div", {class: "step-nav"},
      el("button", {id: "prev-step", onclick: () => go(-1)}, "◀ previous (k / ←)"),
      el("span", {id: "step-label"}, step === 0 ? "start (observation 0 of " + total + " steps)" : "step " + step + " of " + total),
      el("button", {id: "next-step", onclick: () => go(1)}, "next (j / →) ▶"));
    const body = el("div", {id: "step-body"});
    if (step === 0) {
      body.append(el("h3", {}, "Initial observation"), frames(ep.start.images), el("pre", {id: "observation"}, ep.start.observation || ""));
    } else {
      const st = ep.steps[step - 1];
      const a = st.action || {};
      const u = st.usage || {};
      const messages = st.prompt || (st.messages || []).map((h) => ep.messages[h] || {});
      const prompt = el("details", {id: "prompt"}, el("summary", {}, "prompt (" + messages.length + " messages)"),
        ...messages.map((m) => el("div", {}, el("div", {class: "muted"}, m.role || ""), el("pre", {}, typeof m.content === "string" ? m.content : JSON.stringify(m.content, null, 1)))));
      body.append(prompt,
        el("h3", {}, "Raw reply"), el("pre", {id: "reply"}, st.reply === null || st.reply === undefined ? "(no model reply)" : st.reply),
        el("h3", {}, "Parsed action"),
        a.parse_error ? el("p", {class: "parse-error", id: "action"}, "parse failure: " + a.parse_error) : el("pre", {id: "action"}, a.text || JSON.stringify(a.value)),
        el("h3", {}, "Feedback"), el("pre", {id: "feedback"}, st.feedback || ""),
        kvTable([["prompt tokens", u.prompt_tokens], ["completion tokens", u.completion_tokens], ["cost $", u.cost_usd], ["cached", u.cached],
          ["model latency s", u.latency_s], ["agent s", st.agent_s], ["env s", st.env_s], ["done", st.done], ["note", st.note]]),
        el("h3", {}, "Observation after the step"), frames(st.images), el("pre", {id: "observation"}, st.observation || ""),
        ...(st.panels || []).map(panel));
    }
    const settle = el("div", {id: "settlement"}, el("h3", {}, "Settlement"),
      kvTable([["outcome", s.outcome], ["category", s.category], ["failure reason", s.failure_reason], ["end reason", (ep.end || {}).end_reason], ["error", (ep.end || {}).error]]),
      el("h3", {}, "Metrics"), kvTable(Object.entries(rec.metrics || {})), ...(ep.panels || []).map(panel));
    root.replaceChildren(header, nav, body, settle);
  }
  function go(delta) {
    if (!current) return;
    const next = Math.max(0, Math.min(current.step + delta, current.ep.steps.length));
    location.hash = "episode=" + current.n + "&step=" + next;
  }
  document.addEventListener("keydown", (e) => {
    if (document.getElementById("episode").hidden || e.target.tagName === "INPUT") return;
    if (e.key === "ArrowRight" || e.key === "j") go(1);
    else if (e.key === "ArrowLeft" || e.key === "k") go(-1);
  });

  // ---------- routing ----------
  function route() {
    const h = location.hash.replace(/^#/, "");
    const params = new URLSearchParams(h.includes("=") ? h : "");
    const view = params.has("episode") ? "episode" : (h === "episodes" ? "episodes" : "overview");
    for (const id of ["overview", "episodes", "episode"]) document.getElementById(id).hidden = id !== view;
    if (view === "episode") showEpisode(Number(params.get("episode")), Number(params.get("step") || 0));
  }
  renderOverview();
  renderBrowser();
  window.addEventListener("hashchange", route);
  route();
  document.body.dataset.readyMs = String(performance.now());
  document.body.dataset.ready = "1";
})();
