// mjcam table app: plain JavaScript, no build step.
"use strict";

const $ = (sel) => document.querySelector(sel);
const SEATS = ["E", "S", "W", "N"];
const WIND = { E: "East", S: "South", W: "West", N: "North" };
const GLYPH = {};  // tile code -> Unicode mahjong tile
(() => {
  const base = 0x1F000;
  ["E", "S", "W", "N", "Rd", "Gd", "Wd"].forEach((c, i) => { GLYPH[c] = String.fromCodePoint(base + i); });
  for (let n = 1; n <= 9; n++) {
    GLYPH[n + "m"] = String.fromCodePoint(base + 6 + n);
    GLYPH[n + "s"] = String.fromCodePoint(base + 15 + n);
    GLYPH[n + "p"] = String.fromCodePoint(base + 24 + n);
  }
  // flowers in Unicode order are plum, orchid, bamboo, chrysanthemum; F3 is chrysanthemum, F4 bamboo
  [0x22, 0x23, 0x25, 0x24].forEach((o, i) => { GLYPH["F" + (i + 1)] = String.fromCodePoint(base + o); });
  for (let n = 1; n <= 4; n++) GLYPH["S" + n] = String.fromCodePoint(base + 37 + n);
  GLYPH.back = String.fromCodePoint(0x1F02B);
})();

let meta = null;
let game = null;
let reading = null;     // the current photo's recognition, edited in place
let photoId = null;
let previewed = null;   // the hand text that was last scored legal
let requestId = null;   // one per hand being recorded: a retry reuses it

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

async function api(method, path, body, raw) {
  const headers = {};
  const pin = sessionStorage.getItem("mjcam-pin");
  if (pin) headers["X-Mjcam-Pin"] = pin;
  const init = { method, headers };
  if (raw) { init.body = raw; headers["Content-Type"] = raw.type || "application/octet-stream"; }
  else if (body !== undefined) { init.body = JSON.stringify(body); headers["Content-Type"] = "application/json"; }
  let r;
  try { r = await fetch(path, init); }
  catch (e) { throw new Error("cannot reach the mjcam server: " + e.message); }
  if (r.status === 401) {
    const p = prompt("This game needs its PIN (shown where mjcam serve runs):");
    if (p) { sessionStorage.setItem("mjcam-pin", p.trim()); return api(method, path, body, raw); }
  }
  const data = r.headers.get("content-type")?.includes("json") ? await r.json() : await r.text();
  if (!r.ok) throw new Error((data && data.error) || ("HTTP " + r.status));
  return data;
}

// ------------------------------------------------------------------ start

async function init() {
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
  resetHand();
  renderGame();
}

function renderGame() {
  const dealer = game.players[game.dealer];
  $("#where").textContent = `game ${game.id}`;
  $("#deal").textContent = game.over ? "The game is over (the North round has been played)." :
    `${WIND[game.round]} round · dealer ${dealer} · ${game.hands_recorded} hand(s) recorded · ${game.preset}`;
  $("#totals tbody").innerHTML = game.players.map((p, i) =>
    `<tr${i === game.dealer ? ' class="dealer"' : ""}><td>${esc(p)}</td><td>${WIND[game.seats[i]]}</td>` +
    `<td class="num" data-player="${i}">${game.totals[i]}</td></tr>`).join("");
  const w = $("#winner"), d = $("#discarder");
  const wv = w.value, dv = d.value;
  w.innerHTML = game.players.map((p, i) => `<option value="${i}">${esc(p)} (${WIND[game.seats[i]]})</option>`).join("");
  d.innerHTML = '<option value="">self-drawn</option>' +
    game.players.map((p, i) => `<option value="${i}">${esc(p)}'s discard</option>`).join("");
  if (wv !== "") w.value = wv;
  d.value = dv;
  $("#history").innerHTML = game.history.slice().reverse().map((h) => {
    const thumb = h.photo_id ? `<img src="/api/photos/${h.photo_id}/thumb.jpg" alt="">` : "";
    const who = h.kind === "draw" ? "drawn hand" :
      `${esc(game.players[h.winner])} ${h.discarder === null ? "self-drawn" : "on " + esc(game.players[h.discarder]) + "'s discard"}` +
      ` · ${h.fan} fan, ${h.points} pts`;
    const deltas = h.deltas.map((v, i) => `${esc(game.players[i])} ${v > 0 ? "+" : ""}${v}`).join(", ");
    return `<li value="${h.number}">${thumb}<div><b>${who}</b><br><code>${esc(h.hand || "")}</code><br>` +
      `<small>${deltas} · ${WIND[h.round]} round, dealer ${esc(game.players[h.dealer])}</small></div></li>`;
  }).join("");
}

