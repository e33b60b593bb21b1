// The director's console: the hub's state (console/state.json), refreshed when the hub says
// something changed (console/events) and every few seconds; the director's actions are POSTs
// to console/api/<what> with the console's header (a page of another site cannot send it).
"use strict";

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}
function signed(v) {
  const s = Number.isInteger(v) ? String(v) : v.toFixed(2);
  return v > 0 ? "+" + s : s;
}
function ago(t) {
  if (!t) return "–";
  const s = Math.max(0, Math.round(Date.now() / 1000 - t));
  return s < 60 ? s + " s ago" : Math.round(s / 60) + " min ago";
}
function say(words, good) {
  const m = document.getElementById("message");
  m.textContent = words;
  m.className = "message " + (good ? "good" : "bad");
}

async function act(what, body) {
  try {
    const r = await fetch("/console/api/" + what, {
      method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json", "X-Trickref-Console": "1"},
      body: JSON.stringify(body)});
    const answer = await r.json();
    await refresh();  // the view shows what the answer speaks of before the answer is shown
    if (answer.ok) say(answer.words, true); else say(answer.error, false);
    return answer.ok;
  } catch (e) {
    say("the hub did not answer: " + e, false);
    return false;
  }
}

function renderRounds(doc) {
  const ol = document.getElementById("rounds");
  ol.replaceChildren();
  const next = doc.rounds.find((r) => r.state === "pending");
  for (const r of doc.rounds) {
    const li = el("li");
    li.dataset.round = r.round;
    li.dataset.state = r.state;
    let words = "Round " + (r.round + 1) + ": " + r.state;
    if (r.state === "open") {
      words += r.waiting.length ? " · still playing: " + r.waiting.join(", ") : " · every table is done";
    }
    if (r.forced) words += " · ended early: " + r.forced;
    li.append(el("span", words + " "));
    if (r.state === "pending" && next && next.round === r.round && !doc.ended) {
      const b = el("button", "Start round " + (r.round + 1));
      b.type = "button";
      b.id = "start-" + (r.round + 1);
      b.disabled = doc.rounds.some((x) => x.state === "open");
      b.onclick = () => act("round", {action: "start", round: r.round});
      li.append(b);
    }
    if (r.state === "open") {
      if (r.waiting.length) {
        const reason = el("input");
        reason.id = "reason-" + (r.round + 1);
        reason.placeholder = "why end it before every table is done";
        li.append(reason, el("span", " "));
      }
      const b = el("button", "End round " + (r.round + 1));
      b.type = "button";
      b.id = "end-" + (r.round + 1);
      b.onclick = () => {
        const reason = document.getElementById("reason-" + (r.round + 1));
        act("round", {action: "end", round: r.round, reason: reason ? reason.value : ""});
      };
      li.append(b);
    }
    ol.append(li);
  }
  const end = document.getElementById("end-night");
  end.disabled = doc.ended || doc.rounds.some((x) => x.state === "open") || !doc.rounds.some((x) => x.state === "ended");
  end.textContent = doc.ended ? "The night has ended" : "End the night";
}

function renderTables(doc) {
  const body = document.querySelector("#tables tbody");
  body.replaceChildren();
  for (const t of doc.tables) {
    const tr = el("tr");
    tr.dataset.table = t.table;
    tr.append(el("td", t.table), el("td", t.round === null ? "–" : t.round + 1), el("td", t.hands, "num"),
              el("td", t.doing), el("td", ago(t.last)));
    body.append(tr);
  }
}

function seatingBlock(title, tables, out) {
  const div = el("div", null, "seat-round");
  div.append(el("h3", title));
  const table = el("table");
  for (const [t, seats] of Object.entries(tables)) {
    const tr = el("tr");
    tr.dataset.table = t;
    tr.append(el("td", t));
    for (const s of seats) {
      const td = el("td");
      const b = el("bdi", s.name);
      td.append(b);
      tr.append(td);
    }
    table.append(tr);
  }
  div.append(table);
  if (out && out.length) div.append(el("p", "Sitting out: " + out.map((x) => x.name).join(", ")));
  return div;
}

function renderRoster(doc) {
  const form = document.getElementById("roster-form");
  const started = doc.rounds.some((r) => r.state !== "pending");
  for (const e of form.elements) e.disabled = started;
  const ta = document.getElementById("roster");
  if (doc.roster.length && document.activeElement !== ta && !ta.value) ta.value = doc.roster.join("\n");
  const warn = document.getElementById("warnings");
  warn.replaceChildren();
  const seating = document.getElementById("seating");
  seating.replaceChildren();
  if (!doc.movement) return;
  document.getElementById("style").value = doc.movement.style;
  for (const w of doc.movement.warnings) warn.append(el("li", w));
  for (const r of doc.movement.rounds) {
    const b = seatingBlock("Round " + (r.round + 1), r.tables, r.sitting_out);
    b.dataset.round = r.round;
    seating.append(b);
  }
}

