// mjcam table app: plain JavaScript, no build step.
"use strict";

const $ = (sel) => document.querySelector(sel);
const SEATS = ["E", "S", "W", "N"];
const WIND = { E: "East", S: "South", W: "West", N: "North" };
// esc, face (a tile's bundled picture), tileButtons and the tile editor: editor.js

// Chinese text (pattern names) is shown only where the phone has a font for it: a missing glyph
// draws the same box for every character, so two different characters that come out alike have none
function hasChineseFont() {
  try {
    const c = document.createElement("canvas");
    c.width = 40; c.height = 20;
    const x = c.getContext("2d");
    const draw = (ch) => { x.clearRect(0, 0, 40, 20); x.font = "16px sans-serif"; x.fillText(ch, 2, 16);
      return x.getImageData(0, 0, 40, 20).data.join(","); };
    return draw("\u4e2d") !== draw("\u767c");
  } catch (e) { return false; }
}
if (!hasChineseFont()) document.documentElement.classList.add("no-cjk");

let meta = null;
let game = null;
let reading = null;     // the current photo's recognition, edited in place
let photoId = null;
let crops = [];         // the current photo's tile crops (URLs), by tile position
let trust = null;       // whether the reading may be trusted as read, and why not
let previewed = null;   // the hand text that was last scored legal
let requestId = null;   // one per hand being recorded: a retry reuses it
let proposal = null;    // the hand text as the photo was read: the reading's warnings are of that hand

function newRequestId() {
  return (crypto.randomUUID ? crypto.randomUUID() : Date.now() + "-" + Math.random().toString(16).slice(2));
}

function show(text, ok) {
  const m = $("#message");
  m.textContent = text;
  m.className = ok ? "ok" : "bad";
  m.hidden = !text;
  if (text) m.scrollIntoView({ block: "nearest" });
}

// the PIN as typed on any keyboard (full-width digits are digits), or null; asked again until it is
// made of plain characters, which are all a request header can carry
const PIN_CHARS = /^[\x21-\x7e]{1,64}$/;
function askPin() {
  let text = "This game needs its PIN (shown where mjcam serve runs):";
  for (;;) {
    const p = prompt(text);
    if (p === null) return null;
    const pin = p.normalize("NFKC").trim();
    if (PIN_CHARS.test(pin)) return pin;
    text = "The PIN is the digits shown where mjcam serve runs. Type it again:";
  }
}

async function api(method, path, body, raw, retried) {
  const headers = {};
  const pin = sessionStorage.getItem("mjcam-pin");
  if (pin && PIN_CHARS.test(pin)) headers["X-Mjcam-Pin"] = pin;
  if (meta && meta.token) headers["X-Mjcam-Token"] = meta.token;  // every write carries the page's token
  const init = { method, headers };
  if (raw) { init.body = raw; headers["Content-Type"] = raw.type || "application/octet-stream"; }
  else if (body !== undefined) { init.body = JSON.stringify(body); headers["Content-Type"] = "application/json"; }
  let r;
  try { r = await fetch(path, init); }
  catch (e) { throw new Error("cannot reach the mjcam server: " + e.message); }
  if (r.status === 401) {
    const p = askPin();
    if (p) { sessionStorage.setItem("mjcam-pin", p); return api(method, path, body, raw); }
  }
  const data = r.headers.get("content-type")?.includes("json") ? await r.json() : await r.text();
  if (r.status === 403 && data && data.code === "token" && !retried) {  // the server was restarted: a new token
    meta.token = (await api("GET", "/api/meta")).token;
    return api(method, path, body, raw, true);
  }
  if (!r.ok) throw new Error((data && data.error) || ("HTTP " + r.status));
  return data;
}

// ------------------------------------------------------------------ start