function resetHand() {
  reading = null; photoId = null; previewed = null; requestId = newRequestId();
  $("#reading").hidden = true;
  $("#breakdown").hidden = true;
  $("#hand").value = "";
  $("#photo").value = "";
  $("#record").disabled = true;
  document.querySelectorAll("#flags input").forEach((c) => { c.checked = false; });
}

// ------------------------------------------------------------------ photo and corrections

$("#photo").addEventListener("change", async () => {
  const file = $("#photo").files[0];
  if (!file) return;
  if (file.size > meta.max_upload) { show(`the photo is over ${meta.max_upload / 1048576} MB`); return; }
  show("Reading the photo…", true);
  try {
    const r = await api("POST", `/api/games/${game.id}/photos`, undefined, file);
    reading = r.recognition;
    photoId = r.photo_id;
    $("#annotated").src = r.annotated;
    $("#reading").hidden = false;
    renderTiles();
    composeHand();
    // what the recogniser noticed (a guessed winning tile, a colour cast, a tile short of a hand ...)
    $("#notes").innerHTML = (reading.notes || []).map((x) => `<li>${esc(x)}</li>`).join("");
    const n = reading.needs_confirmation.length;
    show(reading.tiles.length ? `${reading.tiles.length} tiles read` + (n ? `; check the ${n} marked ?` : "") :
      "No tiles found: type or tap the hand in", true);
  } catch (e) { show(e.message); }
});

function renderTiles() {
  const flagged = new Set(reading.needs_confirmation);
  $("#tiles").innerHTML = reading.groups.map((g, gi) => {
    const label = g.kind === "bonus" ? "bonus" : g.kind === "concealed_kong" ? "concealed kong" :
      g.kind === "stray" ? "not in the hand" : (g.melded ? "melded" : "concealed");
    const tiles = g.tiles.map((p) => {
      const t = reading.tiles[p];
      return `<button class="tile${flagged.has(p) ? " flagged" : ""}" data-pos="${p}" title="${t.code} ${Math.round(t.confidence * 100)}%">` +
        `<span class="glyph">${GLYPH[t.code] || "?"}</span><span class="code">${t.code}${flagged.has(p) ? "?" : ""}</span></button>`;
    }).join("");
    const toggle = g.kind === "bonus" || g.kind === "concealed_kong" ? `<span class="set-label">${label}</span>` :
      `<button class="set-label" data-group="${gi}">${label}</button>`;
    return `<div class="set">${toggle}<div>${tiles}</div></div>`;
  }).join("");
}

let picking = null;
$("#tiles").addEventListener("click", (e) => {
  const tile = e.target.closest("button.tile");
  const set = e.target.closest("button.set-label");
  if (tile) { picking = +tile.dataset.pos; $("#picker").showModal(); }
  if (set) {
    const g = reading.groups[+set.dataset.group];
    if (g.kind === "stray") g.kind = "concealed";  // the person says these tiles belong to the hand
    else g.melded = !g.melded;
    renderTiles(); composeHand();
  }
});

function tileButtons(codes) {
  return codes.map((c) => `<button type="button" class="tile" data-code="${c}"><span class="glyph">${GLYPH[c]}</span>` +
    `<span class="code">${c}</span></button>`).join("");
}

