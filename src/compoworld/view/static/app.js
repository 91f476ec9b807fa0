/* CompoWorld viewer: data loading, routing, DOM helpers. No network beyond ./data/. */
"use strict";

const CW = (() => {
  const cache = new Map();
  const pending = new Map();
  const views = {};
  let index = null;

  /* Every data file is a script calling CW.receive(name, value): works over http and file://. */
  function receive(name, value) {
    cache.set(name, value);
    const waiting = pending.get(name);
    if (waiting) { waiting.resolve(value); pending.delete(name); }
    if (name === "index") boot(value);
  }

  function load(name) {
    if (cache.has(name)) return Promise.resolve(cache.get(name));
    if (!pending.has(name)) {
      let resolve, reject;
      const promise = new Promise((a, b) => { resolve = a; reject = b; });
      pending.set(name, { promise, resolve, reject });
      const script = document.createElement("script");
      script.src = "data/" + name + ".js";
      script.onerror = () => { pending.delete(name); reject(new Error("could not load data/" + name + ".js")); };
      document.head.appendChild(script);
    }
    return pending.get(name).promise;
  }

  /* The record at position i of a chunked list ("tasks" or "runs"). */
  async function record(kind, i) {
    const size = index.chunks[kind];
    const n = Math.floor(i / size);
    const chunk = await load(kind + "/" + n);
    return chunk[i - n * size];
  }

  /* h("div.card", {onclick}, child, "text", [children]) → an element; text is never parsed as HTML. */
  function h(spec, attrs, ...children) {
    const [tag, ...classes] = spec.split(".");
    const el = document.createElement(tag || "div");
    if (classes.length) el.className = classes.join(" ");
    if (attrs !== null && attrs !== undefined &&
        (typeof attrs !== "object" || attrs instanceof Node || Array.isArray(attrs))) {
      children.unshift(attrs); attrs = null;
    }
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
      else if (k === "text") el.textContent = v;
      else if (k === "class") el.className = [el.className, v].filter(Boolean).join(" ");
      else el.setAttribute(k, v === true ? "" : v);
    }
    append(el, children);
    return el;
  }

  function append(el, children) {
    for (const c of children) {
      if (c === null || c === undefined || c === false) continue;
      if (Array.isArray(c)) append(el, c);
      else el.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
    }
  }

  const pct = (x) => (x === null || x === undefined ? "–" : (100 * x).toFixed(1) + "%");
  const num = (x, d = 3) => (x === null || x === undefined ? "–" : Number(x).toFixed(d).replace(/\.?0+$/, "") || "0");
  const chip = (text, cls = "") => h("span.chip" + (cls ? "." + cls : ""), { title: text }, text);

  /* A tool name as service · tool. */
  function toolName(name) {
    const s = String(name);
    const at = s.indexOf("__");
    if (at < 0) return h("code.tool", s);
    return h("code.tool", h("span.svc", s.slice(0, at) + "__"), s.slice(at + 2));
  }

  function section(title, ...children) {
    return h("section.card", h("h2", title), ...children);
  }

  /* Routing: #/view/arg?key=value. */
  function parse() {
    const raw = location.hash.replace(/^#\/?/, "");
    const [path, query] = raw.split("?");
    const [view, ...rest] = path.split("/");
    return { view: view || "tasks", arg: decodeURIComponent(rest.join("/")), params: new URLSearchParams(query || "") };
  }

  function go(view, arg, params) {
    let hash = "#/" + view + (arg !== undefined && arg !== null && arg !== "" ? "/" + encodeURIComponent(arg) : "");
    const q = params ? params.toString() : "";
    if (q) hash += "?" + q;
    if (location.hash !== hash) location.hash = hash;
    else route();
  }

  /* Replace the query of the current view without a new history entry. */
  function setParams(params) {
    const { view, arg } = parse();
    const q = params.toString();
    history.replaceState(null, "", "#/" + view + (arg ? "/" + encodeURIComponent(arg) : "") + (q ? "?" + q : ""));
  }

  const link = (text, view, arg, cls) =>
    h("a" + (cls ? "." + cls : ""), { href: "#/" + view + (arg !== undefined ? "/" + encodeURIComponent(arg) : "") }, text);

  async function route() {
    if (!index) return;
    const { view, arg, params } = parse();
    const main = document.getElementById("main");
    for (const a of document.querySelectorAll("nav a[data-view]")) {
      a.classList.toggle("active", a.dataset.view === view || (a.dataset.also || "").split(" ").includes(view));
    }
    const render = views[view] || views.tasks;
    const token = {};
    route.token = token;
    main.replaceChildren(h("p.muted", "Loading…"));
    try {
      const el = await render(arg, params);
      if (route.token !== token) return;
      main.replaceChildren(el);
      if (!params.has("keep")) window.scrollTo(0, 0);
    } catch (error) {
      if (route.token !== token) return;
      main.replaceChildren(h("div.card.error", h("b", "Could not show this page: "), String(error.message || error)));
      console.error(error);
    }
  }

  function boot(value) {
    index = value;
    index.taskAt = new Map(index.tasks.map((t) => [t.id, t.i]));
    const files = document.getElementById("files");
    files.replaceChildren(...index.sources.map((s) =>
      h("span.chip", { title: s.path }, `${s.name} · ${s.count} ${s.kind}`)));
    const notes = index.sources.flatMap((s) => s.notes);
    if (notes.length) document.getElementById("notes").replaceChildren(...notes.map((n) => h("div.note", n)));
    document.getElementById("count-tasks").textContent = index.tasks.length;
    document.getElementById("count-runs").textContent = index.runs.length;
    window.addEventListener("hashchange", route);
    // j / k: next / previous trajectory (or task) while reading one
    document.addEventListener("keydown", (e) => {
      if (e.target.closest("input, select, textarea") || e.metaKey || e.ctrlKey || e.altKey) return;
      const { view, arg } = parse();
      const step = e.key === "j" ? 1 : e.key === "k" ? -1 : 0;
      if (!step) return;
      if (view === "run") {
        const i = Number(arg) + step;
        if (i >= 0 && i < index.runs.length) go("run", i);
      } else if (view === "task" && index.taskAt.has(arg)) {
        const next = index.tasks[index.taskAt.get(arg) + step];
        if (next) go("task", next.id);
      }
    });
    route();
  }

  return {
    receive, load, record, h, pct, num, chip, toolName, section, go, setParams, link, parse, views,
    get index() { return index; },
  };
})();
