// The club night standings page: one EventSource, every event is the whole standings document.
"use strict";
// the games the hub knows (its catalog, games.json): id -> {title, lower_total_wins, teams}
let GAMES = {};
const METHODS = {"average": "against the field's average", "matchpoints": "matchpoints"};

// The page's words in the players' languages (the JSON block in index.html): ?lang=fr|ht|tr,
// else the browser's language; English when neither is one of them.
const ALL_WORDS = JSON.parse(document.getElementById("words").textContent);
const LANG = (() => {
  const asked = new URLSearchParams(location.search).get("lang");
  for (const l of [asked, ...(navigator.languages || [navigator.language])]) {
    const code = String(l || "").slice(0, 2).toLowerCase();
    if (code === "en") return "en";
    if (ALL_WORDS[code]) return code;
  }
  return "en";
})();
const WORDS = ALL_WORDS[LANG] || {};
// ``text`` (English, with {fields}) in the page's language, the fields filled in
function say(text, fields) {
  let out = WORDS[text] || text;
  for (const [k, v] of Object.entries(fields || {})) out = out.split("{" + k + "}").join(String(v));
  return out;
}
document.documentElement.lang = LANG;
for (const e of document.querySelectorAll("[data-i18n]")) e.textContent = say(e.dataset.i18n);

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

// a name as the players typed it, isolated so that right-to-left text never reorders the row
function nameCell(name) {
  const td = el("td");
  const b = el("bdi", name);
  b.dir = "auto";
  td.append(b);
  return td;
}
function clock(t) {
  return new Date(t * 1000).toLocaleTimeString(LANG, {hour: "2-digit", minute: "2-digit", second: "2-digit"});
}

// what the page knows of the hub and its broker: the last news (any event, pings included)
// and the broker's state in it. Shown in #live and, when something is down, in #alert.
const news = {at: Date.now(), status: null, open: false};
function showStatus() {
  const live = document.getElementById("live");
  const alert = document.getElementById("alert");
  const quiet = Math.round((Date.now() - news.at) / 1000);
  let words = null;
  if (!news.open) {
    words = say("The hub is not answering: trying again…");
  } else if (quiet > 15) {
    words = say("No news from the hub for {n} s.", {n: quiet});
  } else if (news.status && !news.status.broker) {
    words = say("The broker is down (since {time}): the tables keep their results and send them when it is back.",
                {time: clock(news.status.since)});
  }
  alert.hidden = words === null;
  alert.textContent = words || "";
  document.body.dataset.health = !news.open ? "hub-down" : quiet > 15 ? "stale" :
    (news.status && !news.status.broker) ? "broker-down" : "ok";
  if (news.open && words === null) {
    live.textContent = say("live") + (news.status ? " · " + say("updated {time}", {time: clock(news.status.at)}) : "");
    live.className = "on";
  } else {
    live.textContent = news.open ? say("live") : say("reconnecting…");
    live.className = "off";
  }
}
setInterval(showStatus, 1000);

// the shown boards' results come apart (boards.json), when the standings say they changed
let boardsVersion = null;
let boardsWanted = 0;
async function fetchBoards(seq) {
  boardsWanted = seq;
  try {
    const r = await fetch("boards.json");
    const got = await r.json();
    if (seq === boardsWanted) renderBoards(got.board_results || []);
  } catch (e) {
    boardsVersion = null;  // fetched again with the next standings
  }
}

function renderBoards(rows) {
  const boards = document.getElementById("boards");
  boards.replaceChildren();
  for (const b of rows) {
    const div = el("div", null, "board");
    div.dataset.round = b.round;
    div.dataset.board = b.board;
    div.append(el("h3", say("Round {round}, board {board}", {round: b.round + 1, board: b.board + 1})));
    const table = el("table");
    const names = Object.keys(b.tables);
    const seats = names.length ? b.tables[names[0]].scores.length : 0;
    const head = el("tr");
    head.append(el("th", say("Table")));
    for (let s = 0; s < seats; s++) head.append(el("th", say("Seat {seat}", {seat: s + 1}), "num"));
    table.append(head);
    for (const t of names) {
      const tr = el("tr");
      tr.dataset.table = t;
      tr.append(el("td", t));
      b.tables[t].scores.forEach((score, s) => {
        const td = scoreCell(score);
        const pts = b.tables[t].points;
        td.textContent = (pts ? pts[s] : "–") + " (" + signed(score) + ")";
        tr.append(td);
      });
      table.append(tr);
    }
    div.append(table);
    boards.append(div);
  }
  document.body.dataset.boards = rows.length;
}