$("#picker-tiles").addEventListener("click", (e) => {
  const b = e.target.closest("button.tile");
  if (!b || picking === null) return;
  const p = picking;
  reading.tiles[p].code = b.dataset.code;
  reading.tiles[p].confidence = 1;
  reading.needs_confirmation = reading.needs_confirmation.filter((x) => x !== p);
  picking = null;
  $("#picker").close();
  renderTiles(); composeHand();
});

function composeHand() {
  // the notation of the (corrected) reading: melded sets in [], concealed kongs in {}, +winning tile
  const parts = [], concealed = [], bonus = [];
  const code = (p) => reading.tiles[p].code;
  for (const g of reading.groups) {
    if (g.kind === "stray") continue;
    if (g.kind === "bonus") { bonus.push(...g.tiles.map(code)); continue; }
    if (g.kind === "concealed_kong") {
      const face = g.tiles.map(code).find((c) => c !== "back") || "back";
      parts.push("{" + face.repeat(4) + "}");
      continue;
    }
    if (g.melded) parts.push("[" + g.tiles.map(code).join("") + "]");
    else concealed.push(...g.tiles.filter((p) => p !== reading.winning).map(code));
  }
  let text = parts.concat(concealed, bonus).join(" ");
  if (reading.winning !== null && reading.winning !== undefined) text += " +" + code(reading.winning);
  $("#hand").value = text;
  handChanged();
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
  handChanged();
});

function handChanged() { previewed = null; $("#record").disabled = true; }
$("#hand").addEventListener("input", handChanged);
$("#winner").addEventListener("change", handChanged);
$("#discarder").addEventListener("change", handChanged);
$("#flags").addEventListener("change", handChanged);

function situation() {
  const flags = {};
  document.querySelectorAll("#flags input:checked").forEach((c) => { flags[c.value] = true; });
  const d = $("#discarder").value;
  return { hand: $("#hand").value.trim(), winner: +$("#winner").value, discarder: d === "" ? null : +d, flags };
}

// ------------------------------------------------------------------ scoring and recording

$("#score").addEventListener("click", async () => {
  const s = situation();
  if (!s.hand) { show("type the hand, or photograph it"); return; }
  if (s.discarder === s.winner) { show("the winner cannot win on their own discard"); return; }
  try {
    const r = await api("POST", `/api/games/${game.id}/preview`, s);
    renderBreakdown(r);
    previewed = r.legal ? s.hand : null;
    $("#record").disabled = !r.legal;
    show(r.legal ? "" : (r.score.reason || "not a legal win"), r.legal);
  } catch (e) { show(e.message); }
});

function renderBreakdown(r) {
  const sc = r.score;
  const rows = sc.patterns.map((p) => `<tr><td>${esc(p.name)}</td><td lang="zh">${esc(p.zh)}</td><td class="num">${p.fan === "limit" ? "limit" : p.fan}</td></tr>`).join("");
  const pays = r.deltas.map((v, i) => `<tr><td>${esc(game.players[i])}</td><td>${WIND[r.seats[i]]}</td><td class="num ${v < 0 ? "neg" : "pos"}">${v > 0 ? "+" : ""}${v}</td></tr>`).join("");
  $("#breakdown").innerHTML = `<table class="patterns"><thead><tr><th>Pattern</th><th>中文</th><th>Fan</th></tr></thead><tbody>${rows}</tbody>` +
    `<tfoot><tr><td colspan="2">${sc.limit ? "Limit hand" : "Total"}</td><td class="num" id="fan-total">${sc.fan}</td></tr></tfoot></table>` +
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
      ...s, kind: "win", photo_id: photoId, request_id: requestId, expected_hands: game.hands_recorded,
    });
    show("Hand recorded", true);
    resetHand(); renderGame();
  } catch (e) { show(e.message); $("#record").disabled = false; }
});

$("#draw").addEventListener("click", async () => {
  if (!confirm("Record a drawn hand (nobody won)?")) return;
  try {
    game = await api("POST", `/api/games/${game.id}/hands`, {
      kind: "draw", request_id: requestId, expected_hands: game.hands_recorded,
    });
    show("Drawn hand recorded", true);
    resetHand(); renderGame();
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

function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}

init().catch((e) => show(e.message));
