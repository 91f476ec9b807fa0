/* Generic renderers: a collapsible JSON tree, a small Markdown renderer, bar charts. */
"use strict";

(() => {
  const { h } = CW;
  const MAX_ITEMS = 100;

  /* A JSON value as a tree; containers below depth `open` start collapsed. */
  function json(value, open = 1, depth = 0) {
    if (value === null) return h("span.j-null", "null");
    if (typeof value === "string") {
      return h("span.j-str", JSON.stringify(value));
    }
    if (typeof value === "number") return h("span.j-num", String(value));
    if (typeof value === "boolean") return h("span.j-bool", String(value));
    const isArray = Array.isArray(value);
    let entries = isArray ? value.map((v, i) => [i, v]) : Object.entries(value);
    // Records with many empty fields (compiled APIs) read better with the nulls folded away.
    const nulls = isArray ? [] : entries.filter(([, v]) => v === null);
    if (nulls.length > 6) entries = entries.filter(([, v]) => v !== null);
    const shownKeys = nulls.length > 6 ? [...entries, ...nulls] : entries;
    if (!entries.length && !nulls.length) return h("span.j-punct", isArray ? "[]" : "{}");
    const summary = isArray ? `[${entries.length} item${entries.length === 1 ? "" : "s"}]`
      : `{${shownKeys.slice(0, 4).map(([k]) => k).join(", ")}${shownKeys.length > 4 ? ", …" : ""}}`;
    const details = h("details.j", { open: depth < open }, h("summary", h("span.j-punct", summary)));
    const body = h("div.j-body");
    const fill = (from) => {
      for (const [k, v] of entries.slice(from, from + MAX_ITEMS)) {
        body.appendChild(h("div.j-row", h("span.j-key", isArray ? String(k) : k), h("span.j-punct", ": "),
          json(v, open, depth + 1)));
      }
      if (entries.length > from + MAX_ITEMS) {
        const more = h("button.more", { onclick: () => { more.remove(); fill(from + MAX_ITEMS); } },
          `show ${Math.min(MAX_ITEMS, entries.length - from - MAX_ITEMS)} more of ${entries.length}`);
        body.appendChild(more);
      } else if (nulls.length > 6) {
        const more = h("button.more", { title: nulls.map(([k]) => k).join(", "), onclick: () => {
          more.replaceWith(...nulls.map(([k]) => h("div.j-row", h("span.j-key", k), h("span.j-punct", ": "), h("span.j-null", "null"))));
        } }, `${nulls.length} null fields`);
        body.appendChild(more);
      }
    };
    // Build the children only when first opened: a 10,000-item output costs nothing until read.
    if (depth < open) fill(0);
    else details.addEventListener("toggle", () => { if (!body.childElementCount) fill(0); }, { once: true });
    details.appendChild(body);
    return details;
  }

  /* A string that holds JSON (tool results) as a tree, else as text. */
  function jsonText(text, open = 1) {
    try { return json(JSON.parse(text), open); } catch (_) { return h("pre.text", String(text)); }
  }

  /* Markdown subset: headings, lists, code fences, quotes, tables, bold/italic/code/links.
     The text is escaped first; only the markup this function writes is HTML. */
  function markdown(source) {
    const esc = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
    const inline = (s) => esc(s)
      .replace(/`([^`]+)`/g, "<code>$1</code>")
      .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>")
      .replace(/(^|[^*])\*([^*\s][^*]*)\*/g, "$1<em>$2</em>")
      .replace(/\[([^\]]+)\]\((https?:[^)\s]+)\)/g, '<a href="$2" rel="noopener noreferrer" target="_blank">$1</a>');
    const lines = String(source || "").split("\n");
    const out = [];
    let i = 0;
    while (i < lines.length) {
      const line = lines[i];
      if (/^```/.test(line)) {
        const code = [];
        for (i++; i < lines.length && !/^```/.test(lines[i]); i++) code.push(lines[i]);
        out.push("<pre><code>" + esc(code.join("\n")) + "</code></pre>"); i++; continue;
      }
      const heading = /^(#{1,6})\s+(.*)$/.exec(line);
      if (heading) { const n = Math.min(6, heading[1].length + 2); out.push(`<h${n}>${inline(heading[2])}</h${n}>`); i++; continue; }
      if (/^\s*\|.*\|\s*$/.test(line) && i + 1 < lines.length && /^\s*\|?[\s:-]+\|[\s|:-]*$/.test(lines[i + 1])) {
        const cells = (l) => l.trim().replace(/^\||\|$/g, "").split("|").map((c) => inline(c.trim()));
        const head = cells(line);
        const rows = [];
        for (i += 2; i < lines.length && /^\s*\|.*\|\s*$/.test(lines[i]); i++) rows.push(cells(lines[i]));
        out.push("<table><thead><tr>" + head.map((c) => `<th>${c}</th>`).join("") + "</tr></thead><tbody>" +
          rows.map((r) => "<tr>" + r.map((c) => `<td>${c}</td>`).join("") + "</tr>").join("") + "</tbody></table>");
        continue;
      }
      const item = /^\s*([-*+]|\d+[.)])\s+(.*)$/.exec(line);
      if (item) {
        const ordered = /\d/.test(item[1]);
        const items = [];
        while (i < lines.length) {
          const m = /^\s*([-*+]|\d+[.)])\s+(.*)$/.exec(lines[i]);
          if (!m) break;
          items.push("<li>" + inline(m[2]) + "</li>"); i++;
        }
        out.push((ordered ? "<ol>" : "<ul>") + items.join("") + (ordered ? "</ol>" : "</ul>"));
        continue;
      }
      if (/^>\s?/.test(line)) {
        const quote = [];
        for (; i < lines.length && /^>\s?/.test(lines[i]); i++) quote.push(inline(lines[i].replace(/^>\s?/, "")));
        out.push("<blockquote>" + quote.join("<br>") + "</blockquote>"); continue;
      }
      if (!line.trim()) { i++; continue; }
      const para = [];
      for (; i < lines.length && lines[i].trim() && !/^(```|#{1,6}\s|>|\s*([-*+]|\d+[.)])\s)/.test(lines[i]); i++) {
        para.push(inline(lines[i]));
      }
      if (!para.length) { para.push(inline(lines[i])); i++; }
      out.push("<p>" + para.join("<br>") + "</p>");
    }
    const el = h("div.md");
    el.innerHTML = out.join("");
    return el;
  }

  /* Horizontal bars: [{name, rate, n}] with rates in [0, 1]. */
  function bars(rows, { label = "pass rate", value = (r) => CW.pct(r.rate), n = (r) => (r.n !== undefined ? `n=${r.n}` : ""), fill = "" } = {}) {
    if (!rows.length) return h("p.muted", "nothing to show");
    return h("div.bars", { role: "table", "aria-label": label }, rows.map((r) =>
      h("div.bar-row", { role: "row" },
        h("span.bar-name", { title: r.name }, r.name),
        h("span.bar-track", h("span.bar-fill" + fill, { style: `width:${(100 * (r.rate || 0)).toFixed(1)}%` })),
        h("span.bar-value", value(r)),
        h("span.bar-n.muted", n(r)))));
  }

  /* A histogram over [0, 1] from bin counts. */
  function histogram(counts, title) {
    const max = Math.max(1, ...counts);
    const total = counts.reduce((a, b) => a + b, 0);
    return h("figure.hist", h("figcaption", title, h("span.muted", ` (${total})`)),
      h("div.hist-bars", counts.map((c, i) => h("div.hist-col", { title: `${(i / counts.length).toFixed(1)}–${((i + 1) / counts.length).toFixed(1)}: ${c}` },
        h("span.hist-n", c ? String(c) : ""),
        h("span.hist-bar", { style: `height:${(100 * c / max).toFixed(1)}%` })))),
      h("div.hist-axis", h("span", "0"), h("span", "0.5"), h("span", "1")));
  }

  Object.assign(CW, { json, jsonText, markdown, bars, histogram });
})();