async function init() {
  // the QR code mjcam serve prints carries the game PIN after '#': kept for this tab, then out of sight
  const pinInLink = /^#pin=(.+)$/.exec(location.hash);
  if (pinInLink) {
    sessionStorage.setItem("mjcam-pin", decodeURIComponent(pinInLink[1]));
    history.replaceState(null, "", location.pathname);
  }
  meta = await api("GET", "/api/meta");
  for (const p of meta.presets) $("#preset").add(new Option(`${p.name} (${p.id})`, p.id));
  for (const t of meta.tables) $("#table").add(new Option(t, t));
  for (const p of meta.payments) $("#payment").add(new Option(p, p));
  $("#flags").innerHTML = meta.flags.map((f) =>
    `<label class="check"><input type="checkbox" value="${f}"> ${f.replace(/_/g, " ")}</label>`).join("");
  buildKeypad();
  const id = localStorage.getItem("mjcam-game");
  if (id) {
    try { return await openGame(+id); } catch (e) { localStorage.removeItem("mjcam-game"); }
  }
  await showStart();
}

async function showStart() {
  show("");  // a message of the game screen does not follow to this one
  $("#game").hidden = true;
  $("#start").hidden = false;
  $("#where").textContent = "";
  const games = await api("GET", "/api/games");
  $("#old-games").innerHTML = games.length ? "<h2>Games</h2><ul>" + games.map((g) =>
    `<li><a href="#" data-game="${g.id}">Game ${g.id}: ${esc(g.players.join(", "))}</a> (${g.preset})</li>`).join("") + "</ul>" : "";
}

$("#old-games").addEventListener("click", (e) => {
  const id = e.target.dataset.game;
  if (id) { e.preventDefault(); openGame(+id).catch((err) => show(err.message)); }
});

$("#new-game").addEventListener("submit", async (e) => {
  e.preventDefault();
  const f = e.target.elements;
  const house = {};
  if (f.min_fan.value !== "") house.min_fan = +f.min_fan.value;
  if (f.cap.value !== "") house.cap = +f.cap.value;
  if (f.table.value) house.table = f.table.value;
  if (f.payment.value) house.payment = f.payment.value;
  try {
    const g = await api("POST", "/api/games", {
      players: [f.p0.value, f.p1.value, f.p2.value, f.p3.value], round: f.round.value, preset: f.preset.value,
      house, dealer_keeps_on_draw: f.keep_on_draw.checked, flowers_in_play: f.flowers.checked,
    });
    show("");
    await openGame(g.id, g);
  } catch (err) { show(err.message); }
});

$("#leave").addEventListener("click", (e) => { e.preventDefault(); localStorage.removeItem("mjcam-game"); showStart(); });

// ------------------------------------------------------------------ the game

async function openGame(id, g) {
  game = g || await api("GET", `/api/games/${id}`);
  localStorage.setItem("mjcam-game", String(game.id));
  $("#start").hidden = true;
  $("#game").hidden = false;
  $("#export").href = `/api/games/${game.id}/export.csv`;
  renderGame();
  resetHand();
  const owner = localStorage.getItem(`mjcam-phone-${game.id}`);
  $("#phone").value = owner !== null && +owner >= 0 && +owner < 4 ? owner : "";
}

function renderGame() {
  const dealer = game.players[game.dealer];
  $("#where").textContent = `game ${game.id}`;
  $("#deal").textContent = game.over ? "The game is over (the North round has been played)." :
    `${WIND[game.round]} round · dealer ${dealer} · ${game.hands_recorded} hand${game.hands_recorded === 1 ? "" : "s"} ` +
    `recorded · ${game.preset}`;
  $("#totals tbody").innerHTML = game.players.map((p, i) =>
    `<tr${i === game.dealer ? ' class="dealer"' : ""}><td>${esc(p)}</td><td>${WIND[game.seats[i]]}</td>` +
    `<td class="num" data-player="${i}">${game.totals[i]}</td></tr>`).join("");
  const w = $("#winner"), d = $("#discarder"), ph = $("#phone");
  const wv = w.value, dv = d.value, pv = ph.value;  // kept while a hand is being entered (after an undo, say)
  w.innerHTML = '<option value="">— who won? —</option>' +
    game.players.map((p, i) => `<option value="${i}">${esc(p)} (${WIND[game.seats[i]]})</option>`).join("");
  d.innerHTML = '<option value="">— how? —</option><option value="self">self-drawn</option>' +
    game.players.map((p, i) => `<option value="${i}">${esc(p)}'s discard</option>`).join("");
  ph.innerHTML = '<option value="">passed around</option>' +
    game.players.map((p, i) => `<option value="${i}">${esc(p)}'s phone</option>`).join("");
  w.value = wv; d.value = dv; ph.value = pv;
  $("#history").innerHTML = game.history.slice().reverse().map((h) => {
    const thumb = h.photo_id ? `<img src="/api/photos/${h.photo_id}/thumb.jpg" alt="">` : "";
    const who = h.kind === "draw" ? "drawn hand" :
      `${esc(game.players[h.winner])} ${h.discarder === null ? "self-drawn" : "on " + esc(game.players[h.discarder]) + "'s discard"}` +
      ` · ${h.fan} fan, ${h.points} pts`;
    const deltas = h.deltas.map((v, i) => `${esc(game.players[i])} ${v > 0 ? "+" : ""}${v}`).join(", ");
    return `<li value="${h.number}">${thumb}<div><b><span class="hand-no">${h.number}.</span> ${who}</b><br><code>${esc(h.hand || "")}</code><br>` +
      `<small>${deltas} · ${WIND[h.round]} round, dealer ${esc(game.players[h.dealer])}</small></div></li>`;
  }).join("");
}