function renderCorrections(doc) {
  const ul = document.getElementById("corrections");
  ul.replaceChildren();
  for (const c of doc.corrections) {
    const li = el("li", c.words + " ", c.withdrawn ? "withdrawn" : "");
    li.dataset.id = c.id;
    if (!c.withdrawn) {
      const b = el("button", "Withdraw");
      b.type = "button";
      b.onclick = () => act("withdraw", {id: c.id});
      li.append(b);
    }
    ul.append(li);
  }
}

function renderStandings(doc) {
  const body = document.querySelector("#standings tbody");
  body.replaceChildren();
  let rank = 0, prev = null;
  (doc.standings.players || []).forEach((p, i) => {
    if (p.score !== prev) rank = i + 1;
    prev = p.score;
    const tr = el("tr");
    tr.dataset.id = p.id;
    const name = el("td");
    name.append(el("bdi", p.name));
    tr.append(el("td", rank), name, el("td", p.table + " seat " + (p.seat + 1)), el("td", signed(p.score), "num"),
              el("td", p.boards, "num"));
    body.append(tr);
  });
}

function renderLog(doc) {
  document.getElementById("refused-total").textContent =
    doc.refused_total + " refused, " + doc.duplicates + " duplicates (counted, harmless)";
  const list = (id, items, text) => {
    const ul = document.getElementById(id);
    ul.replaceChildren();
    for (const x of items) ul.append(el("li", text(x)));
  };
  list("refused", doc.refusals.slice().reverse(), (x) => x.table + ": " + x.reason + (x.count > 1 ? " (×" + x.count + ")" : ""));
  list("problems", doc.problems.concat(doc.quarantined.map((q) => "line " + q.line + " quarantined: " + q.reason)), (x) => x);
  list("log", doc.log.slice().reverse(), (x) => new Date(x.at * 1000).toLocaleTimeString() + " " + x.words);
}

function render(doc) {
  document.getElementById("title").textContent = "Director's console: club night " + doc.night +
    (doc.rehearsal ? " (rehearsal)" : "");
  document.getElementById("subtitle").textContent = doc.game + " · " + doc.players + " a table · " +
    doc.tables_all.length + " tables · " + doc.rounds.length + " rounds of " + doc.boards + " boards · " +
    (doc.ended ? "the night has ended" : "");
  const broker = document.getElementById("broker");
  broker.textContent = doc.broker ? "broker: connected" : "broker: DOWN (the tables keep their results)";
  broker.className = doc.broker ? "on" : "off";
  renderRounds(doc);
  renderTables(doc);
  renderRoster(doc);
  renderCorrections(doc);
  renderStandings(doc);
  renderLog(doc);
  document.body.dataset.seq = doc.standings.seq;
}

// One fetch of the state at a time; a refresh asked for while one is under way gets a fresh one
// right after it (never the answer of a fetch that started before the change it follows).
let current = null;
let queued = null;
async function load() {
  try {
    const r = await fetch("/console/state.json", {credentials: "same-origin"});
    render(await r.json());
  } catch (e) {
    const broker = document.getElementById("broker");
    broker.textContent = "the hub is not answering";
    broker.className = "off";
  }
}
function refresh() {
  if (!current) {
    current = load().finally(() => { current = null; });
    return current;
  }
  if (!queued) queued = current.then(() => { queued = null; return refresh(); });
  return queued;
}

function list(text) {
  return text.split(",").map((x) => x.trim()).filter((x) => x.length);
}

document.getElementById("roster-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  act("roster", {names: document.getElementById("roster").value.split("\n"),
                 style: document.getElementById("style").value});
});
document.getElementById("correct-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const kind = document.getElementById("c-kind").value;
  const body = {kind: kind, round: Number(document.getElementById("c-round").value) - 1,
                board: Number(document.getElementById("c-board").value) - 1,
                table: document.getElementById("c-table").value.trim(),
                reason: document.getElementById("c-reason").value};
  if (kind === "points") body.points = list(document.getElementById("c-points").value).map(Number);
  if (kind === "adjusted") {
    body.scores = list(document.getElementById("c-scores").value).map((x) => x === "avg" ? x : Number(x));
  }
  act("correct", body);
});
document.getElementById("end-night").addEventListener("click", () => act("end-night", {}));

const events = new EventSource("/console/events");
events.addEventListener("changed", () => refresh());
refresh();
setInterval(refresh, 3000);
