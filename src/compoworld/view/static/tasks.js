/* Tasks: the filterable list and the task page. */
"use strict";

(() => {
  const { h, chip, pct, link, toolName, section, json, views } = CW;
  const PAGE = 100;

  /* A list with filters over index rows; filters live in the URL (shareable). */
  function filteredList({ rows, filters, columns, rowLink, params, noun }) {
    const state = Object.fromEntries(filters.map((f) => [f.key, params.get(f.key) || ""]));
    let page = Number(params.get("page") || 0);
    const count = h("span.count");
    const table = h("table.list");
    const pager = h("div.pager");
    const controls = filters.map((f) => {
      const input = f.options
        ? h("select", { "aria-label": f.label, "data-filter": f.key },
          h("option", { value: "" }, `${f.label}: all`),
          f.options(rows).map((o) => h("option", { value: o, selected: o === state[f.key] }, o)))
        : h("input", { type: "search", placeholder: f.label, value: state[f.key], "aria-label": f.label, "data-filter": f.key });
      let timer = null;
      input.addEventListener("input", () => {
        clearTimeout(timer);
        timer = setTimeout(() => { state[f.key] = input.value.trim(); page = 0; update(); }, 80);
      });
      return input;
    });
    const draw = (shown) => {
      const pages = Math.max(1, Math.ceil(shown.length / PAGE));
      page = Math.min(page, pages - 1);
      count.textContent = `${shown.length.toLocaleString()} of ${rows.length.toLocaleString()} ${noun}`;
      table.replaceChildren(
        h("thead", h("tr", columns.map((c) => h("th", c.title)))),
        h("tbody", shown.slice(page * PAGE, (page + 1) * PAGE).map((r) =>
          h("tr", { onclick: (e) => { if (!e.target.closest("a")) location.hash = rowLink(r); } },
            columns.map((c) => h("td" + (c.cls ? "." + c.cls : ""), c.cell(r)))))));
      pager.replaceChildren(
        h("button", { disabled: page === 0, onclick: () => { page--; update(); } }, "‹ previous"),
        h("span", ` page ${page + 1} of ${pages} `),
        h("button", { disabled: page >= pages - 1, onclick: () => { page++; update(); } }, "next ›"));
    };
    const update = () => {
      const shown = rows.filter((r) => filters.every((f) => !state[f.key] || f.test(r, state[f.key])));
      draw(shown);
      const p = new URLSearchParams();
      for (const f of filters) if (state[f.key]) p.set(f.key, state[f.key]);
      if (page) p.set("page", page);
      CW.setParams(p);
    };
    update();
    return h("div", h("div.filters", controls, count), table, pager);
  }

  CW.filteredList = filteredList;

  const distinct = (pick) => (rows) => [...new Set(rows.flatMap((r) => [].concat(pick(r) ?? [])))].filter((x) => x !== null && x !== "").sort();
  const has = (text, needle) => String(text ?? "").toLowerCase().includes(needle.toLowerCase());
  const rate = (x) => (x === null || x === undefined ? h("span.muted", "–") : h("span", { class: x >= 1 ? "pass" : x > 0 ? "part" : "fail" }, pct(x)));

  views.tasks = async (_, params) => {
    const rows = CW.index.tasks;
    if (!rows.length) return h("div.card", h("p", "No tasks file given. Add one: ", h("code", "compoworld view tasks.jsonl …")));
    const lengths = distinct((r) => String(r.steps));
    return h("div", h("h1", "Tasks"), filteredList({
      rows, params, noun: "tasks", rowLink: (r) => "#/task/" + encodeURIComponent(r.id),
      filters: [
        { key: "q", label: "search id, instruction, service", test: (r, v) => has(r.id, v) || has(r.text, v) || r.services.some((s) => has(s, v)) },
        { key: "cap", label: "capability", options: distinct((r) => r.caps), test: (r, v) => r.caps.includes(v) },
        { key: "domain", label: "domain", options: distinct((r) => r.domain), test: (r, v) => r.domain === v },
        { key: "service", label: "service", options: distinct((r) => r.services), test: (r, v) => r.services.includes(v) },
        { key: "motif", label: "motif", options: distinct((r) => r.motif), test: (r, v) => r.motif === v },
        { key: "interface", label: "interface", options: distinct((r) => r.interface), test: (r, v) => r.interface === v },
        { key: "steps", label: "length", options: (rs) => lengths(rs).sort((a, b) => a - b), test: (r, v) => String(r.steps) === v },
      ],
      columns: [
        { title: "task", cell: (r) => link(r.id, "task", r.id, "mono") },
        { title: "instruction", cls: "wide", cell: (r) => h("span.clip", { title: r.text }, r.text) },
        { title: "capabilities", cell: (r) => r.caps.map((c) => h("a", { href: "#/tasks?cap=" + encodeURIComponent(c) }, chip(c, "cap"))) },
        { title: "services", cell: (r) => r.services.map((s) => h("a", { href: "#/tasks?service=" + encodeURIComponent(s) }, chip(s))) },
        { title: "steps", cls: "num", cell: (r) => r.steps },
        { title: "criteria", cls: "num", cell: (r) => r.criteria },
        { title: "rollouts", cls: "num", cell: (r) => r.runs || h("span.muted", "0") },
        { title: "completion", cls: "num", cell: (r) => rate(r.pass) },
      ],
    }));
  };

  /* Where a plan argument's value came from, in words. */
  function source(src, plan) {
    if (!src) return h("span.muted", "—");
    const sem = src.semantic ? chip(src.semantic, "type") : null;
    const sel = src.selection ? h("span.muted", ` (the one with the ${src.selection.order} ${src.selection.by})`) : null;
    const each = src.each ? chip("for each item", "warn") : null;
    if (src.kind === "user") return h("span", "stated by the user ", sem);
    if (src.kind === "rule") {
      return h("span", "set by the rule found at ", h("a", { href: `#step-${src.step}` }, `step ${(src.step ?? 0) + 1}`), sel, " ", sem);
    }
    if (src.kind === "step") {
      const step = plan[src.step];
      return h("span", h("a", { href: `#step-${src.step}` }, `step ${src.step + 1}`),
        step ? h("span.muted", ` (${step.tool})`) : null, " at ", h("code", src.path || "(answer)"), sel, " ", sem, each);
    }
    if (src.kind === "computed") {
      return h("span", h("b", src.op || "computed"), " of ", h("a", { href: `#step-${src.step}` }, `step ${(src.step ?? 0) + 1}`),
        " at ", (src.paths || []).map((p) => h("code", p)).reduce((acc, x) => (acc.length ? [...acc, ", ", x] : [x]), []), sel, " ", sem);
    }
    return json(src, 2);
  }

  function planStep(step, i, plan, tag) {
    const args = Object.entries(step.arguments || {});
    return h("div.step", { id: `step-${i}` },
      h("div.step-head", h("span.step-n", String(i + 1)), toolName(step.tool), tag ? chip(tag, "warn") : null),
      args.length
        ? h("table.args", h("thead", h("tr", h("th", "argument"), h("th", "value"), h("th", "where it came from"))),
          h("tbody", args.map(([k, v]) => h("tr", h("td", h("code", k)), h("td", json(v, 1)), h("td", source((step.sources || {})[k], plan))))))
        : h("p.muted", "no arguments"),
      h("details.output", h("summary", "answer"), json(step.output, 1)),
      extras(step, ["tool", "arguments", "sources", "output"]));
  }

  function criterionDetail(c) {
    const skip = new Set(["id", "kind", "description", "weight"]);
    const rest = Object.fromEntries(Object.entries(c).filter(([k, v]) => !skip.has(k) && v !== null && v !== false &&
      !(Array.isArray(v) && !v.length) && !(typeof v === "object" && !Array.isArray(v) && v && !Object.keys(v).length)));
    return Object.keys(rest).length ? json(rest, 0) : null;
  }

  function rubric(task) {
    return h("table.rubric", h("thead", h("tr", h("th", "criterion"), h("th", "kind"), h("th", "checks"), h("th.num", "weight"))),
      h("tbody", (task.rubric || []).map((c) => h("tr",
        h("td", h("code", c.id)), h("td", chip(c.kind, "kind")), h("td", c.description, criterionDetail(c)), h("td.num", c.weight)))));
  }

  /* Fields this viewer does not know, shown as JSON. */
  function extras(record, known) {
    const rest = Object.entries(record || {}).filter(([k]) => !known.includes(k));
    if (!rest.length) return null;
    // a multi-line string (a report, notes) reads as Markdown; anything else as JSON
    return h("div.extras", rest.map(([k, v]) => h("div.extra", h("span.j-key", k), ": ",
      typeof v === "string" && v.includes("\n") ? h("div.card.mini", CW.markdown(v)) : json(v, 1))));
  }
  CW.extras = extras;

  /* A record of a large file is validated when opened: say so when it does not validate. */
  const invalid = (record) => (record && record._invalid
    ? h("div.card.error", h("b", "This record does not validate against this version of compoworld: "), record._invalid) : null);
  CW.invalid = invalid;

  /* The scenario: who asks, records planted in the world, the rule to find, the traps. */
  function scenario(sc) {
    if (!sc || typeof sc !== "object") return json(sc, 2);
    const known = ["persona", "planted", "rule", "traps", "notes"];
    const rule = sc.rule;
    return h("div",
      sc.persona ? h("div.extra", h("span.muted", "who asks "), String(sc.persona)) : null,
      Array.isArray(sc.planted) && sc.planted.length ? [h("h3", `Records planted (${sc.planted.length})`),
        h("table.args", h("thead", h("tr", h("th", "service"), h("th", "entity"), h("th", "values"))),
          h("tbody", sc.planted.map((p) => h("tr", h("td", chip(String(p.service ?? ""))), h("td", h("code", String(p.entity ?? ""))),
            h("td", json(p.values ?? p, 1))))))] : null,
      rule ? [h("h3", "Rule stored in the world"), h("div.condition",
        rule.author || rule.subject ? h("div", "An email", rule.author ? [" from ", h("b", String(rule.author))] : null,
          rule.subject ? [", subject ", h("b", `“${rule.subject}”`)] : null) : null,
        rule.kind === "selection" && rule.selection
          ? h("div", `says which item to take: the one with the ${rule.selection.order} `, h("code", rule.selection.by))
          : h("div", "sets ", rule.step !== undefined ? h("a", { href: `#step-${rule.step}` }, `step ${rule.step + 1}`) : "a step", "'s ",
            h("code", String(rule.param ?? "?")), " to ", json(rule.value, 1)),
        extras(rule, ["kind", "author", "subject", "step", "param", "value", "selection"]))] : null,
      Array.isArray(sc.traps) && sc.traps.length ? [h("h3", "Traps"), h("ul", sc.traps.map((t) => h("li",
        chip(String(t.kind ?? "trap"), "warn"), " ", t.step && t.step.tool ? toolName(t.step.tool) : null,
        t.table ? [" would duplicate a record of ", h("code", String(t.table))] : null,
        t.position !== undefined ? h("span.muted", ` (left out at step ${t.position + 1})`) : null,
        extras(t, ["kind", "table", "step", "position"]))))] : null,
      Array.isArray(sc.notes) && sc.notes.length ? [h("h3", "What the instruction says of them"), h("ul", sc.notes.map((n) => h("li", String(n))))] : null,
      extras(sc, known));
  }

  const TASK_KNOWN = ["id", "seed", "involved", "distractors", "interface", "today", "system_prompt", "instruction",
    "plan", "condition", "rubric", "labels", "verification", "provenance", "_invalid"];
  const SCENARIO = ["scenario", "purpose", "roles", "rules", "traps", "records", "planted"];

  views.task = async (id) => {
    const at = CW.index.taskAt.get(id);
    if (at === undefined) return h("div.card.error", `No task ${JSON.stringify(id)} in the files given.`);
    const task = await CW.record("tasks", at);
    const row = CW.index.tasks[at];
    const labels = task.labels || {};
    const prov = task.provenance || {};
    const groups = CW.index.groups.filter((g) => g.task === task.id);
    const extraScenario = SCENARIO.filter((k) => k in task && task[k] !== null);
    const gates = Object.entries(task.verification || {});
    const plan = task.plan || [];
    return h("div.page",
      h("div.title", h("h1.mono", task.id), (labels.capabilities || []).map((c) => chip(c, "cap")),
        row.motif ? chip("motif: " + row.motif, "motif") : null),
      invalid(task),
      h("div.meta", [["domain", labels.domain], ["interface", task.interface], ["today", task.today], ["seed", task.seed],
        ["steps", plan.length], ["criteria", (task.rubric || []).length]]
        .map(([k, v]) => h("span", h("span.muted", k + " "), h("b", String(v ?? "–"))))),
      section("Instruction", h("div.instruction", task.instruction),
        h("details", h("summary", "system prompt"), h("pre.text", task.system_prompt || ""))),
      section("Services",
        h("div.svc-line", h("span.muted", "involved "), (task.involved || []).map((s) => chip(s, "involved"))),
        h("div.svc-line", h("span.muted", "distractors "), (task.distractors || []).length
          ? task.distractors.map((s) => chip(s, "distractor")) : h("span.muted", "none"))),
      extraScenario.length ? section("Scenario and planted records", extraScenario.map((k) => k === "scenario"
        ? scenario(task.scenario)
        : h("div.extra", h("h3", k), typeof task[k] === "string" ? CW.markdown(task[k]) : json(task[k], 2)))) : null,
      section(`Reference plan (${plan.length} steps)`, plan.map((s, i) => planStep(s, i, plan,
        task.condition && task.condition.holds && i === plan.length - 1 ? "conditional: condition holds" : null)),
        task.condition ? h("div.condition", h("b", "Condition: "),
          `do step ${plan.length + (task.condition.holds ? 0 : 1)} (${task.condition.then.tool}) only if step ${task.condition.source + 1}'s `,
          h("code", task.condition.path), ` is ${task.condition.op === "gt" ? "above" : "below"} `, h("code", String(task.condition.threshold)),
          ` — it ${task.condition.holds ? "holds" : "does not hold"} in this world.`,
          task.condition.holds ? null : planStep(task.condition.then, plan.length, plan, "not to be done")) : null),
      section("Rubric", rubric(task)),
      section("Gates", gates.length ? h("ul.gates", gates.map(([k, v]) =>
        h("li", { class: v ? "pass" : "fail" }, v ? "✓ " : "✗ ", k.replace(/_/g, " ")))) : h("p.muted", "no gate results")),
      groups.length ? section("Rollouts", groups.map((g) => CW.groupSummary(g))) : null,
      section("Provenance", json(prov, 2)),
      (() => { const x = extras(task, [...TASK_KNOWN, ...SCENARIO]); return x ? section("Other fields", x) : null; })());
  };
})();