function resetHand() {
  // every hand starts clean: no winner and no way of winning carried over from the last one
  reading = null; photoId = null; previewed = null; crops = []; trust = null; requestId = newRequestId();
  proposal = null; checked = null;
  $("#winner").value = "";
  $("#discarder").value = "";
  $("#proposed").textContent = "";
  $("#reading").hidden = true;
  $("#breakdown").hidden = true;
  $("#hand").value = "";
  $("#edit-note").textContent = "";
  fitHand();
  $("#photo").value = "";
  canRecord(false);
  document.querySelectorAll("#flags input").forEach((c) => { c.checked = false; });
}

// ------------------------------------------------------------------ photo and corrections

$("#photo").addEventListener("change", async () => {
  const file = $("#photo").files[0];
  if (!file) return;
  if (file.size > meta.max_upload) { show(`the photo is over ${meta.max_upload / 1048576} MB`); return; }
  if (!file.size) { show("The photo is empty: take it again, or choose another picture."); return; }
  show("Reading the photo…", true);
  try {
    const r = await api("POST", `/api/games/${game.id}/photos`, undefined, file);
    reading = r.recognition;
    photoId = r.photo_id;
    crops = r.crops || [];
    trust = r.trust || null;
    // the tiles a person should look at: read unsurely, or read two ways that would be paid differently
    const doubtful = new Set(reading.needs_confirmation);
    for (const d of (trust && trust.doubts) || []) {
      for (const t of d.tiles || [d.tile]) if (t !== null && t !== undefined) doubtful.add(t);
    }
    reading.needs_confirmation = [...doubtful].sort((a, b) => a - b);
    $("#annotated").src = r.annotated;
    $("#reading").hidden = false;
    proposal = null;
    renderTiles();
    composeHand();
    proposal = $("#hand").value.trim();
    proposeWinner(reading.tops, reading.tops_sure);
    renderNotes(null);
    const n = reading.needs_confirmation.length;
    const sure = trust && trust.auto ? "; no likely misreading changes the score" : "";
    show(reading.tiles.length ? `${reading.tiles.length} tiles read` + (n ? `; check the ${n} marked ?` : sure) :
      "No tiles found: type or tap the hand in", true);
  } catch (e) { show(e.message); }
});

// what the recogniser noticed (a guessed winning tile, a colour cast, a tile short of a hand ...) and, first,
// what a likely misreading would change. Once the hand is edited, what was said of the hand as read goes
// (what is wrong with it as a whole, how many tiles it has, the doubts of tiles since corrected) and
// `problem`, what is wrong with the hand as it now stands, is said instead
const COUNT_NOTE = /tiles in the hand where a win has/;
function renderNotes(problem) {
  if (!reading) return;
  const edited = proposal !== null && $("#hand").value.trim() !== proposal;
  const open = new Set(reading.needs_confirmation);
  const doubts = ((trust && trust.doubts) || []).filter((d) => !edited ||
    (d.kind !== "hand" && (d.tiles || [d.tile]).some((t) => open.has(t))));
  const notes = (reading.notes || []).filter((x) => !edited || !COUNT_NOTE.test(x));
  $("#notes").innerHTML = (problem ? `<li class="doubt">${esc(problem)}</li>` : "") +
    doubts.map((d) => `<li class="doubt">${esc(doubtWords(d))}</li>`).join("") +
    notes.map((x) => `<li>${esc(x)}</li>`).join("");
}

