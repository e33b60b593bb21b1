// The club night standings page: one EventSource, every event is the whole standings document.
"use strict";
const GAMES = {"hearts": "Hearts", "cancellation-hearts": "Cancellation Hearts", "spades-2p": "Two-player Spades",
               "partnership-spades": "Partnership Spades", "german-whist": "German Whist"};
const METHODS = {"average": "against the field's average", "matchpoints": "matchpoints"};

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
function scoreCell(v) {
  return el("td", signed(v), "num " + (v > 0 ? "pos" : v < 0 ? "neg" : ""));
}

function render(doc) {
  if (!doc || !doc.night) return;
  document.getElementById("title").textContent = "Club night " + doc.night;
  document.getElementById("subtitle").textContent =
    (GAMES[doc.game] || doc.game) + " · duplicate, " + (METHODS[doc.method] || doc.method) +
    " · " + doc.rounds + " rounds of " + doc.boards + " boards · " + doc.hands_received + " hands in";
  const tables = document.getElementById("tables");
  tables.replaceChildren();
  for (const t of doc.tables) {
    const p = doc.progress[t] || {};
    const li = el("li");
    li.dataset.table = t;
    li.append(el("b", t));
    let words = "waiting";
    if (p.round !== null && p.round !== undefined) {
      words = "Round " + (p.round + 1) + " · " + (p.over ? "done" : "hand " + p.hands + " of " + doc.boards);
      if (p.over) li.classList.add("done");
    }
    li.append(el("span", words));
    tables.append(li);
  }
  const body = document.querySelector("#standings tbody");
  body.replaceChildren();
  let rank = 0, prev = null;
  doc.players.forEach((p, i) => {
    if (p.score !== prev) rank = i + 1;
    prev = p.score;
    const tr = el("tr");
    tr.dataset.table = p.table;
    tr.dataset.seat = p.seat;
    tr.append(el("td", rank), el("td", p.name), el("td", p.table + " seat " + (p.seat + 1)),
              scoreCell(p.score), el("td", p.boards, "num"));
    body.append(tr);
  });
  const boards = document.getElementById("boards");
  boards.replaceChildren();
  for (const b of doc.board_results) {
    const div = el("div", null, "board");
    div.dataset.round = b.round;
    div.dataset.board = b.board;
    div.append(el("h3", "Round " + (b.round + 1) + ", board " + (b.board + 1)));
    const table = el("table");
    const names = Object.keys(b.tables);
    const seats = names.length ? b.tables[names[0]].points.length : 0;
    const head = el("tr");
    head.append(el("th", "Table"));
    for (let s = 0; s < seats; s++) head.append(el("th", "Seat " + (s + 1), "num"));
    table.append(head);
    for (const t of names) {
      const tr = el("tr");
      tr.dataset.table = t;
      tr.append(el("td", t));
      b.tables[t].points.forEach((pts, s) => {
        const td = scoreCell(b.tables[t].scores[s]);
        td.textContent = pts + " (" + signed(b.tables[t].scores[s]) + ")";
        tr.append(td);
      });
      table.append(tr);
    }
    div.append(table);
    boards.append(div);
  }
  document.body.dataset.seq = doc.seq;
}

function connect() {
  const live = document.getElementById("live");
  const es = new EventSource("events");
  es.onopen = () => { live.textContent = "live"; live.className = "on"; };
  es.onerror = () => { live.textContent = "reconnecting…"; live.className = "off"; };
  es.onmessage = (ev) => {
    try { render(JSON.parse(ev.data)); } catch (e) { console.error(e); }
  };
}
connect();
