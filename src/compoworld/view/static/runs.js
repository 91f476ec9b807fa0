/* Trajectories: the list, one trajectory as a timeline with its verdicts, a group side by side. */
"use strict";

(() => {
  const { h, chip, pct, num, link, toolName, section, json, views } = CW;

  const outcome = (r) => (r.score === null || r.score === undefined ? "unscored" : r.score >= 1 ? "passed" : "failed");
  const badge = (r) => chip(outcome(r), outcome(r) === "passed" ? "pass" : outcome(r) === "failed" ? "fail" : "");
  const title = (r) => `${r.task} · #${r.r}`;
  const distinct = (pick) => (rows) => [...new Set(rows.map(pick))].filter((x) => x !== null && x !== undefined).sort();

  views.runs = async (_, params) => {
    const rows = CW.index.runs;
    if (!rows.length) return h("div.card", h("p", "No rollouts or scored file given. Add one: ", h("code", "compoworld view scored.jsonl …")));
    const errors = { "agent errors": (r) => r.agent_errors > 0, "environment errors": (r) => r.env_errors > 0,
      "replay mismatches": (r) => r.mismatches > 0, "no errors": (r) => !r.agent_errors && !r.env_errors };
    return h("div", h("h1", "Trajectories"), CW.filteredList({
      rows, params, noun: "trajectories", rowLink: (r) => "#/run/" + r.i,
      filters: [
        { key: "q", label: "search task, agent, model, failed criterion", test: (r, v) => [r.task, r.agent, r.model, ...r.failed].some((x) => String(x ?? "").toLowerCase().includes(v.toLowerCase())) },
        { key: "outcome", label: "outcome", options: () => ["passed", "failed", "unscored"], test: (r, v) => outcome(r) === v },
        { key: "agent", label: "agent", options: distinct((r) => r.agent), test: (r, v) => r.agent === v },
        { key: "finish", label: "finish", options: distinct((r) => r.finish), test: (r, v) => r.finish === v },
        { key: "errors", label: "errors", options: () => Object.keys(errors), test: (r, v) => errors[v](r) },
        { key: "cap", label: "capability", options: (rs) => [...new Set(rs.flatMap((r) => r.caps))].sort(), test: (r, v) => r.caps.includes(v) },
        { key: "file", label: "file", options: () => CW.index.sources.filter((s) => s.kind !== "tasks").map((s) => s.name), test: (r, v) => CW.index.sources[r.file].name === v },
      ],
      columns: [
        { title: "trajectory", cell: (r) => link(title(r), "run", r.i, "mono") },
        { title: "agent", cell: (r) => [r.agent, r.model ? h("span.muted", " " + r.model) : null] },
        { title: "outcome", cell: badge },
        { title: "finish", cell: (r) => (r.finish === "stop" ? h("span.muted", "stop") : chip(r.finish, "warn")) },
        { title: "calls", cls: "num", cell: (r) => r.calls },
        { title: "errors", cls: "num", cell: (r) => [r.agent_errors ? chip(`${r.agent_errors} agent`, "fail") : null,
          r.env_errors ? chip(`${r.env_errors} env`, "env") : null, r.mismatches ? chip("replay ≠", "warn") : null] },
        { title: "rubric", cls: "num", cell: (r) => num(r.rubric) },
        { title: "CFR reward", cls: "num", cell: (r) => num(r.reward) },
        { title: "failed criteria", cls: "wide", cell: (r) => h("span.clip.muted", { title: r.failed.join(", ") }, r.failed.join(", ")) },
      ],
    }));
  };

  /* The envelope of a tool message: {success, data} or {success: false, error: {code, message}}. */
  function result(message, call) {
    if (!message) return h("div.result.missing", "no result in the conversation");
    let value;
    try { value = JSON.parse(message.content); } catch (_) { return h("div.result", h("pre.text", String(message.content))); }
    const failed = value && value.success === false;
    if (!failed) return h("div.result.ok", json(value && "data" in value ? value.data : value, 1));
    const err = value.error || {};
    const env = (call && call.error_source === "environment") || (!call && err.code >= 500);
    return h("div.result" + (env ? ".env-error" : ".agent-error"),
      h("div.err-head", chip(env ? "environment error — not the agent's" : "agent error", env ? "env" : "fail"),
        h("b", ` ${err.code ?? ""} `), String(err.message ?? "")),
      Object.keys(value).some((k) => !["success", "error"].includes(k)) ? json(value, 0) : null);
  }

  function parseArgs(raw) {
    if (typeof raw !== "string") return { value: raw };
    try { return { value: JSON.parse(raw || "{}") }; } catch (_) { return { raw }; }
  }

  function args(parsed) {
    if ("raw" in parsed) return h("div.args.agent-error", chip("malformed arguments", "fail"), h("pre.text", parsed.raw));
    const v = parsed.value;
    if (v && typeof v === "object" && !Array.isArray(v) && !Object.keys(v).length) return h("div.args.muted", "no arguments");
    return h("div.args", json(v, 2));
  }

  const MSG_KNOWN = ["role", "content", "tool_calls", "tool_call_id", "name", "reasoning_content"];

  function timeline(traj) {
    const messages = traj.messages || [];
    const results = new Map(messages.filter((m) => m.role === "tool").map((m) => [m.tool_call_id, m]));
    const records = new Map((traj.calls || []).map((c) => [c.call_id, c]));
    const shown = new Set();
    let turn = 0;
    const items = messages.map((m, i) => {
      if (m.role === "tool" && shown.has(m.tool_call_id)) return null;
      const body = [];
      if (m.reasoning_content) {
        body.push(h("details.reasoning", { open: m.reasoning_content.length < 1200 },
          h("summary", "reasoning"), h("div.reasoning-text", m.reasoning_content)));
      }
      if (m.content) body.push(m.role === "assistant" ? CW.markdown(m.content) : h("div.text", String(m.content)));
      for (const call of m.tool_calls || []) {
        const fn = call.function || {};
        const record = records.get(call.id);
        shown.add(call.id);
        const parsed = parseArgs(fn.arguments);
        const inner = fn.name === "call_tool" && parsed.value && typeof parsed.value.tool_name === "string"
          ? [h("span.muted", " → "), toolName(parsed.value.tool_name)] : null;  // gateway mode
        body.push(h("div.call" + (record && !record.success ? ".call-failed" : ""),
          h("div.call-head", toolName(fn.name), inner, record && record.seconds ? h("span.muted", ` ${num(record.seconds, 3)}s`) : null),
          args(parsed), result(results.get(call.id), record)));
      }
      if (m.role === "tool") body.push(result(m, records.get(m.tool_call_id)));
      const extra = CW.extras(m, MSG_KNOWN);
      if (extra) body.push(extra);
      const label = m.role === "assistant" ? `assistant · turn ${++turn}` : m.role === "tool" ? `tool ${m.name || ""}` : m.role;
      const msg = h("div.msg.msg-" + m.role, { id: `m${i}` }, h("div.role", label), h("div.msg-body", body));
      if (m.role === "system") return h("details.msg-fold", h("summary", "system prompt"), msg);
      return msg;
    });
    return h("div.timeline", items);
  }

  function verdicts(scored, task) {
    if (!scored) return h("p.muted", "Not scored: run ", h("code", "compoworld score"), " and open the scored file.");
    const described = new Map(((task && task.rubric) || []).map((c) => [c.id, c]));
    return h("ul.verdicts", (scored.criteria || []).map((c) => h("li", { class: c.passed ? "pass" : "fail" },
      h("span.mark", c.passed ? "✓" : "✗"),
      h("div", h("div", h("code", c.id), " ", chip(c.kind, "kind"), c.weight !== 1 ? h("span.muted", ` ×${c.weight}`) : null),
        described.has(c.id) ? h("div.muted", described.get(c.id).description) : null,
        h("div.reason", c.reason),
        CW.extras(c, ["id", "kind", "weight", "passed", "reason"])))));
  }

  async function taskOf(row) {
    return row.t >= 0 ? CW.record("tasks", row.t) : null;
  }

  const TRAJ_KNOWN = ["task_id", "rollout_idx", "agent", "model", "interface", "messages", "tools", "calls", "final_message",
    "finish_reason", "n_steps", "malformed_calls", "timings", "usage", "error", "_invalid"];
  const SCORED_KNOWN = ["task_id", "rollout_idx", "criteria", "passes", "weights", "rubric_score", "score",
    "replay_mismatches", "env_errors", "labels", "_invalid"];

  views.run = async (arg) => {
    const row = CW.index.runs[Number(arg)];
    if (!row) return h("div.card.error", `No trajectory ${arg}.`);
    const [run, task] = await Promise.all([CW.record("runs", row.i), taskOf(row)]);
    const traj = run.trajectory;
    const scored = run.scored;
    const group = CW.index.groups.find((g) => g.runs.includes(row.i));
    const tools = traj.tools && traj.tools.toolset ? h("details", { ontoggle: async (e) => {
      const el = e.target; if (el.dataset.done) return; el.dataset.done = "1";
      const list = await CW.load("tools/" + traj.tools.toolset);
      el.appendChild(h("div", list.map((t) => { const f = t.function || t; return h("details.tooldef", h("summary", toolName(f.name)), h("div.muted", f.description || ""), json(f.parameters || {}, 1)); })));
    } }, h("summary", `${traj.tools.count} tools offered`)) : null;
    return h("div.page",
      h("div.title", h("h1.mono", title(row)), badge(row), chip(traj.agent + (traj.model ? " · " + traj.model : "")), chip(traj.interface || "?"),
        traj.finish_reason !== "stop" ? chip(traj.finish_reason, "warn") : null),
      h("div.meta", h("span", h("span.muted", "task "), row.t >= 0 ? link(row.task, "task", row.task) : row.task),
        group && group.runs.length > 1 ? h("span", link(`group of ${group.runs.length} side by side`, "group", CW.index.groups.indexOf(group))) : null,
        h("span", h("span.muted", "file "), CW.index.sources[row.file].name),
        h("span.nav", row.i > 0 ? link("‹ previous", "run", row.i - 1) : null, " ",
          row.i + 1 < CW.index.runs.length ? link("next ›", "run", row.i + 1) : null, h("span.muted", " (j / k)"))),
      CW.invalid(scored || traj),
      traj.error ? h("div.card.error", h("b", "Episode error: "), traj.error) : null,
      h("div.two",
        h("div.main", timeline(traj)),
        h("aside",
          section("Outcome", h("table.kv", h("tbody",
            [["completion", scored ? (scored.score >= 1 ? "full" : "not full") : "–"], ["rubric score", num(row.rubric)],
              ["CFR reward", num(row.reward)], ["uniform reward", num(row.rewards.uniform)], ["finish", traj.finish_reason],
              ["assistant turns", traj.n_steps], ["calls", row.calls], ["agent errors", row.agent_errors], ["environment errors", row.env_errors],
              ["malformed calls", traj.malformed_calls], ["time", traj.timings ? `${num(traj.timings.total_s, 2)}s (env ${num(traj.timings.env_s, 2)}s)` : "–"],
              ["tokens", traj.usage && Object.keys(traj.usage).length ? Object.entries(traj.usage).map(([k, v]) => `${k} ${v}`).join(", ") : "–"]]
              .map(([k, v]) => h("tr", h("th", k), h("td", String(v ?? "–")))))),
            row.agent_errors || row.env_errors ? h("button.more", { onclick: () => {
              const first = document.querySelector(".result.agent-error, .result.env-error, .args.agent-error");
              if (first) first.closest(".call").scrollIntoView({ block: "center" });
            } }, "jump to the first failed call") : null),
          section("Final answer", traj.final_message ? CW.markdown(traj.final_message) : h("p.muted", "(none)")),
          section("Verdicts", verdicts(scored, task)),
          scored && (scored.replay_mismatches || []).length ? section("Replay mismatches",
            h("p.muted", "The replayed call's outcome differs from the logged one: the score may not be the episode's."),
            json(scored.replay_mismatches, 2)) : null,
          tools ? section("Tools", tools) : null,
          (() => {
            const x = [CW.extras(traj, TRAJ_KNOWN), scored ? CW.extras(scored, SCORED_KNOWN) : null].filter(Boolean);
            return x.length ? section("Other fields", x) : null;
          })())));
  };

  /* A task's group, compact: for the task page. */
  CW.groupSummary = (g) => {
    const rows = g.runs.map((i) => CW.index.runs[i]);
    return h("div.group", h("div", h("span.muted", CW.index.sources[g.file].name + " · "), `${rows.length} rollouts · `,
      link("side by side", "group", CW.index.groups.indexOf(g))),
    h("table.list", h("thead", h("tr", ["rollout", "agent", "outcome", "rubric", "CFR reward", "calls"].map((t) => h("th", t)))),
      h("tbody", rows.map((r) => h("tr", h("td", link("#" + r.r, "run", r.i)), h("td", r.agent), h("td", badge(r)),
        h("td.num", num(r.rubric)), h("td.num", num(r.reward)), h("td.num", r.calls))))));
  };

  views.group = async (arg) => {
    const g = CW.index.groups[Number(arg)];
    if (!g) return h("div.card.error", `No group ${arg}.`);
    const rows = g.runs.map((i) => CW.index.runs[i]);
    const [runs, task] = await Promise.all([Promise.all(g.runs.map((i) => CW.record("runs", i))), taskOf(rows[0])]);
    const criteria = ((runs[0].scored || {}).criteria || []).map((c) => c.id);
    const described = new Map(((task && task.rubric) || []).map((c) => [c.id, c]));
    const cell = (run, k) => { const c = ((run.scored || {}).criteria || [])[k]; return c ? h("td.verdict", { class: c.passed ? "pass" : "fail", title: c.reason }, c.passed ? "✓" : "✗") : h("td.muted", "–"); };
    const maxW = Math.max(1e-9, ...(g.cfr_weights || [0]));
    return h("div.page",
      h("div.title", h("h1", "Group of ", h("span.mono", g.task)), chip(`${rows.length} rollouts`)),
      h("div.meta", h("span", h("span.muted", "task "), g.t >= 0 ? link(g.task, "task", g.task) : g.task),
        h("span", h("span.muted", "file "), CW.index.sources[g.file].name)),
      task ? h("div.card.instruction", h("span.muted", "Instruction  "), task.instruction) : null,
      section("Criteria × rollouts",
        h("p.muted", "CFR weight: criteria the group fails more weigh more (normalized to sum to 1). Hover a mark for its reason."),
        h("div.scroll", h("table.matrix",
          h("thead", h("tr", h("th", "criterion"), h("th", "CFR weight"), rows.map((r) => h("th", link("#" + r.r, "run", r.i), h("div.muted", r.agent))))),
          h("tbody", criteria.map((id, k) => h("tr",
            h("td", h("code", id), described.has(id) ? h("div.muted", described.get(id).description) : null),
            h("td.weight", g.cfr_weights ? [h("span.wbar", { style: `width:${(60 * g.cfr_weights[k] / maxW).toFixed(0)}px` }), " ", num(g.cfr_weights[k])] : "–"),
            runs.map((run) => cell(run, k))))),
          h("tfoot",
            [["CFR reward", (r) => num(r.reward)], ["uniform", (r) => num(r.rewards.uniform)], ["completion", (r) => num(r.rewards.binary)],
              ["finish", (r) => r.finish], ["calls", (r) => r.calls], ["errors", (r) => `${r.agent_errors} agent · ${r.env_errors} env`]]
              .map(([name, f]) => h("tr", h("th", name), h("td"), rows.map((r) => h("td.num", String(f(r)))))))))),
      section("Final answers", h("div.side", runs.map((run, k) => h("div.card.mini", h("div", link("#" + rows[k].r, "run", rows[k].i), " ", badge(rows[k])),
        CW.markdown(run.trajectory.final_message || "(none)"))))));
  };
})();