// the edited hand checked as it stands (scored for whoever is chosen, or the first player): whether it
// can be scored and makes a winning hand at all; the answer to the latest edit only is shown
let checked = null, checkTimer = null, checkSeq = 0;
function recheck() {
  if (!reading || proposal === null) return;
  const text = $("#hand").value.trim();
  if (text === checked) return;
  checked = text;
  clearTimeout(checkTimer);
  const seq = ++checkSeq;
  renderNotes(null);  // the warnings of the hand as read go at once
  if (!text || text === proposal) return;
  checkTimer = setTimeout(async () => {
    const s = situation();
    const winner = s.winner === null ? 0 : s.winner;
    let problem = null;
    try {
      const r = await api("POST", `/api/games/${game.id}/preview`,
        { hand: text, winner, discarder: s.discarder === winner ? null : s.discarder, flags: {} });
      if (!r.score.arrangement) problem = sentence("The hand is " + (r.score.reason || "not a winning hand"));
    } catch (e) { problem = sentence("The hand cannot be scored: " + e.message); }
    if (seq === checkSeq) renderNotes(problem);
  }, 300);
}
function sentence(t) { return /[.!?]$/.test(t) ? t : t + "."; }

// a doubt as the page says it: a tile to check, or (kind "hand") what is wrong with the hand as a whole
function doubtWords(d) {
  if (d.kind === "hand") return d.message.charAt(0).toUpperCase() + d.message.slice(1) + ".";
  return "Check " + d.message;
}

function proposeWinner(tops, sure) {
  // the phone's owner photographed the hand: whose it is follows from which way the tiles face, where
  // the recogniser is sure of it (tops_sure); otherwise nobody is proposed
  const owner = $("#phone").value;
  const turn = { up: 0, left: 1, down: 2, right: 3 }[tops];
  if (owner === "") { $("#proposed").textContent = ""; return; }
  if (!sure || turn === undefined) {
    $("#proposed").textContent = "No winner proposed: the photo does not show clearly which seat the tiles face; choose the winner.";
    return;
  }
  const i = (+owner + turn) % 4;
  $("#winner").value = String(i);
  $("#proposed").textContent = `Winner proposed: ${game.players[i]} (the tiles face ` +
    (turn ? `${game.players[i]}'s seat` : "this phone's owner") + "); change it if that is wrong.";
  handChanged();
}

$("#phone").addEventListener("change", () => {
  const v = $("#phone").value;
  if (v === "") localStorage.removeItem(`mjcam-phone-${game.id}`); else localStorage.setItem(`mjcam-phone-${game.id}`, v);
});

function renderTiles() {
  const flagged = new Set(reading.needs_confirmation);
  $("#tiles").innerHTML = reading.groups.map((g, gi) => {
    const tiles = g.tiles.map((p) => {
      const t = reading.tiles[p];
      const won = p === reading.winning;
      const crop = crops[p] ? `<img class="crop" src="${crops[p]}" alt="tile ${p + 1} in the photo">` : "";
      const sure = t.added ? "added by hand" : `${Math.round(t.confidence * 100)}%`;
      return `<button class="tile read${flagged.has(p) ? " flagged" : ""}${won ? " winning" : ""}" data-pos="${p}" ` +
        `title="${esc(t.code)} ${sure}${won ? ", the winning tile" : ""}">` +
        crop + face(t.code) + `<span class="code">${won ? "+" : ""}${esc(t.code)}${flagged.has(p) ? "?" : ""}</span></button>`;
    }).join("");
    const label = g.kind === "bonus" ? `<span class="set-label">bonus</span>` :
      `<button class="set-label" data-group="${gi}">${setLabel(g)}</button>`;  // (strays: tap to put them in)
    const add = `<button class="add" data-add="${gi}" title="add a tile to this set" aria-label="add a tile here">+</button>`;
    return `<div class="set">${label}<div>${tiles}${add}</div></div>`;
  }).join("");
}