function render(doc) {
  if (!doc || !doc.night) return;
  if (doc.status) news.status = doc.status;
  document.getElementById("title").textContent = say("Club night {night}", {night: doc.night}) +
    (doc.rehearsal ? " · " + say("Rehearsal") : "");
  document.getElementById("subtitle").textContent =
    say((GAMES[doc.game] || {}).title || doc.game) + " · " + say("duplicate") + ", " + say(METHODS[doc.method] || doc.method) +
    " · " + say("{rounds} rounds of {boards} boards", {rounds: doc.rounds, boards: doc.boards}) + " · " +
    say("{n} hands in", {n: doc.hands_received});
  const tables = document.getElementById("tables");
  tables.replaceChildren();
  for (const t of doc.tables) {
    const p = doc.progress[t] || {};
    const li = el("li");
    li.dataset.table = t;
    li.append(el("b", t));
    let words = say("waiting");
    if (p.round !== null && p.round !== undefined) {
      words = say("Round {round}", {round: p.round + 1}) + " · " +
        (p.over ? say("done") : say("hand {hand} of {boards}", {hand: p.hands, boards: doc.boards}));
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
    tr.append(el("td", rank), nameCell(p.name), el("td", say("{table} seat {seat}", {table: p.table, seat: p.seat + 1})),
              scoreCell(p.score), el("td", p.boards, "num"));
    body.append(tr);
  });
  const seat = doc.seating && doc.seating.tables ? doc.seating : null;
  document.getElementById("s-seating").hidden = !seat;
  const seatBody = document.querySelector("#seating tbody");
  seatBody.replaceChildren();
  if (seat) {
    document.getElementById("seating-title").textContent = say("Round {round}: who sits where", {round: seat.round + 1});
    for (const [t, seats] of Object.entries(seat.tables)) {
      const tr = el("tr");
      tr.dataset.table = t;
      tr.append(el("td", t));
      seats.forEach((s) => tr.append(nameCell(s.name)));
      seatBody.append(tr);
    }
    const out = seat.sitting_out || [];
    document.getElementById("sitting-out").textContent = out.length ?
      say("Sitting out: {names}", {names: out.map((x) => x.name).join(", ")}) : "";
  }
  if (doc.final) {
    document.getElementById("title").textContent += " · " + say("Final results");
  }
  const hidden = document.getElementById("hidden-boards");
  hidden.hidden = !doc.hidden_boards;
  hidden.textContent = doc.hidden_boards ?
    say("{n} boards still being played: their results show once every table has played them.", {n: doc.hidden_boards}) : "";
  if (doc.boards_version !== boardsVersion) {
    boardsVersion = doc.boards_version;
    fetchBoards(doc.seq);
  }
  document.body.dataset.seq = doc.seq;
}

function connect() {
  const es = new EventSource("events");
  es.onopen = () => { news.open = true; news.at = Date.now(); showStatus(); };
  es.onerror = () => { news.open = false; showStatus(); };
  es.onmessage = (ev) => {
    news.at = Date.now();
    try { render(JSON.parse(ev.data)); } catch (e) { console.error(e); }
    showStatus();
  };
  es.addEventListener("ping", (ev) => {
    news.at = Date.now();
    try { news.status = JSON.parse(ev.data); } catch (e) { console.error(e); }
    showStatus();
  });
}
// the catalog first (the subtitle names the game by it), then the standings
fetch("games.json").then(r => r.json()).then(g => { GAMES = g; }, e => console.error(e)).finally(connect);
