// mjcam's tile editor, shared by the table app (app.js) and the review page (review.js): the tile
// pictures, and what the picker dialog's taps do to a reading — a tile changed, added where the photo
// missed it, removed, moved or made the winning tile — and the hand text written from a reading.
// Every function acts on the reading it is given (the table app's `reading`, the review page's
// `item`); each page keeps its own wiring. Plain JavaScript, no build step: loaded before the page's
// own script, whose globals these are.
"use strict";

function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}

const TILE_CODE = /^([1-9][mps]|[ESWN]|Rd|Gd|Wd|[FS][1-4]|back)$/;
// a tile is drawn from its bundled picture, never from a font: many phones have no mahjong or Chinese font
function face(code, cls) {
  const c = TILE_CODE.test(code) ? code : "back";
  return `<img class="${cls || "face"}" src="/static/tiles/${c}.svg" alt="${esc(code)}" draggable="false">`;
}

// the picker's (or a keypad's) tile buttons
function tileButtons(codes) {
  return codes.map((c) => `<button type="button" class="tile" data-code="${c}">${face(c)}` +
    `<span class="code">${c}</span></button>`).join("");
}

// the set (its index in r.groups) tile p is in, or -1
// why tiles were left out of the hand (a stray group's "why")
const STRAY_WHY = {"cut off": "cut off by the photo's edge", "doubted": "perhaps no tile",
                   "too large": "longer than a tile"};

// what a set is, in words, by its kind; with `why`, tiles left out of the hand say why
const KIND_WORDS = { bonus: "bonus", concealed_kong: "concealed kong", kong: "exposed kong", concealed: "concealed" };
function setLabel(g, why = true) {
  if (g.kind === "stray") return "not in the hand" + (why && STRAY_WHY[g.why] ? ` (${STRAY_WHY[g.why]})` : "");
  if (g.melded && g.kind !== "kong") return "melded";
  if (g.kind === "kong" && g.tiles.length === 3) return "exposed kong, a fourth tile not seen";  // (laid on top, or hidden)
  return KIND_WORDS[g.kind] || (g.melded ? "melded" : "concealed");
}

function groupOf(r, p) { return r.groups.findIndex((g) => g.tiles.includes(p)); }

// tile p needs no more checking
function unflag(r, p) { r.needs_confirmation = r.needs_confirmation.filter((x) => x !== p); }

// the concealed tiles' set, made where there is none
function concealedGroup(r) {
  let g = r.groups.find((x) => x.kind === "concealed" && !x.melded);
  if (!g) { g = { tiles: [], melded: false, kind: "concealed" }; r.groups.push(g); }
  return g;
}

function newGroup(r, after) {
  // a set of its own, just after the one the tile came from: melded (a set claimed from a discard) unless
  // it came from the concealed tiles, where it stays concealed until its label says otherwise
  const from = r.groups[after];
  const g = { tiles: [], melded: from.kind !== "concealed", kind: from.kind === "concealed" ? "concealed" : "melded" };
  r.groups.splice(after + 1, 0, g);
  return g;
}

function moveTargets(r, p, label) {
  // where a tile may go: any other set of the hand (or the tiles set aside), the concealed tiles, a set of its
  // own; label(group) names a set in the page's words
  const here = groupOf(r, p);
  const out = r.groups.map((g, gi) => gi === here || g.kind === "bonus" ? "" :
    `<button type="button" class="quiet" data-move="${gi}">${esc(label(g))} ` +
    g.tiles.map((q) => esc(r.tiles[q].code)).join(" ") + "</button>");
  if (!r.groups.some((g, gi) => gi !== here && g.kind === "concealed" && !g.melded)) {
    out.push(`<button type="button" class="quiet" data-move="concealed">the concealed tiles</button>`);
  }
  if (r.groups[here] && r.groups[here].tiles.length > 1) {
    out.push(`<button type="button" class="quiet" data-move="new">a set of its own</button>`);
  }
  return out.join("");
}

const BONUS_CODE = /^[FS][1-4]$/;

// tiles written as the reader writes them (mjcam.scoring.notation.format_tiles): number tiles sorted by
// suit, each suit's numbers before its letter, then the honours in order ("345m 99p E RdRd"); a code that
// is no playable tile (a face-down "back") is written last as it is, so the hand names it; `joined`: one
// piece, no spaces (a set)
const HONOURS = ["E", "S", "W", "N", "Rd", "Gd", "Wd"];
const NUMBER_CODE = /^[1-9][mps]$/;
function compact(codes, joined = false) {
  const parts = [];
  for (const suit of "mps") {
    const nums = codes.filter((c) => NUMBER_CODE.test(c) && c[1] === suit).map((c) => c[0]).sort();
    if (nums.length) parts.push(nums.join("") + suit);
  }
  for (const h of HONOURS) {
    const n = codes.filter((c) => c === h).length;
    if (n) parts.push(h.repeat(n));
  }
  parts.push(...codes.filter((c) => !NUMBER_CODE.test(c) && !HONOURS.includes(c)));
  return parts.join(joined ? "" : " ");
}

