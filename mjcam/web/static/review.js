// mjcam review page: plain JavaScript, no build step. Walks a person through the photos of a
// batch output that need one: correct the tiles, set how the hand was won, score, confirm.
"use strict";

const $ = (sel) => document.querySelector(sel);
const WIND = { E: "East", S: "South", W: "West", N: "North" };
// esc, face (a tile's bundled picture, never a font), tileButtons, the tile editor and the set menu: editor.js

let data = null;     // the listing: token, flags, tiles, players, photos
let at = 0;          // the photo shown
let item = null;     // a working copy of it, tiles edited in place

function show(text, ok) {
  const m = $("#message");
  m.textContent = text;
  m.className = ok ? "ok" : "bad";
  m.hidden = !text;
}

async function api(method, path, body) {
  const headers = { "X-Mjcam-Token": data ? data.token : "" };
  const init = { method, headers };
  if (body !== undefined) { init.body = JSON.stringify(body); headers["Content-Type"] = "application/json"; }
  let r;
  try { r = await fetch(path, init); }
  catch (e) { throw new Error("cannot reach mjcam review (is it still running?)"); }
  const out = r.headers.get("content-type")?.includes("json") ? await r.json() : await r.text();
  if (!r.ok) throw new Error((out && out.error) || ("HTTP " + r.status));
  return out;
}

function whoOptions(select, withSelf) {
  const opts = [];
  if (withSelf) opts.push(["", "(choose)"], ["self", "self-drawn"]);
  for (const p of data.players || []) opts.push([p, p]);
  for (const s of Object.keys(WIND)) opts.push([s, `${WIND[s]} seat`]);
  select.innerHTML = opts.map(([v, t]) => `<option value="${esc(v)}">${esc(t)}</option>`).join("");
}

async function init() {
  data = await api("GET", "/api/review");
  whoOptions($("#winner"), false);
  whoOptions($("#discarder"), true);
  $("#flags").innerHTML = data.flags.map((f) =>
    `<label class="check"><input type="checkbox" value="${f}"> ${f.replace(/_/g, " ")}</label>`).join("");
  $("#picker-tiles").innerHTML = tileButtons(data.tiles.concat(["back"]));
  const first = data.photos.findIndex((p) => !p.confirmed);
  open(first < 0 ? 0 : first);
  showGame(data.game);
}

function left() { return data.photos.filter((p) => !p.confirmed).length; }

function open(n) {
  at = n;
  const p = data.photos[n];
  item = JSON.parse(JSON.stringify(p));
  $("#count").textContent = `Photo ${n + 1} of ${data.photos.length} · ${left()} to confirm`;
  $("#name").innerHTML = esc(p.name) + (p.confirmed ? ' <span class="badge">confirmed</span>' : "");
  $("#photo").src = `/api/review/${n}/photo.jpg`;
  $("#photo").hidden = p.status === "error";
  $("#why").innerHTML = p.why.map((w) => `<li>${esc(w)}</li>`).join("");
  renderTiles();
  $("#hand").value = p.hand || p.proposed || "";
  $("#proposed").textContent = p.proposed ? `Proposed by the reader: ${p.proposed}` : "The reader proposed no hand.";
  const s = p.situation || {};
  $("#winner").value = s.winner || "E";
  $("#discarder").value = s.discarder || (s.winner ? "self" : "");
  document.querySelectorAll("#flags input").forEach((c) => { c.checked = (s.flags || []).includes(c.value); });
  $("#result").hidden = true;
  $("#prev").disabled = n === 0;
  $("#next").disabled = n === data.photos.length - 1;
  if (p.confirmed && p.score) renderScore(p.score, true, p.names);
}

// a set in words (editor.js's setLabel): tiles left out of the hand say only that
const reviewLabel = (g) => setLabel(g, false);

// the tiles are edited as in the table app: a tile changed, removed, added, moved or made the winning
// tile, a set made melded, concealed or a kong; the hand text written again from them after each

function renderTiles() {
  const flagged = new Set(item.needs_confirmation);
  $("#tiles").innerHTML = item.groups.map((g, gi) => {
    const tiles = g.tiles.map((k) => {
      const t = item.tiles[k];
      const won = k === item.winning;
      const crop = t.added ? "" : `<img class="crop" src="/api/review/${at}/tiles/${k}.jpg" alt="tile ${k + 1} in the photo">`;
      return `<button class="tile read${flagged.has(k) ? " flagged" : ""}${won ? " winning" : ""}" data-pos="${k}">` +
        crop + face(t.code) + `<span class="code">${won ? "+" : ""}${esc(t.code)}${flagged.has(k) ? "?" : ""}</span></button>`;
    }).join("");
    const add = g.kind === "bonus" ? "" :
      `<button class="add" data-add="${gi}" title="add a tile to this set" aria-label="add a tile here">+</button>`;
    const label = g.kind === "bonus" ? `<span class="set-label">${reviewLabel(g)}</span>` :
      `<button class="set-label" data-group="${gi}" title="what this set is">${reviewLabel(g)}</button>`;
    return `<div class="set">${label}<div>${tiles}${add}</div></div>`;
  }).join("");
}

