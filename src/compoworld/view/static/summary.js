/* Summary: pass rates per criterion kind and capability, reward distributions, most-failed criteria. */
"use strict";

(() => {
  const { h, pct, num, link, section, chip, views } = CW;

  const stat = (label, value, sub) => h("div.stat", h("div.stat-v", value), h("div.stat-l", label), sub ? h("div.muted", sub) : null);
  const counts = (obj, of) => {
    const total = of || Object.values(obj).reduce((a, b) => a + b, 0);
    return CW.bars(Object.entries(obj).map(([name, n]) => ({ name, rate: n / Math.max(1, total), n })),
      { label: "count", value: (r) => r.n.toLocaleString(), n: (r) => pct(r.rate), fill: ".neutral" });
  };

  views.summary = async () => {
    const s = CW.index.summary;
    const most = s.most_failed;
    return h("div.page", h("h1", "Summary"),
      h("div.stats",
        stat("tasks", s.tasks.toLocaleString()),
        stat("trajectories", s.runs.toLocaleString(), `${s.scored.toLocaleString()} scored`),
        stat("full completion", pct(s.full_completion)),
        stat("mean rubric score", num(s.mean_rubric)),
        stat("mean CFR reward", num(s.mean_cfr)),
        stat("errors", `${s.agent_errors} · ${s.env_errors}`, "agent · environment"),
        s.mismatched ? stat("replay mismatches", String(s.mismatched), "trajectories") : null),
      s.scored ? h("div.grid2",
        section("Pass rate per criterion kind", CW.bars(s.by_kind)),
        section("Full completion per capability", CW.bars(s.by_capability)),
        section("Full completion per agent", CW.bars(s.by_agent), h("h3", "How episodes ended"), counts(s.finish))) : null,
      s.scored ? section("Reward distributions", h("div.hists", Object.entries(s.histograms).map(([name, c]) => CW.histogram(c, name)))) : null,
      s.scored && s.failed_by_target.length ? section("Most-failed checks across tasks",
        h("p.muted", "Criteria grouped by kind and by the table or tool they check, across every task."),
        CW.bars(s.failed_by_target.map((f) => ({ name: `${f.kind} · ${f.target}`, rate: f.failed / f.checked, n: f.checked })),
          { label: "failure rate", value: (r) => pct(r.rate) + " fail", fill: ".bad" })) : null,
      s.scored ? section("Most-failed criteria",
        most.length ? h("table.list", h("thead", h("tr", ["task", "criterion", "kind", "checks", "failed"].map((t) => h("th", t)))),
          h("tbody", most.map((m) => h("tr",
            h("td", CW.index.taskAt.has(m.task) ? link(m.task, "task", m.task, "mono") : m.task),
            h("td", h("a", { href: "#/runs?q=" + encodeURIComponent(m.id) }, h("code", m.id))),
            h("td", m.kind ? chip(m.kind, "kind") : null), h("td.wide", m.description),
            h("td.num", `${m.failed} of ${m.checked} (${pct(m.failed / m.checked)})`)))))
          : h("p.pass", "Every criterion passed in every scored trajectory.")) : null,
      s.tasks ? h("div.grid2",
        section("Tasks per capability", counts(s.task_capabilities, s.tasks)),
        section("Tasks per plan length (steps)", counts(s.task_lengths), h("h3", "Interface"), counts(s.task_interfaces))) : null);
  };
})();