// said where a corrected reading has no winning tile (every tile in a set, none concealed to take it from)
const NO_WINNING = "No winning tile: tap the tile that won, then “Winning tile”.";

function handText(r) {
  // the notation of the (corrected) reading: melded sets in [], concealed kongs in {}, +winning tile; a
  // flower or season is written with the bonus tiles whichever set it was put in.
  // A hand with no winning tile among its concealed ones (a set marked melded or concealed, a tile moved
  // or removed) takes the last concealed tile: `taken` says so
  const parts = [], bonus = [];
  const code = (p) => r.tiles[p].code;
  // a kong is written with four of its tile where the tiles it shows are all alike (one may lie face down, or
  // hidden under its fourth laid on top); otherwise as its tiles stand, so a corrected tile that no longer
  // matches is seen, not lost
  const kongText = (g) => {
    const faces = g.tiles.map(code).filter((c) => c !== "back");
    if (!faces.length) return "back".repeat(4);
    return compact(g.tiles.length >= 3 && faces.every((c) => c === faces[0]) ? Array(4).fill(faces[0]) :
      g.tiles.map(code), true);
  };
  const hidden = [];  // the concealed tiles' positions: the winning tile is one of them
  for (const g of r.groups) {
    if (g.kind === "stray") continue;
    const tiles = g.tiles.filter((p) => !BONUS_CODE.test(code(p)));
    bonus.push(...g.tiles.filter((p) => BONUS_CODE.test(code(p))).map(code));
    if (g.kind === "bonus" || !tiles.length) continue;
    const set = { ...g, tiles };
    if (g.kind === "concealed_kong") { parts.push("{" + kongText(set) + "}"); continue; }
    if (g.melded) parts.push("[" + (g.kind === "kong" ? kongText(set) : compact(tiles.map(code), true)) + "]");
    else hidden.push(...tiles);
  }
  let taken = false;
  if (hidden.length && !hidden.includes(r.winning)) {
    r.winning = hidden[hidden.length - 1];
    taken = true;
  } else if (!hidden.length) r.winning = null;
  const concealed = compact(hidden.filter((p) => p !== r.winning).map(code));
  let text = parts.concat(concealed ? [concealed] : [], bonus).join(" ");
  if (r.winning !== null && r.winning !== undefined) text += " +" + code(r.winning);
  return { text, taken };
}

// The picker dialog, the same on both pages: added to the page by tilePicker
const PICKER = `<dialog id="picker"><form method="dialog"><p id="picker-title">Which tile?</p><div id="picker-tiles"></div>
  <div id="tile-actions">
    <div class="actions"><button type="button" id="make-winning">Winning tile</button>
      <button type="button" id="remove-tile" class="quiet">Remove: no tile there</button></div>
    <p>Move it to</p><div id="move-to" class="actions"></div>
  </div>
  <button value="cancel" class="quiet">Cancel</button></form></dialog>`;