function composeHand() {
  // the hand text of the corrected reading (a hand left with no winning tile takes its last concealed tile)
  const { text, taken } = handText(item);
  if (taken) renderTiles();
  $("#hand").value = text;
  $("#result").hidden = true;
  show(item.winning === null || item.winning === undefined ? NO_WINNING : "");
}

const tileEditor = tilePicker(() => item, reviewLabel, () => { renderTiles(); composeHand(); });
const setEditor = setMenu(() => item, () => { renderTiles(); composeHand(); });  // a set's kind, tapped on its label
$("#tiles").addEventListener("click", (e) => {
  const tile = e.target.closest("button.tile");
  const set = e.target.closest("button.set-label");
  const add = e.target.closest("button.add");
  if (tile) tileEditor.tile(+tile.dataset.pos);
  if (add) tileEditor.add(+add.dataset.add);
  if (set) setEditor(+set.dataset.group);
});

function situation(hand) {
  const d = $("#discarder").value;
  return { hand: hand === undefined ? $("#hand").value.trim() : hand, winner: $("#winner").value,
           discarder: d === "self" ? null : d,
           flags: [...document.querySelectorAll("#flags input:checked")].map((c) => c.value) };
}

function renderScore(sc, done, names) {
  // each seat's payment, by the player's name where the photos are a game (in the players' order)
  const seats = names ? (data.players || []).map((p) => Object.keys(names).find((s) => names[s] === p)) :
    Object.keys(sc.payments || {});
  const pays = sc.payments ? seats.map((s) => [s, sc.payments[s]]).map(([s, v]) =>
    `<div><b>${esc(names ? names[s] : WIND[s])}</b>${names ? `<br><small>${WIND[s]}</small>` : ""}` +
    `<br>${v > 0 ? "+" : ""}${v}</div>`).join("") : "";
  const pats = (sc.patterns || []).map((p) => `<li>${esc(p.name)}: ${p.fan}</li>`).join("");
  $("#result").innerHTML = sc.legal ?
    `<p><b id="fan">${sc.fan} fan</b> · <span id="points">${sc.points} points</span>${done ? " · confirmed" : ""}</p>` +
    `<ul>${pats}</ul><div class="payments">${pays}</div>` :
    `<p>Not a legal win: ${esc(sc.reason || "")}</p>`;
  $("#result").className = done ? "done" : "";
  $("#result").hidden = false;
}

function ready() {
  if ($("#discarder").value === "") { show("choose how the hand was won: self-drawn or on whose discard"); return false; }
  return true;
}

$("#score").addEventListener("click", async () => {
  const s = situation();
  if (!s.hand) { show("type the hand, or tap the tiles to correct them"); return; }
  if (!ready()) return;
  try {
    const r = await api("POST", `/api/review/${at}/preview`, s);
    if (r.score) { renderScore(r.score, false, r.names); show("", true); }
    else show(r.error || "the hand cannot be scored");
  } catch (e) { show(e.message); }
});

async function confirmWith(s) {
  try {
    const r = await api("POST", `/api/review/${at}/confirm`, s);
    data.photos[at] = r.photo;
    showGame(r.game);
    const sc = r.photo.score;
    show(`Confirmed ${r.photo.name}` + (sc && sc.legal ? `: ${sc.fan} fan, ${sc.points} points` : ": no winning hand") +
      `. ${left()} to confirm.`, true);
    const next = data.photos.findIndex((p, i) => i > at && !p.confirmed);
    const any = data.photos.findIndex((p) => !p.confirmed);
    open(next >= 0 ? next : any >= 0 ? any : at);
  } catch (e) { show(e.message); }
}

$("#confirm").addEventListener("click", () => {
  const s = situation();
  if (!s.hand) { show("type the hand, or tap the tiles to correct them; or choose No winning hand"); return; }
  if (ready()) confirmWith(s);
});
$("#no-win").addEventListener("click", () => {
  if (confirm("Confirm that this photo shows no winning hand?")) confirmWith(situation(""));
});
$("#skip").addEventListener("click", () => open((at + 1) % data.photos.length));
$("#prev").addEventListener("click", () => { if (at > 0) open(at - 1); });
$("#next").addEventListener("click", () => { if (at < data.photos.length - 1) open(at + 1); });
$("#hand").addEventListener("input", () => { $("#result").hidden = true; });

function showGame(lines) {
  $("#game").innerHTML = (lines || []).map((l) => `<li>${esc(l)}</li>`).join("");
}

init().catch((e) => show(e.message));