// editing the reading: every change is made on `reading` and the hand text written again from it
const tileEditor = tilePicker(() => reading, setLabel, () => { renderTiles(); composeHand(); });
const setEditor = setMenu(() => reading, () => { renderTiles(); composeHand(); });

$("#tiles").addEventListener("click", (e) => {
  const tile = e.target.closest("button.tile");
  const set = e.target.closest("button.set-label");
  const add = e.target.closest("button.add");
  if (tile) tileEditor.tile(+tile.dataset.pos);
  if (add) tileEditor.add(+add.dataset.add);
  if (set) setEditor(+set.dataset.group);
});

function composeHand() {
  const { text, taken } = handText(reading);
  let note = "";
  if (taken) {  // the person is told how to choose another winning tile
    note = `The winning tile is taken to be ${reading.tiles[reading.winning].code}, the last concealed tile: tap a tile and ` +
      "“Winning tile” to choose another.";
    renderTiles();
  } else if (reading.winning === null || reading.winning === undefined) note = NO_WINNING;
  $("#hand").value = text;
  $("#edit-note").textContent = note;
  fitHand();
  handChanged();
}

// the hand field grows with the hand: a long hand shows whole
function fitHand() {
  const h = $("#hand");
  h.style.height = "auto";
  h.style.height = h.scrollHeight + 2 + "px";
}

// ------------------------------------------------------------------ typing or tapping the hand

function buildKeypad() {
  const order = [];
  for (const s of ["m", "p", "s"]) for (let n = 1; n <= 9; n++) order.push(n + s);
  order.push("E", "S", "W", "N", "Rd", "Gd", "Wd", "F1", "F2", "F3", "F4", "S1", "S2", "S3", "S4");
  $("#keypad").innerHTML = tileButtons(order) +
    ['[', ']', '{', '}', '+', '⌫', 'clear'].map((k) => `<button type="button" class="key" data-key="${k}">${k}</button>`).join("");
  $("#picker-tiles").innerHTML = tileButtons(order.slice(0, 34)) + tileButtons(order.slice(34));
}

