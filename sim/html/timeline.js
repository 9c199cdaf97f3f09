// timeline.js - the --html page's viewer (embedded by sim/html_timeline.cpp; data format in docs/html.md).
// Canvas rows per engine, DMA queue (DMA engines folded, click to expand) and usage counter, per core; wheel
// zooms, drag pans, hover shows an instruction with its semaphore dependency arrows; the side panel sums time
// per source line (click to highlight). Slices narrower than a pixel are aggregated per pixel column, so a
// zoomed-out view of 100k+ instructions costs one pass over the visible slices. When the first frame is drawn,
// <body data-state="ready"> (or "error") tells a headless browser the page is done. The URL fragment can preset
// the view for screenshots: #zoom=T0,T1 (ns), expand=all, line=CORE:LOC (highlight), hover=CORE:ID (an instruction).
"use strict";
(function () {
  const body = document.body;
  function fail(msg) {
    body.dataset.state = "error";
    body.dataset.error = String(msg);
    const s = document.getElementById("status");
    if (s) s.textContent = "error: " + msg;
  }
  window.addEventListener("error", (e) => fail(e.message));

  const D = JSON.parse(document.getElementById("nkisim-data").textContent);
  const S = D.strings;
  const LOC = D.locations;
  const ENGINE_NAMES = ["tensor", "vector", "scalar", "gpsimd", "sync"];
  const ROW_H = 20, SUB_H = 16, HEADER_H = 22, COUNTER_H = 34, LABEL_W = 190;

  // ---- page skeleton ----------------------------------------------------------------------------------------
  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  const header = el("div", { id: "header" });
  header.appendChild(el("h1", {}, "nki-sim timeline: " + D.title));
  function maxOf(a, m) { // no Math.max(...a): large arrays overflow the argument stack
    for (let i = 0; i < a.length; i++) if (a[i] > m) m = a[i];
    return m;
  }
  const totalPs = maxOf(D.cores.map((c) => c.total_ps), 1);
  header.appendChild(el("span", { class: "summary" },
    D.target + ", " + D.cores.length + (D.cores.length > 1 ? " cores" : " core") + ", total " + fmtTime(totalPs)));
  const resetBtn = el("button", { id: "reset" }, "Reset zoom");
  const expandBtn = el("button", { id: "expand" }, "Expand DMA engines");
  header.appendChild(resetBtn);
  header.appendChild(expandBtn);
  header.appendChild(el("span", { class: "summary" }, "wheel: zoom, drag: pan, hover: details, click a source line: highlight"));
  const status = el("span", { id: "status" }, "loading");
  header.appendChild(status);
  body.appendChild(header);
  const view = el("div", { id: "view" });
  const tlcol = el("div", { id: "tlcol" });
  const axisrow = el("div", { id: "axisrow" });
  axisrow.appendChild(el("div", { id: "corner" }, "time"));
  const axis = el("canvas", { id: "axis" });
  axisrow.appendChild(axis);
  tlcol.appendChild(axisrow);
  const scroll = el("div", { id: "scroll" });
  const rowsBox = el("div", { id: "rows" });
  const labels = el("div", { id: "labels" });
  const canvasbox = el("div", { id: "canvasbox" });
  const canvas = el("canvas", { id: "tl" });
  canvasbox.appendChild(canvas);
  rowsBox.appendChild(labels);
  rowsBox.appendChild(canvasbox);
  scroll.appendChild(rowsBox);
  tlcol.appendChild(scroll);
  view.appendChild(tlcol);
  const side = el("div", { id: "side" });
  view.appendChild(side);
  body.appendChild(view);
  const tip = el("div", { id: "tip" });
  body.appendChild(tip);

  // ---- data indexes ---------------------------------------------------------------------------------------
  const cores = D.cores.map((c, ci) => {
    const nIns = c.instr.op.length, nSl = c.slices.start.length;
    const primary = new Int32Array(nIns).fill(-1), onQueue = new Int32Array(nIns).fill(-1);
    const trackOf = new Int32Array(nSl);
    c.tracks.forEach((t, ti) => {
      const isQueue = t.key.startsWith("dma.q") && t.key.indexOf(".e") < 0;
      const isEngine = !t.key.startsWith("dma.");
      for (let s = t.off; s < t.off + t.n; s++) {
        trackOf[s] = ti;
        const g = c.slices.instr[s];
        if (g < 0) continue;
        if (isEngine && primary[g] < 0) primary[g] = s;
        if (isQueue && onQueue[g] < 0) onQueue[g] = s;
      }
    });
    const waitsTo = new Map(), waitsFrom = new Map();
    for (let k = 0; k < c.waits.to.length; k++) {
      push(waitsTo, c.waits.to[k], k);
      push(waitsFrom, c.waits.from[k], k);
    }
    return { d: c, ci, primary, onQueue, trackOf, waitsTo, waitsFrom, trackRow: new Array(c.tracks.length) };
  });
  function push(m, k, v) {
    let a = m.get(k);
    if (!a) m.set(k, (a = []));
    a.push(v);
  }

  // ---- rows -----------------------------------------------------------------------------------------------
  const expanded = new Set(); // "core:track" of expanded DMA queues
  let rows = [];
  function buildRows() {
    rows = [];
    let y = 0;
    const add = (r) => { r.y = y; y += r.h; rows.push(r); return r; };
    for (const c of cores) {
      const multi = cores.length > 1;
      add({ kind: "header", h: HEADER_H, core: c,
        label: (multi ? "core " + c.ci + ": " : "") + c.d.kernel + " (" + fmtTime(c.d.total_ps) + ")" });
      c.d.tracks.forEach((t, ti) => {
        c.trackRow[ti] = null;
        if (t.parent >= 0) {
          const pk = c.ci + ":" + t.parent;
          if (!expanded.has(pk)) { c.trackRow[ti] = c.trackRow[t.parent]; return; }
          c.trackRow[ti] = add({ kind: "slices", sub: true, h: SUB_H, core: c, track: ti, label: t.label });
          return;
        }
        const hasKids = c.d.tracks.some((u) => u.parent === ti);
        c.trackRow[ti] = add({ kind: "slices", h: ROW_H, core: c, track: ti, label: t.label, expandable: hasKids,
          key: c.ci + ":" + ti });
      });
      for (const k of c.d.counters)
        add({ kind: "counter", h: COUNTER_H, core: c, counter: k, label: k.name, max: maxOf(k.v, 1) });
    }
    labels.textContent = "";
    for (const r of rows) {
      const cls = "row-label" + (r.kind === "header" ? " header" : "") + (r.sub ? " sub" : "") +
        (r.kind === "counter" ? " counter" : "") + (r.expandable ? " expandable" : "");
      const text = (r.expandable ? (expanded.has(r.key) ? "\u25be " : "\u25b8 ") : "") + r.label;
      const l = el("div", { class: cls, style: "top:" + r.y + "px;height:" + r.h + "px;line-height:" + r.h + "px",
        title: r.label }, text);
      if (r.expandable) l.addEventListener("click", () => { toggle(r.key); });
      labels.appendChild(l);
    }
    labels.style.height = y + "px";
    body.dataset.rows = String(rows.length);
    return y;
  }
  function toggle(key) {
    if (expanded.has(key)) expanded.delete(key); else expanded.add(key);
    layout();
  }

  // ---- view state -----------------------------------------------------------------------------------------
  let v0 = 0, v1 = totalPs * 1.02, W = 800, H = 100;
  let hover = null;       // {c, g}
  let selected = null;    // {ci, loc}
  const dpr = window.devicePixelRatio || 1;
  const ctx = canvas.getContext("2d"), actx = axis.getContext("2d");

  function layout() {
    const h = buildRows();
    W = Math.max(100, canvasbox.clientWidth || (window.innerWidth - LABEL_W - 360));
    H = Math.max(1, h);
    canvas.width = Math.round(W * dpr);
    canvas.height = Math.round(H * dpr);
    canvas.style.width = W + "px";
    canvas.style.height = H + "px";
    axis.width = Math.round(W * dpr);
    axis.height = Math.round(24 * dpr);
    axis.style.width = W + "px";
    draw();
  }

  function fmtTime(p) {
    const ns = p / 1000;
    if (Math.abs(ns) >= 1e6) return (ns / 1e6).toFixed(3) + " ms";
    if (Math.abs(ns) >= 1e3) return (ns / 1e3).toFixed(3) + " \u00b5s";
    return ns.toFixed(ns < 10 ? 3 : 1) + " ns";
  }
  const colorCache = new Map();
  function opColor(op) {
    let c = colorCache.get(op);
    if (!c) {
      let h = 0;
      const s = S[op];
      for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) >>> 0;
      c = "hsl(" + (h % 360) + ",55%,58%)";
      colorCache.set(op, c);
    }
    return c;
  }
  function lowerBound(a, lo, hi, v) { // first index in [lo, hi) with a[i] >= v
    while (lo < hi) { const m = (lo + hi) >>> 1; if (a[m] < v) lo = m + 1; else hi = m; }
    return lo;
  }
  const X = (t) => (t - v0) * W / (v1 - v0);

  // ---- drawing --------------------------------------------------------------------------------------------
  let cover = new Float32Array(0), coverOp = new Int32Array(0), coverSel = new Uint8Array(0);
  function drawSlices(r) {
    const c = r.core, t = c.d.tracks[r.track], st = c.d.slices.start, du = c.d.slices.dur, ins = c.d.slices.instr;
    const op = c.d.instr.op, loc = c.d.instr.loc;
    const y = r.y + 2, h = r.h - 4;
    if (cover.length < W + 2) { cover = new Float32Array(W + 2); coverOp = new Int32Array(W + 2); coverSel = new Uint8Array(W + 2); }
    cover.fill(0); coverSel.fill(0);
    const end = t.off + t.n, k = W / (v1 - v0);
    let i = lowerBound(st, t.off, end, v0);
    if (i > t.off) i--;
    const sel = selected && selected.ci === c.ci ? selected.loc : -1;
    let drawn = 0;
    ctx.font = "10px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    for (; i < end && st[i] <= v1; i++) {
      const x0 = (st[i] - v0) * k, x1 = x0 + du[i] * k;
      if (x1 < 0) continue;
      const g = ins[i], o = g >= 0 ? op[g] : 0;
      const dim = sel >= 0 && (g < 0 || loc[g] !== sel);
      if (x1 - x0 >= 1.5) {
        ctx.globalAlpha = dim ? 0.22 : 1;
        ctx.fillStyle = opColor(o);
        ctx.fillRect(x0, y, Math.max(1, x1 - x0 - 0.5), h);
        if (x1 - x0 > 40 && !dim) {
          ctx.fillStyle = "#10151c";
          ctx.save(); ctx.beginPath(); ctx.rect(x0, y, x1 - x0, h); ctx.clip();
          ctx.fillText(S[o], Math.max(x0, 0) + 3, y + h / 2);
          ctx.restore();
        }
        drawn++;
      } else {
        let col = Math.floor(Math.max(0, x0));
        const last = Math.min(W, x1);
        for (; col < last + 1e-9 && col <= W; col++) {
          const a = Math.max(x0, col), b = Math.min(x1, col + 1);
          cover[col] += Math.max(b - a, 0.0) || 0.02;
          coverOp[col] = o;
          if (!dim && sel >= 0) coverSel[col] = 1;
        }
      }
    }
    ctx.globalAlpha = 1;
    // Aggregated columns: height = busy fraction of the pixel, colour of the last opcode in it.
    for (let col = 0; col <= W; col++) {
      if (cover[col] <= 0) continue;
      const f = Math.min(1, cover[col]);
      const hh = Math.max(2, h * f);
      ctx.globalAlpha = sel >= 0 && !coverSel[col] ? 0.22 : 1;
      ctx.fillStyle = opColor(coverOp[col]);
      ctx.fillRect(col, y + h - hh, 1, hh);
      drawn++;
    }
    ctx.globalAlpha = 1;
    return drawn;
  }

  function drawCounter(r) {
    const k = r.counter, t = k.t, v = k.v;
    const y = r.y + 3, h = r.h - 6;
    if (!t.length) return 0;
    const colMax = new Float32Array(W + 1).fill(-1);
    let i = lowerBound(t, 0, t.length, v0);
    if (i > 0) i--;
    for (; i < t.length && t[i] <= v1; i++) {
      const a = Math.max(0, Math.floor(X(t[i]))), b = Math.min(W, Math.floor(X(i + 1 < t.length ? t[i + 1] : v1)));
      for (let col = a; col <= b; col++) if (v[i] > colMax[col]) colMax[col] = v[i];
    }
    ctx.fillStyle = "#7fb77f";
    for (let col = 0; col <= W; col++) {
      if (colMax[col] <= 0) continue;
      const hh = h * colMax[col] / r.max;
      ctx.fillRect(col, y + h - hh, 1, hh);
    }
    ctx.fillStyle = "#3b6e3b";
    ctx.font = "10px system-ui, sans-serif";
    ctx.textBaseline = "top";
    ctx.fillText("max " + r.max, 4, r.y + 2);
    return 1;
  }

  function drawAxis() {
    actx.setTransform(dpr, 0, 0, dpr, 0, 0);
    actx.clearRect(0, 0, W, 24);
    actx.fillStyle = "#4a5563";
    actx.strokeStyle = "#b9c2cf";
    actx.font = "10px system-ui, sans-serif";
    actx.textBaseline = "top";
    const span = v1 - v0, raw = span / Math.max(1, W / 110);
    const p10 = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map((m) => m * p10).find((s) => s >= raw) || raw;
    for (let t = Math.ceil(v0 / step) * step; t <= v1; t += step) {
      const x = X(t);
      actx.beginPath(); actx.moveTo(x + 0.5, 14); actx.lineTo(x + 0.5, 24); actx.stroke();
      actx.fillText(fmtTime(t), x + 3, 2);
    }
    return step;
  }

  function sliceXY(c, s) { // [x0, x1, yMid] of slice s of core c (its row, or its folded queue's row)
    const r = c.trackRow[c.trackOf[s]];
    if (!r) return null;
    return [X(c.d.slices.start[s]), X(c.d.slices.start[s] + c.d.slices.dur[s]), r.y + r.h / 2];
  }
  function arrow(x0, y0, x1, y1, color) {
    ctx.strokeStyle = color; ctx.fillStyle = color; ctx.lineWidth = 1.5;
    ctx.beginPath(); ctx.moveTo(x0, y0);
    const mx = (x0 + x1) / 2;
    ctx.bezierCurveTo(mx, y0, mx, y1, x1, y1); ctx.stroke();
    ctx.beginPath(); ctx.moveTo(x1, y1); ctx.lineTo(x1 - 6, y1 - 3.5); ctx.lineTo(x1 - 6, y1 + 3.5); ctx.closePath(); ctx.fill();
    ctx.lineWidth = 1;
  }
  function drawArrows() {
    if (!hover) return;
    const c = hover.c, g = hover.g, w = c.d.waits;
    const target = c.primary[g] >= 0 ? c.primary[g] : c.onQueue[g];
    if (target < 0) return;
    const me = sliceXY(c, target);
    if (!me) return;
    const src = (f, kind) => (kind === 1 && c.onQueue[f] >= 0 ? c.onQueue[f] : c.primary[f] >= 0 ? c.primary[f] : c.onQueue[f]);
    for (const k of c.waitsTo.get(g) || []) {
      const s = src(w.from[k], w.kind[k]);
      const p = s >= 0 && sliceXY(c, s);
      if (p) arrow(p[1], p[2], me[0], me[2], "#d9480f");
    }
    const mine = c.onQueue[g] >= 0 ? sliceXY(c, c.onQueue[g]) : me;
    for (const k of c.waitsFrom.get(g) || []) {
      const s = c.primary[w.to[k]];
      const p = s >= 0 && sliceXY(c, s);
      const from = w.kind[k] === 1 && mine ? mine : me;
      if (p) arrow(from[1], from[2], p[0], p[2], "#1971c2");
    }
    ctx.strokeStyle = "#000"; ctx.lineWidth = 2;
    ctx.strokeRect(me[0], me[2] - ROW_H / 2 + 1, Math.max(2, me[1] - me[0]), ROW_H - 2);
    ctx.lineWidth = 1;
  }

  let drawnSlices = 0, frames = 0;
  function draw() {
    const t0 = performance.now();
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, W, H);
    const top = scroll.scrollTop, bottom = top + (scroll.clientHeight || H);
    drawnSlices = 0;
    for (const r of rows) {
      if (r.kind === "header") { ctx.fillStyle = "#e9eef5"; ctx.fillRect(0, r.y, W, r.h); continue; }
      ctx.fillStyle = "#eef1f5"; ctx.fillRect(0, r.y + r.h - 1, W, 1);
      if (r.y + r.h < top - 50 || r.y > bottom + 50) continue;
      if (r.kind === "slices") drawnSlices += drawSlices(r);
      else if (r.kind === "counter") drawCounter(r);
    }
    drawArrows();
    drawAxis();
    frames++;
    body.dataset.frameMs = (performance.now() - t0).toFixed(1); // the last frame's drawing time
    status.textContent = rows.length + " rows, " + cores.reduce((n, c) => n + c.d.instr.op.length, 0) +
      " instructions; view " + fmtTime(v0) + " .. " + fmtTime(v1);
  }
  let pending = false;
  function redraw() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => { pending = false; draw(); });
  }

  // ---- hover details ----------------------------------------------------------------------------------------
  function esc(s) { return String(s).replace(/[&<>"]/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[ch])); }
  function instrName(c, g) {
    const I = c.d.instr;
    return ENGINE_NAMES[I.engine[g]] + " #" + I.index[g] + " " + S[I.op[g]];
  }
  function locText(l) {
    if (!l) return "unknown";
    return S[LOC.file[l]] + ":" + LOC.line[l];
  }
  function details(c, g) {
    const I = c.d.instr;
    const rows = [];
    const add = (k, v) => rows.push("<div><span class=\"k\">" + k + ":</span> " + v + "</div>");
    let h = "<div class=\"t\">" + esc(instrName(c, g)) + (cores.length > 1 ? " (core " + c.ci + ")" : "") + "</div>";
    add("start", fmtTime(I.start[g]) + ", duration " + fmtTime(I.end[g] - I.start[g]) +
      (I.ready[g] < I.start[g] ? ", ready " + fmtTime(I.ready[g]) : ""));
    if (S[I.cause[g]]) {
      let why = "waited " + fmtTime(I.start[g] - I.ready[g]) + " for " + esc(S[I.cause[g]]);
      if (I.pred[g] >= 0) why += " (" + esc(instrName(c, I.pred[g])) + (I.predk[g] ? " DMA transfer" : "") + ")";
      add("stall", why);
    }
    add("operands", "<code>" + esc(S[I.operands[g]]) + "</code>");
    const l = I.loc[g];
    add("source", esc(locText(l)) + (l && S[LOC.text[l]] ? " <code>" + esc(S[LOC.text[l]].trim()) + "</code>" : ""));
    add("cost", "<code>" + esc(S[I.formula[g]]) + "</code>" + (S[I.inputs[g]] ? " with " + esc(S[I.inputs[g]]) : "") +
      " = " + fmtTime(I.cost[g]));
    if (S[I.xfer[g]]) add("transfer", esc(S[I.xfer[g]]));
    const w = c.d.waits;
    const ins = (c.waitsTo.get(g) || []).map((k) => esc(instrName(c, w.from[k])) + (w.kind[k] ? " (its DMA transfer)" : ""));
    const outs = (c.waitsFrom.get(g) || []).map((k) => esc(instrName(c, w.to[k])));
    if (ins.length) add("waited on", ins.slice(0, 8).join(", ") + (ins.length > 8 ? ", \u2026" : ""));
    if (outs.length) add("released", outs.slice(0, 8).join(", ") + (outs.length > 8 ? ", \u2026" : ""));
    return h + rows.join("");
  }
  function hitTest(mx, my) {
    const r = rows.find((q) => my >= q.y && my < q.y + q.h);
    if (!r) return null;
    const t = v0 + mx * (v1 - v0) / W, slack = 3 * (v1 - v0) / W;
    if (r.kind === "counter") {
      const k = r.counter;
      let i = lowerBound(k.t, 0, k.t.length, t + 1);
      return { row: r, counter: k, value: i > 0 ? k.v[i - 1] : 0, t };
    }
    if (r.kind !== "slices") return null;
    const c = r.core, tr = c.d.tracks[r.track], st = c.d.slices.start, du = c.d.slices.dur;
    let i = lowerBound(st, tr.off, tr.off + tr.n, t + 1) - 1;
    let best = -1, bestD = Infinity;
    for (let j = Math.max(tr.off, i - 1); j <= Math.min(tr.off + tr.n - 1, i + 1); j++) {
      const d = t < st[j] ? st[j] - t : t > st[j] + du[j] ? t - st[j] - du[j] : 0;
      if (d < bestD) { bestD = d; best = j; }
    }
    if (best < 0 || bestD > slack) return null;
    return { row: r, c, g: c.d.slices.instr[best] };
  }
  canvas.addEventListener("mousemove", (e) => {
    if (drag) return;
    const b = canvas.getBoundingClientRect();
    const h = hitTest(e.clientX - b.left, e.clientY - b.top);
    let html = null, next = null;
    if (h && h.counter) html = "<div class=\"t\">" + esc(h.counter.name) + "</div><div>" + h.value + " at " + fmtTime(h.t) + "</div>";
    else if (h && h.g >= 0) { next = { c: h.c, g: h.g }; html = details(h.c, h.g); }
    if (html) {
      tip.innerHTML = html;
      tip.style.display = "block";
      const x = Math.min(e.clientX + 14, window.innerWidth - tip.offsetWidth - 4);
      const y = e.clientY + 16 + tip.offsetHeight > window.innerHeight ? e.clientY - tip.offsetHeight - 8 : e.clientY + 16;
      tip.style.left = Math.max(0, x) + "px";
      tip.style.top = Math.max(0, y) + "px";
    } else {
      tip.style.display = "none";
    }
    if ((next && (!hover || hover.g !== next.g || hover.c !== next.c)) || (!next && hover)) { hover = next; redraw(); }
  });
  canvas.addEventListener("mouseleave", () => { tip.style.display = "none"; if (hover) { hover = null; redraw(); } });

  // ---- zoom and pan ---------------------------------------------------------------------------------------
  const MIN_SPAN = 100; // ps
  canvas.addEventListener("wheel", (e) => {
    e.preventDefault();
    const b = canvas.getBoundingClientRect();
    const at = v0 + (e.clientX - b.left) * (v1 - v0) / W;
    const f = Math.exp(Math.max(-1, Math.min(1, e.deltaY * 0.002)));
    const span = Math.max(MIN_SPAN, Math.min(totalPs * 4, (v1 - v0) * f));
    v0 = at - (at - v0) * span / (v1 - v0);
    v1 = v0 + span;
    redraw();
  }, { passive: false });
  let drag = null;
  canvas.addEventListener("mousedown", (e) => { drag = { x: e.clientX, v0, v1 }; canvas.classList.add("dragging"); tip.style.display = "none"; });
  window.addEventListener("mousemove", (e) => {
    if (!drag) return;
    const dt = (e.clientX - drag.x) * (drag.v1 - drag.v0) / W;
    v0 = drag.v0 - dt; v1 = drag.v1 - dt;
    redraw();
  });
  window.addEventListener("mouseup", () => { drag = null; canvas.classList.remove("dragging"); });
  canvas.addEventListener("dblclick", () => { v0 = 0; v1 = totalPs * 1.02; redraw(); });
  resetBtn.addEventListener("click", () => { v0 = 0; v1 = totalPs * 1.02; redraw(); });
  expandBtn.addEventListener("click", () => {
    const keys = [];
    for (const c of cores) c.d.tracks.forEach((t, ti) => { if (c.d.tracks.some((u) => u.parent === ti)) keys.push(c.ci + ":" + ti); });
    const all = keys.every((k) => expanded.has(k));
    for (const k of keys) { if (all) expanded.delete(k); else expanded.add(k); }
    expandBtn.textContent = all ? "Expand DMA engines" : "Fold DMA engines";
    layout();
  });
  scroll.addEventListener("scroll", redraw);
  window.addEventListener("resize", layout);

  // ---- per-source-line panel ------------------------------------------------------------------------------
  function buildSide() {
    side.appendChild(el("h2", {}, "Time per source line"));
    for (const c of cores) {
      const I = c.d.instr, per = new Map();
      const at = (l) => { let a = per.get(l); if (!a) per.set(l, (a = { time: 0, dma: 0, n: 0 })); return a; };
      // Over the slices, so an instruction of a dynamic loop counts once per execution.
      const sl = c.d.slices;
      c.d.tracks.forEach((t) => {
        const engine = !t.key.startsWith("dma."), queue = t.key.startsWith("dma.q") && t.key.indexOf(".e") < 0;
        if (!engine && !queue) return;
        for (let s = t.off; s < t.off + t.n; s++) {
          const g = sl.instr[s];
          if (g < 0) continue;
          const a = at(I.loc[g]);
          if (engine) { a.time += sl.dur[s]; a.n++; } else a.dma += sl.dur[s];
        }
      });
      const list = [...per.entries()].sort((a, b) => b[1].time + b[1].dma - a[1].time - a[1].dma);
      if (cores.length > 1) side.appendChild(el("h2", {}, "core " + c.ci));
      const table = el("table", { class: "lines" });
      const head = el("tr");
      head.appendChild(el("th", {}, "line"));
      head.appendChild(el("th", { class: "num", title: "engine time of the line's instructions" }, "engines"));
      head.appendChild(el("th", { class: "num", title: "time of its DMA transfers on their queues" }, "DMA"));
      head.appendChild(el("th", { class: "num count", title: "instructions executed" }, "instrs"));
      table.appendChild(head);
      for (const [l, a] of list) {
        const tr = el("tr", { class: "line-row", "data-core": String(c.ci), "data-loc": String(l) });
        const td = el("td");
        td.appendChild(el("div", { title: locText(l) }, l ? S[LOC.file[l]].replace(/^.*\//, "") + ":" + LOC.line[l] : "unknown"));
        if (l && S[LOC.text[l]]) td.appendChild(el("code", {}, S[LOC.text[l]].trim()));
        tr.appendChild(td);
        tr.appendChild(el("td", { class: "num" }, fmtTime(a.time)));
        tr.appendChild(el("td", { class: "num" }, a.dma ? fmtTime(a.dma) : "-"));
        tr.appendChild(el("td", { class: "num" }, String(a.n)));
        tr.addEventListener("click", () => selectLine(c.ci, l));
        table.appendChild(tr);
      }
      side.appendChild(table);
    }
  }

  function selectLine(ci, l) {
    const same = selected && selected.ci === ci && selected.loc === l;
    selected = same ? null : { ci, loc: l };
    for (const q of side.querySelectorAll("tr.line-row"))
      q.classList.toggle("selected", !same && q.dataset.core === String(ci) && q.dataset.loc === String(l));
    redraw();
  }

  // The URL fragment's presets (see the top of this file).
  function applyHash() {
    const h = new URLSearchParams(location.hash.replace(/^#/, ""));
    const z = (h.get("zoom") || "").split(",").map(Number);
    if (z.length === 2 && z[1] > z[0]) { v0 = z[0] * 1000; v1 = z[1] * 1000; }
    if (h.get("expand") === "all") expandBtn.click();
    const pair = (k) => { const v = (h.get(k) || "").split(":").map(Number); return v.length === 2 && v.every(Number.isInteger) ? v : null; };
    const line = pair("line");
    if (line && cores[line[0]]) selectLine(line[0], line[1]);
    const hv = pair("hover");
    if (hv && cores[hv[0]] && hv[1] >= 0 && hv[1] < cores[hv[0]].d.instr.op.length) {
      const c = cores[hv[0]];
      hover = { c, g: hv[1] };
      tip.innerHTML = details(c, hv[1]);
      tip.style.display = "block";
      const s = c.primary[hv[1]] >= 0 ? c.primary[hv[1]] : c.onQueue[hv[1]];
      const p = s >= 0 && sliceXY(c, s), b = canvas.getBoundingClientRect();
      if (p) {
        tip.style.left = Math.max(0, Math.min(b.left + p[1] + 12, window.innerWidth - tip.offsetWidth - 4)) + "px";
        tip.style.top = Math.max(0, b.top + p[2] + 14 - scroll.scrollTop) + "px";
      }
    }
  }

  buildSide();
  layout();
  applyHash();
  draw();
  body.dataset.state = body.dataset.state === "error" ? "error" : "ready";
  body.dataset.slicesDrawn = String(drawnSlices);
  body.dataset.readyMs = String(Math.round(performance.now())); // since navigation start
  console.log("nki-sim timeline ready: " + rows.length + " rows");
})();
