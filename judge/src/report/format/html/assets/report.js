// The tribunal report's items table: filter, search, sort and item details.
// The table's rows are HTML rendered by tribunal (the page reads without
// this script); the details are built here from the JSON data, every piece
// of item data placed with textContent, never as markup.
// State lives in the URL fragment (#filter=FAIL&q=id&sort=wall-desc&open=3)
// so a link (or a headless browser) can open the page in any state.
// At most PAGE rows are drawn at first ("show more" adds the next PAGE):
// laying out ten thousand table rows takes seconds, and filter, search
// and sort always work on every item.
//
// Item fields (see data_json in render.rs): 0 id, 1 repeat, 2 outcome,
// 3 error code, 4 wall ms, 5 input tokens, 6 output tokens, 7 turns,
// 8 repair used, 9 checks [type, ok, detail, spec index], 10 tool calls
// [name, arguments, ok, ms], 11 answer, 12 transcript {system, messages},
// 13 cost in USD (null: unpriced), 14 cached input tokens, 15 a
// conversation's ending and its simulated user's tokens and cost, 16 its
// exchanges turn by turn [user, agent (null: no reply), tool calls] (both
// null: not a conversation).
(function () {
  "use strict";
  var started = performance.now();
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var items = data.items;
  var repeated = data.repeats > 1;
  var tbody = document.getElementById("rows");
  var filterEl = document.getElementById("filter");
  var searchEl = document.getElementById("search");
  var sortEl = document.getElementById("sort");
  var shownEl = document.getElementById("shown");
  var moreEl = document.getElementById("more");
  var PAGE = 1000;
  var state = { filter: "", q: "", sort: "", open: -1, limit: PAGE };

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function tokens(it) { return it[5] + it[6]; }

  // The first rows are the page's own HTML (rendered by tribunal, readable
  // with scripts off); the script reorders, hides and opens them, and
  // builds the rows past them (reports of more than ROWS_IN_HTML items) the
  // same way render.rs writes a row.
  var rowCache = new Array(items.length);
  Array.prototype.forEach.call(tbody.querySelectorAll("tr.item"), function (tr) {
    rowCache[parseInt(tr.dataset.i, 10)] = tr;
  });
  var rest = document.getElementById("rows-not-in-html");
  if (rest) rest.hidden = true;
  var WHY_CHARS = 120;
  function row(i) {
    if (rowCache[i]) return rowCache[i];
    var it = items[i];
    var tr = el("tr", "item " + it[2]);
    tr.dataset.i = String(i);
    tr.dataset.outcome = it[2];
    tr.appendChild(el("td", "id", it[0]));
    if (repeated) tr.appendChild(el("td", "num", it[1]));
    var o = el("td");
    o.appendChild(el("span", "badge " + it[2], it[2]));
    tr.appendChild(o);
    var ok = 0, failed = [];
    for (var c = 0; c < it[9].length; c++) {
      ok += it[9][c][1];
      if (!it[9][c][1]) failed.push(it[9][c][0] + ": " + it[9][c][2]);
    }
    var checks = el("td", "", it[9].length ? ok + "/" + it[9].length : "skipped");
    if (failed.length) {
      var why = failed.join("; ").replace(/\s*[\r\n]+\s*/g, " ");
      if (why.length > WHY_CHARS) why = why.slice(0, WHY_CHARS - 1) + "…";
      checks.appendChild(el("div", "why", why));
    }
    tr.appendChild(checks);
    tr.appendChild(el("td", "mono", it[3] || ""));
    tr.appendChild(el("td", "num", tokens(it)));
    tr.appendChild(el("td", "num", it[4]));
    tr.appendChild(el("td", "num", it[10].length));
    tr.appendChild(el("td", "num", it[7]));
    rowCache[i] = tr;
    return tr;
  }
  // The controls work only with this script: shown by it.
  document.getElementById("controls").hidden = false;

  function pretty(v) {
    if (typeof v === "string") {
      try { return JSON.stringify(JSON.parse(v), null, 2); } catch (e) { return v; }
    }
    return JSON.stringify(v, null, 2);
  }

  function table(head, rows) {
    var t = el("table");
    var hr = el("tr");
    head.forEach(function (h) { hr.appendChild(el("th", "", h)); });
    t.appendChild(hr);
    rows.forEach(function (cells) {
      var tr = el("tr");
      cells.forEach(function (c) {
        var td = el("td");
        if (c instanceof Node) td.appendChild(c); else td.textContent = c === null ? "" : String(c);
        tr.appendChild(td);
      });
      t.appendChild(tr);
    });
    return t;
  }

  function detail(i) {
    var it = items[i];
    var tr = el("tr", "detail");
    tr.id = "detail";
    var td = el("td");
    td.colSpan = repeated ? 9 : 8;
    var d = el("div", "detail");
    d.appendChild(el("h3", "", "Item " + it[0] + (repeated ? " · repeat " + it[1] : "") + " · " + it[2]));
    if (it[3]) {
      var p = el("p");
      p.appendChild(document.createTextNode("Error code: "));
      p.appendChild(el("code", "error-code", it[3]));
      d.appendChild(p);
    }
    d.appendChild(el("p", "muted",
      "Usage: " + it[5] + " input" + (it[14] ? " (" + it[14] + " cached)" : "") + " + " + it[6] +
      " output tokens · " + (it[13] === null ? "unpriced" : "$" + it[13].toFixed(6)) + " · " +
      it[4] + " ms · " + it[7] + " turn(s)" + (it[8] ? " · repair turn used" : "")));
    if (it[15]) d.appendChild(el("p", "muted", "Conversation: " + it[15]));
    d.appendChild(el("h3", "", "Checks"));
    if (it[9].length === 0) {
      d.appendChild(el("p", "muted", it[2] === "ERROR" ? "Skipped: the run ended with an error." : "No checks."));
    } else {
      d.appendChild(table(["", "type", "detail", "spec"], it[9].map(function (c) {
        return [el("span", c[1] ? "ok" : "bad", c[1] ? "ok" : "failed"), c[0], c[2],
          el("code", "", JSON.stringify(data.specs[c[3]]))];
      })));
    }
    d.appendChild(el("h3", "", "Tool calls"));
    if (it[10].length === 0) d.appendChild(el("p", "muted", "None."));
    else d.appendChild(table(["name", "arguments", "ok", "ms"], it[10].map(function (t) {
      return [t[0], el("code", "", t[1]), t[2] ? "ok" : "failed", t[3]];
    })));
    if (it[16]) {
      d.appendChild(el("h3", "", "Conversation"));
      d.appendChild(table(["turn", "user", "agent", "tool calls"], it[16].map(function (x, i) {
        return [i + 1, x[0], x[1] === null ? "(no reply)" : x[1], x[2]];
      })));
    }
    if (it[11] !== null && it[11] !== undefined) {
      d.appendChild(el("h3", "", "Answer"));
      d.appendChild(el("pre", "answer", pretty(it[11])));
    }
    d.appendChild(el("h3", "", "Transcript"));
    if (!it[12]) d.appendChild(el("p", "muted", "Not recorded (run with --transcripts DIR, then report with --transcripts DIR)."));
    else d.appendChild(transcript(it[12]));
    td.appendChild(d);
    tr.appendChild(td);
    return tr;
  }

  function transcript(t) {
    var box = el("div", "transcript");
    if (t.system) {
      var s = el("div", "msg system");
      s.appendChild(el("div", "role", "system"));
      s.appendChild(el("pre", "", t.system));
      box.appendChild(s);
    }
    (t.messages || []).forEach(function (m) {
      var div = el("div", "msg " + m.role);
      div.appendChild(el("div", "role", String(m.role).replace("_", " ")));
      if (m.text) div.appendChild(el("pre", "", m.text));
      (m.tool_calls || []).forEach(function (c) {
        div.appendChild(el("div", "", "→ " + c.name + " (" + c.id + ")"));
        div.appendChild(el("pre", "", pretty(c.arguments)));
      });
      (m.results || []).forEach(function (r) {
        div.appendChild(el("div", r.is_error ? "err" : "", "← " + r.id + (r.is_error ? " (error)" : "")));
        div.appendChild(el("pre", "", r.content));
      });
      box.appendChild(div);
    });
    return box;
  }

  function readHash() {
    var p = new URLSearchParams(location.hash.replace(/^#/, ""));
    state.filter = p.get("filter") || "";
    state.q = p.get("q") || "";
    state.sort = p.get("sort") || "";
    var open = parseInt(p.get("open") || "-1", 10);
    state.open = isNaN(open) ? -1 : open;
    filterEl.value = state.filter;
    searchEl.value = state.q;
    sortEl.value = state.sort;
  }

  function writeHash() {
    var p = new URLSearchParams();
    if (state.filter) p.set("filter", state.filter);
    if (state.q) p.set("q", state.q);
    if (state.sort) p.set("sort", state.sort);
    if (state.open >= 0) p.set("open", String(state.open));
    var h = p.toString();
    try {
      history.replaceState(null, "", h ? "#" + h : location.pathname + location.search);
    } catch (e) {
      // Some browsers refuse history changes on file:// pages; the state
      // then just isn't kept in the address.
    }
  }

  function render() {
    var q = state.q.toLowerCase();
    var idx = [];
    for (var i = 0; i < items.length; i++) {
      var it = items[i];
      if (state.filter && it[2] !== state.filter) continue;
      if (q && String(it[0]).toLowerCase().indexOf(q) < 0) continue;
      idx.push(i);
    }
    var key = state.sort.split("-")[0], dir = state.sort.endsWith("asc") ? 1 : -1;
    if (key === "wall") idx.sort(function (a, b) { return dir * (items[a][4] - items[b][4]) || a - b; });
    if (key === "tokens") idx.sort(function (a, b) { return dir * (tokens(items[a]) - tokens(items[b])) || a - b; });
    if (state.open >= 0) {
      // Keep the open item drawn even when it sorts past the limit.
      var at = idx.indexOf(state.open);
      if (at >= state.limit) { idx.splice(at, 1); idx.splice(state.limit - 1, 0, state.open); }
    }
    var total = idx.length;
    if (idx.length > state.limit) idx = idx.slice(0, state.limit);
    var frag = document.createDocumentFragment();
    idx.forEach(function (i) {
      var tr = row(i);
      tr.classList.toggle("open", i === state.open);
      frag.appendChild(tr);
      if (i === state.open) frag.appendChild(detail(i));
    });
    tbody.textContent = "";
    tbody.appendChild(frag);
    shownEl.textContent = total === idx.length
      ? total + " of " + items.length + " item runs"
      : "showing " + idx.length + " of " + total + " matching (" + items.length + " item runs)";
    moreEl.hidden = total <= idx.length;
    moreEl.textContent = "show " + Math.min(PAGE, total - idx.length) + " more of " + (total - idx.length);
  }

  function changed() { state.limit = PAGE; writeHash(); render(); }
  filterEl.addEventListener("change", function () { state.filter = filterEl.value; changed(); });
  sortEl.addEventListener("change", function () { state.sort = sortEl.value; changed(); });
  searchEl.addEventListener("input", function () { state.q = searchEl.value; changed(); });
  moreEl.addEventListener("click", function () { state.limit += PAGE; render(); });
  tbody.addEventListener("click", function (e) {
    var tr = e.target.closest("tr.item");
    if (!tr) return;
    var i = parseInt(tr.dataset.i, 10);
    state.open = state.open === i ? -1 : i;
    writeHash();
    render();
  });
  window.addEventListener("hashchange", function () { readHash(); render(); });
  readHash();
  render();
  document.body.dataset.renderMs = String(Math.round(performance.now() - started));
  void tbody.offsetHeight; // lay the table out: the time below is "ready to read"
  document.body.dataset.readyMs = String(Math.round(performance.now()));
  document.body.dataset.ready = "1";
})();