$("#keypad").addEventListener("click", (e) => {
  const b = e.target.closest("button");
  if (!b) return;
  const h = $("#hand");
  if (b.dataset.code) h.value += (h.value && !/[\[{+]$/.test(h.value) ? " " : "") + b.dataset.code;
  else if (b.dataset.key === "⌫") h.value = h.value.replace(/(Rd|Gd|Wd|[1-9][mps]|[FS][1-4]|[ESWN]|[\[\]{}+])\s*$/, "").trimEnd();
  else if (b.dataset.key === "clear") h.value = "";
  else h.value += (b.dataset.key === "[" || b.dataset.key === "{" ? (h.value ? " " : "") : "") + b.dataset.key;
  fitHand(); handChanged();
});

function handChanged() { previewed = null; canRecord(false); recheck(); }

// Record hand is open only for a hand just scored as a paying win; while it is not, the line beside it
// says why
function canRecord(yes, why) {
  $("#record").disabled = !yes;
  $("#record-why").textContent = yes ? "" : why ||
    ($("#hand").value.trim() ? "To record the hand, score it first." : "To record a hand, photograph or type it, then score it.");
}
$("#hand").addEventListener("input", () => { fitHand(); handChanged(); });
$("#winner").addEventListener("change", handChanged);
$("#discarder").addEventListener("change", handChanged);
$("#flags").addEventListener("change", handChanged);

function situation() {
  const flags = {};
  document.querySelectorAll("#flags input:checked").forEach((c) => { flags[c.value] = true; });
  const w = $("#winner").value, d = $("#discarder").value;
  return { hand: $("#hand").value.trim(), winner: w === "" ? null : +w, discarder: d === "self" || d === "" ? null : +d,
           how: d, flags };
}

// ------------------------------------------------------------------ scoring and recording

$("#score").addEventListener("click", async () => {
  const s = situation();
  if (!s.hand) { show("type the hand, or photograph it"); return; }
  if (s.winner === null) { show("choose who won"); return; }
  if (s.how === "") { show("choose how the hand was won: self-drawn or on whose discard"); return; }
  if (s.discarder === s.winner) { show("the winner cannot win on their own discard"); return; }
  try {
    const r = await api("POST", `/api/games/${game.id}/preview`,
      { hand: s.hand, winner: s.winner, discarder: s.discarder, flags: s.flags });
    renderBreakdown(r);
    previewed = r.legal ? s.hand : null;
    canRecord(r.legal, `Not recorded: not a paying win (${r.score.reason || "not a legal win"}).`);
    show(r.legal ? "" : (r.score.reason || "not a legal win"), r.legal);
  } catch (e) { show(e.message); canRecord(false, "Not recorded: the hand cannot be scored as it stands."); }
});

function renderBreakdown(r) {
  const sc = r.score;
  const rows = sc.patterns.map((p) => `<tr><td>${esc(p.name)}</td><td lang="zh" class="zh">${esc(p.zh)}</td><td class="num">${p.fan === "limit" ? "limit" : p.fan}</td></tr>`).join("");
  // the hand as it was scored, set by set, in tile pictures
  const sets = (sc.arrangement || []).map((g) => `<span class="set-pics${g.melded ? " melded" : ""}" title="${esc(g.kind)}">` +
    g.tiles.map((c) => face(c, "face small")).join("") + "</span>").join("");
  const pays = r.deltas.map((v, i) => `<tr><td>${esc(game.players[i])}</td><td>${WIND[r.seats[i]]}</td><td class="num ${v < 0 ? "neg" : "pos"}">${v > 0 ? "+" : ""}${v}</td></tr>`).join("");
  $("#breakdown").innerHTML = (sets ? `<div class="scored-hand">${sets}</div>` : "") +
    `<table class="patterns"><thead><tr><th>Pattern</th><th class="zh" lang="zh">中文</th><th>Fan</th></tr></thead><tbody>${rows}</tbody>` +
    `<tfoot><tr><td>${sc.limit ? "Limit hand" : "Total"}</td><td class="zh"></td><td class="num" id="fan-total">${sc.fan}</td></tr></tfoot></table>` +
    `<p><b id="points">${sc.points} points</b>${sc.legal ? "" : " — " + esc(sc.reason || "")}</p>` +
    `<table class="payments"><thead><tr><th>Player</th><th>Seat</th><th>Pays / gets</th></tr></thead><tbody>${pays}</tbody></table>`;
  $("#breakdown").hidden = false;
}

$("#record").addEventListener("click", async () => {
  const s = situation();
  if (s.hand !== previewed) { show("score the hand first"); return; }
  $("#record").disabled = true;
  try {
    game = await api("POST", `/api/games/${game.id}/hands`, {
      hand: s.hand, winner: s.winner, discarder: s.discarder, flags: s.flags,
      kind: "win", photo_id: photoId, request_id: requestId, expected_hands: game.hands_recorded,
    });
    show("Hand recorded", true);
    renderGame(); resetHand();
  } catch (e) { show(e.message); canRecord(true); }
});

$("#draw").addEventListener("click", async () => {
  if (!confirm("Record a drawn hand (nobody won)?")) return;
  try {
    game = await api("POST", `/api/games/${game.id}/hands`, {
      kind: "draw", request_id: requestId, expected_hands: game.hands_recorded,
    });
    show("Drawn hand recorded", true);
    renderGame(); resetHand();
  } catch (e) { show(e.message); }
});

$("#undo").addEventListener("click", async () => {
  if (!game.hands_recorded) { show("no hand to undo"); return; }
  if (!confirm("Undo the last recorded hand?")) return;
  try {
    game = await api("POST", `/api/games/${game.id}/undo`, { request_id: newRequestId(), expected_hands: game.hands_recorded });
    show("Last hand undone", true);
    renderGame();
  } catch (e) { show(e.message); }
});

init().catch((e) => show(e.message));