// The picker dialog (#picker: #picker-title, #picker-tiles, #tile-actions with #make-winning, #remove-tile
// and #move-to), added to the page, wired to the reading current() gives; label(group) names a set in the
// page's words, edited() follows every change (the page draws the tiles and writes the hand again). Returns
// {tile(p), add(g)}: the picker opened on a tapped tile, or on the + of set g (a tile the photo missed).
function tilePicker(current, label, edited) {
  const el = (id) => document.getElementById(id);
  document.body.insertAdjacentHTML("beforeend", PICKER);
  let picking = null;  // {pos}: the tile tapped; {add: group}: a tile to add to that set

  function open(pick) {
    const r = current();
    picking = pick;
    if (pick.pos !== undefined) {
      const p = pick.pos, g = r.groups[groupOf(r, p)];
      el("picker-title").textContent = `Tile ${p + 1}, read as ${r.tiles[p].code}: tap what it really is, or`;
      el("tile-actions").hidden = false;
      el("make-winning").hidden = p === r.winning || !g || g.kind === "bonus";
      el("move-to").innerHTML = moveTargets(r, p, label);
    } else {
      el("picker-title").textContent = "Which tile is missing here?";
      el("tile-actions").hidden = true;
    }
    el("picker").showModal();
  }

  function done(r) {
    el("picker").close();
    picking = null;
    r.groups = r.groups.filter((g) => g.tiles.length);  // a set emptied by a move or removal goes
    edited();
  }

  el("picker-tiles").addEventListener("click", (e) => {
    const b = e.target.closest("button.tile");
    if (!b || picking === null) return;
    const r = current();
    if (picking.add !== undefined) {  // a tile the photo missed, added to the set whose + was tapped
      r.tiles.push({ code: b.dataset.code, confidence: 1, box: null, alternatives: [], added: true });
      r.groups[picking.add].tiles.push(r.tiles.length - 1);
    } else {
      const p = picking.pos;
      r.tiles[p].code = b.dataset.code;
      r.tiles[p].confidence = 1;
      unflag(r, p);
    }
    done(r);
  });

  el("tile-actions").addEventListener("click", (e) => {
    const b = e.target.closest("button");
    if (!b || picking === null || picking.pos === undefined) return;
    const r = current(), p = picking.pos, here = groupOf(r, p);
    if (b.id === "make-winning") {
      const g = r.groups[here];
      if (g.melded || g.kind !== "concealed") {  // the winning tile is one of the concealed tiles: it goes there
        g.tiles = g.tiles.filter((q) => q !== p);
        concealedGroup(r).tiles.push(p);
      }
      r.winning = p;
    } else if (b.id === "remove-tile") {
      if (here >= 0) r.groups[here].tiles = r.groups[here].tiles.filter((q) => q !== p);
      if (r.winning === p) r.winning = null;
      unflag(r, p);
    } else if (b.dataset.move !== undefined) {
      const to = b.dataset.move === "concealed" ? concealedGroup(r) :
        b.dataset.move === "new" ? newGroup(r, here) : r.groups[+b.dataset.move];
      r.groups[here].tiles = r.groups[here].tiles.filter((q) => q !== p);
      to.tiles.push(p);
      if (to.kind === "stray" && r.winning === p) r.winning = null;
    } else return;
    done(r);
  });

  return { tile: (p) => open({ pos: p }), add: (g) => open({ add: g }) };
}

// The set menu, the same on both pages: what a set is (concealed tiles, melded, an exposed or a concealed kong).
// Added to the page by setMenu(current, edited), wired to the reading current() gives; edited() follows every
// change. Returns open(g): the menu on set g (tiles left out of the hand too: a kind puts them in).
const SET_MENU = `<dialog id="set-menu"><form method="dialog"><p id="set-title">This set</p>
  <div class="actions">
    <button type="button" data-as="concealed">concealed</button>
    <button type="button" data-as="melded">melded</button>
    <button type="button" data-as="kong">exposed kong</button>
    <button type="button" data-as="concealed_kong">concealed kong</button>
  </div>
  <button value="cancel" class="quiet">Cancel</button></form></dialog>`;

function setMenu(current, edited) {
  const el = (id) => document.getElementById(id);
  document.body.insertAdjacentHTML("beforeend", SET_MENU);
  let setting = null;  // the set whose label was tapped
  el("set-menu").addEventListener("click", (e) => {
    const b = e.target.closest("button[data-as]");
    if (!b || setting === null) return;
    const r = current(), g = r.groups[setting], as = b.dataset.as;
    g.melded = as === "melded" || as === "kong";
    g.kind = as === "melded" ? "melded" : as;
    if (g.melded && g.tiles.includes(r.winning)) r.winning = null;  // (taken again as the hand is written)
    setting = null;
    el("set-menu").close();
    edited();
  });
  return (gi) => {
    const r = current(), g = r.groups[gi];
    setting = gi;
    const codes = g.tiles.map((q) => r.tiles[q].code).filter((c) => !BONUS_CODE.test(c));
    const faces = codes.filter((c) => c !== "back");
    const sized = codes.length >= 3 && codes.length <= 4;
    const alike = sized && faces.length > 0 && faces.every((c) => c === faces[0]);
    const why = {  // a kind that cannot fit these tiles, and why (the button is not offered)
      concealed: faces.length < codes.length ? "a face-down tile belongs to a kong: tap it to say which tile it is" : "",
      melded: faces.length < codes.length ? "a face-down tile belongs to a kong" : sized ? "" : "a melded set has 3 or 4 tiles",
      kong: alike ? "" : "a kong is 3 or 4 tiles alike", concealed_kong: alike ? "" : "a kong is 3 or 4 tiles alike",
    };
    const now = g.kind === "kong" || g.kind === "concealed_kong" ? g.kind : g.kind === "stray" ? "" : g.melded ? "melded" : "concealed";
    el("set-menu").querySelectorAll("button[data-as]").forEach((b) => {
      b.disabled = !!why[b.dataset.as] || b.dataset.as === now;
      b.title = why[b.dataset.as] || (b.dataset.as === now ? "what it is now" : "");
      b.classList.toggle("current", b.dataset.as === now);
    });
    el("set-title").textContent = `This set (${setLabel(g, false)}): ` + g.tiles.map((q) => r.tiles[q].code).join(" ");
    el("set-menu").showModal();
  };
}
