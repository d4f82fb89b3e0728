"""The structure of a hand as it lies on the table: which tiles make melded sets, concealed kongs,
the concealed part, the bonus tiles and the winning tile, and the evidence for each.

Players lay a winning hand down in many ways: the concealed tiles standing in a row with the
melded sets face up in front of it, beside it or as a second row; the claimed tile of each melded
set turned sideways, or not turned at all; the whole hand pushed down flat in one or two rows;
kongs as four in a row, as three with the fourth laid on top, concealed kongs with face-down ends;
flowers and seasons anywhere; the winning tile apart or not. Each way is read by a small rule on
the tiles' rows and runs (a run: tiles touching in a row, a gap of about a tile's width or more
separating two runs, measured in the width of the tiles at that depth, so that nearer tiles,
larger in the photo, need a larger gap):

- :func:`stacked_kongs`: a tile lying over (or under) three alike in the next row makes them a kong;
  so does a melded pung whose middle tile lies higher than both its neighbours
  (:func:`raised_middle`): the fourth tile laid on top, the one under it hidden (the kong has three
  tiles in the photo, four in the hand).
- :func:`face_down_kongs`: four in a run with one to four face down, the faces shown all alike,
  are a concealed kong; any other face-down tile is no tile of the hand (left apart with a note).
- :func:`joined_by_turned`: two runs of a row of melds a little more than the usual step apart are
  one run where their turned tiles find sets only together (a set laid with a narrow gap in it).
- :func:`turned_sets`: a run with a tile turned sideways holds melded sets, each with a turned
  tile; a single turned tile at the end of the concealed row, with no set of its own, is the
  winning tile laid there; a turned tile that makes no set is taken as concealed and marked.
- :func:`doubtful_ends`: a tile read unsurely at the end of a row that makes sets without it (a
  marker, a die) is left out of the row and of the hand, marked for a person.
- :func:`concealed_row`: the concealed tiles are the row with no turned tile whose tiles do not cut
  into sets (the concealed part holds the pair), whichever side of it the melds lie.
- :func:`placed_sets`: tiles laid apart from the concealed row (in another row: in front of it,
  beyond it) that cut into legal sets are melded sets. A run in the concealed row is concealed
  unless a tile of it is turned: many players leave gaps between their own sets.
- :func:`four_alike_apart`: four alike set apart in the concealed row are a melded kong.
- :func:`winning_apart`: a lone tile apart — at the end of the concealed row first — is the
  winning tile; a single tile turned apart at either end of the concealed row is such a tile.

A melded set always has three or four tiles and is a legal set: a chow, a pung or a kong.
The other plausible structures are said too (:func:`other_groupings`): a set melded only because
it lies apart might be concealed tiles laid apart, a set apart in the concealed row might be
melded with no tile turned, a pung might hide a kong's fourth tile laid on top. Where the
likeliest structure makes no winning hand, :class:`vision.group.MeldGrouper` tries the first two;
where it does, :mod:`vision.trust` weighs whether any of them changes what anyone pays.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

from mjcam.scoring.notation import meld_kind
from mjcam.scoring.tiles import INDEX

BACK = "back"
GAP = 0.25  # a step between tile centres this much longer than usual separates two runs
#: two runs of a row of melds whose step is at most this much longer than usual are one where their
#: turned tiles find sets only together (see joined_by_turned)
MEND_GAP = 0.6
#: a tile at either end of a row read less surely than this, without which the row would cut into
#: sets, is left out of the row (see doubtful_ends)
END_DOUBT = 0.5
#: a tile under a kong's fourth whose box is under this share of the height of the tiles beside it
#: shows only a strip of its face: its reading says nothing (see stacked_kongs)
PART_SHOWN = 0.75

# the evidence for a set (a set's ``evidence``)
TURNED = "a tile turned sideways"
APART = "laid apart from the concealed row"
FACE_DOWN = "face-down tiles"
ON_TOP = "the fourth tile laid on top"
FOUR_APART = "four alike set apart"
IN_ROW = "in the concealed row"


def is_bonus(code: str) -> bool:
    return len(code) == 2 and code[0] in "FS" and code[1] in "1234"


def set_kind(codes: list[str]) -> str | None:
    """'chow', 'pung' or 'kong' for a legal set of these codes, else None."""
    if any(c not in INDEX for c in codes):
        return None
    return meld_kind([INDEX[c] for c in codes])


def cut_sets(codes: list[str]) -> list[int] | None:
    """Lengths (3 or 4) that cut a run of tiles into legal sets, in layout order (None: no cut)."""
    n = len(codes)
    best: dict[int, list[int] | None] = {0: []}
    for i in range(n):
        if best.get(i) is None:
            continue
        for size in (3, 4):
            j = i + size
            if j <= n and set_kind(codes[i:j]) and best.get(j) is None:
                best[j] = best[i] + [size]
    return best.get(n)


@dataclass
class TileSet:
    """A part of the hand: ``tiles`` (positions in reading order), ``kind`` ('chow', 'pung',
    'kong', 'concealed_kong', 'concealed', 'bonus', or 'stray' for a tile left out of the hand),
    ``melded``, and ``evidence``: what in the photo says so. ``code``: a concealed kong's tile;
    ``why``: why a stray is left out."""

    tiles: list[int]
    kind: str
    melded: bool = False
    evidence: str = ""
    code: str | None = None
    why: str | None = None

    def as_dict(self) -> dict:
        out = {"tiles": list(self.tiles), "melded": self.melded, "kind": self.kind}
        if self.evidence:
            out["evidence"] = self.evidence
        if self.code is not None:
            out["code"] = self.code
        if self.why is not None:
            out["why"] = self.why
        return out


@dataclass
class Structure:
    """One reading of the hand's layout: its sets, the winning tile (a position, or None) and
    whether it was only guessed, the tiles to mark for a person, and notes in words."""

    sets: list[TileSet]
    winning: int | None = None
    guessed: bool = False
    flagged: set[int] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)


@dataclass
class Layout:
    """What the rules read the structure from: the tiles' ``codes`` and observations (``seen``,
    in reading order), the rows (positions), the runs of each row, and which row is the concealed
    row (the one with most tiles of the hand)."""

    codes: list[str]
    seen: list
    rows: list[list[int]]
    runs: list[list[list[int]]]
    main: int
    apart: list[int] = field(default_factory=list)  # tiles left out of their row (doubtful_ends)

    def height(self, p: int) -> float:
        b = self.seen[p].box
        return b[3] - b[1]

    def centre(self, p: int) -> tuple[float, float]:
        b = self.seen[p].box
        return (b[0] + b[2]) / 2, (b[1] + b[3]) / 2

    def turned(self, p: int) -> bool:
        return self.seen[p].orientation == "sideways"


def cut_into(lay: "Layout", run: list[int], evidence: str) -> list[TileSet] | None:
    """The run cut, in the order it lies, into melded sets of three or four with this ``evidence``
    (:func:`cut_sets`); None where no cut makes legal sets."""
    cuts = cut_sets([lay.codes[p] for p in run])
    if cuts is None:
        return None
    out, k = [], 0
    for size in cuts:
        part = run[k:k + size]
        out.append(TileSet(part, set_kind([lay.codes[p] for p in part]), True, evidence))
        k += size
    return out


def _step(seen: list, a: int, b: int) -> float:
    """The step from tile ``a``'s centre to tile ``b``'s along the row, in the two tiles' width."""
    ta, tb = seen[a].box, seen[b].box
    d = (tb[0] + tb[2]) / 2 - (ta[0] + ta[2]) / 2
    return d / max(1e-6, ((ta[2] - ta[0]) + (tb[2] - tb[0])) / 2)


def _usual_step(seen: list, row: list[int]) -> float:
    steps = [_step(seen, a, b) for a, b in zip(row, row[1:])]
    usual = sorted(steps)[len(steps) // 2] if steps else 1.0
    return min(usual, 1.05)  # in a row of separate sets, the touching step is at most ~1


def runs_of(seen: list, row: list[int]) -> list[list[int]]:
    """Split a row where the step between two tiles' centres is clearly longer than the row's
    usual step between touching tiles, each step measured in the width of the two tiles it joins
    (boxes may be loose, so steps are compared, not gaps; nearer tiles are wider and so need a
    wider gap)."""
    if not row:
        return []
    usual = _usual_step(seen, row)
    runs = [[row[0]]]
    for a, b in zip(row, row[1:]):
        if _step(seen, a, b) > usual + GAP:
            runs.append([b])
        else:
            runs[-1].append(b)
    return runs


def concealed_row(codes: list[str], seen: list, rows: list[list[int]], runs: list[list[list[int]]]) -> int:
    """Which row holds the concealed tiles: a row whose tiles do not cut, in the order they lie, into
    sets of three or four before one whose tiles do (a hand's concealed part holds its pair, or is
    one tile short of sets with the winning tile apart: it never cuts into sets, while melds laid
    out side by side do); then a row with no turned tile before one with (a claimed tile is turned
    in a melded set; the winning tile may be turned at the end of the concealed row, so a turned
    tile says less than the cut); a row not made only of sets set apart before one that is; then
    the longest run of tiles touching, the most tiles of the hand, the first."""
    def key(r: int):
        tiles = [p for p in rows[r] if not is_bonus(codes[p])]
        pieces = [[p for p in run if not is_bonus(codes[p])] for run in runs[r]]
        pieces = [x for x in pieces if x]
        turned = any(seen[p].orientation == "sideways" for p in tiles)
        cuts = len(tiles) >= 3 and cut_sets([codes[p] for p in tiles]) is not None
        only_sets = len(pieces) > 1 and all(3 <= len(x) <= 4 and set_kind([codes[p] for p in x]) for x in pieces)
        return (not cuts, not turned, not only_sets, max((len(x) for x in pieces), default=0), len(tiles), -r)

    return max(range(len(rows)), key=key) if rows else 0


def layout_of(codes: list[str], seen: list, rows: list[list[int]], apart: list[int] | None = None) -> Layout:
    """The layout of tiles in ``rows``; ``apart``: tiles already left out of their rows (a layout read
    again), else those :func:`doubtful_ends` leaves out."""
    if apart is None:
        apart = sorted(doubtful_ends(codes, seen, rows))
    rows = [[p for p in r if p not in apart] for r in rows]
    rows = [r for r in rows if r]
    runs = [runs_of(seen, r) for r in rows]
    lay = Layout(codes, seen, rows, runs, concealed_row(codes, seen, rows, runs), list(apart))
    lay.runs = [joined_by_turned(lay, ri) for ri in range(len(rows))]
    return lay


def doubtful_ends(codes: list[str], seen: list, rows: list[list[int]]) -> set[int]:
    """Tiles to leave out of their rows: in a photo of two or more rows, a row whose tiles (flowers
    and seasons aside) do not cut into sets but would without its first or last tile, read under
    ``END_DOUBT`` (a marker, a die or a stray tile at the row's end, read as a tile), while another
    row does not cut either (it holds the concealed tiles, with their pair)."""
    def cuts(ps: list[int]) -> bool:
        tiles = [codes[p] for p in ps if not is_bonus(codes[p])]
        return len(tiles) >= 3 and cut_sets(tiles) is not None

    if len(rows) < 2:
        return set()
    cut = [cuts(row) for row in rows]
    out: dict[int, int] = {}
    for ri, row in enumerate(rows):
        tiles = [p for p in row if not is_bonus(codes[p])]
        if len(tiles) < 4 or cut[ri]:
            continue
        for end in (tiles[0], tiles[-1]):
            if seen[end].sure < END_DOUBT and cuts([p for p in row if p != end]):
                out[ri] = end
                break
    if any(not cut[ri] for ri in range(len(rows)) if ri not in out):
        return set(out.values())
    return set()


def joined_by_turned(lay: Layout, ri: int) -> list[list[int]]:
    """The runs of row ``ri``, two neighbours read as one where the step between them is at most
    ``MEND_GAP`` longer than the row's usual step and their turned tiles find sets together
    (:func:`turned_sets`) that they do not find apart: a melded set laid with a narrow gap inside
    it. The concealed row's runs stay as they are (its last tile may be the winning tile, turned and
    laid a little apart)."""
    runs = [list(r) for r in lay.runs[ri]]
    if ri == lay.main or len(runs) < 2:
        return runs

    def lost(run: list[int]) -> int:  # turned tiles left without a set
        tiles = [p for p in run if not is_bonus(lay.codes[p]) and lay.codes[p] != BACK]
        turned = [p for p in tiles if lay.turned(p)]
        if not turned:
            return 0
        sets, _, _ = turned_sets(lay, tiles, False)
        return sum(not any(t in x.tiles for x in sets) for t in turned)

    usual = _usual_step(lay.seen, lay.rows[ri])
    k = 0
    while k < len(runs) - 1:
        a, b = runs[k], runs[k + 1]
        if _step(lay.seen, a[-1], b[0]) <= usual + MEND_GAP and lost(a + b) < lost(a) + lost(b):
            runs[k:k + 2] = [a + b]
        else:
            k += 1
    return runs


# ------------------------------------------------------------------ the layout rules

def _alike(lay: Layout, ps: list[int]) -> bool:
    return len({lay.codes[p] for p in ps}) == 1 and lay.codes[ps[0]] in INDEX


def _with_fourth(lay: Layout, three: list[int], top: int, under: int, unsure: float) -> bool:
    """Whether ``three`` tiles and a ``top`` one laid over ``under`` (one of the three) are a kong:
    all four alike, or the other two and the top one alike and the one under it hidden — read below
    ``unsure``, or found only by a strip of it (its box under ``PART_SHOWN`` of the height of the
    tiles beside it)."""
    if _alike(lay, three + [top]):
        return True
    rest = [p for p in three if p != under]
    if len(rest) != 2 or not _alike(lay, rest + [top]):
        return False
    return lay.seen[under].confidence < unsure or lay.height(under) < PART_SHOWN * min(lay.height(p) for p in rest)


def stacked_kongs(lay: Layout, unsure: float = 0.8) -> tuple[list[TileSet], dict[int, str]]:
    """A tile lying on top of three alike is the fourth tile of their kong: one lying over (or just
    under) a run of three in the next row, within the run's width, or one in the run itself whose
    box overlaps a neighbour's by over half a tile's width and lies higher. The tile it covers shows
    little of its face: where the other two are alike with the top one, it is taken as theirs if
    hidden (:func:`_with_fourth`). The kongs, and the covered tiles read again ``{position: code}``."""
    out = []
    used: set[int] = set()
    covered: dict[int, str] = {}

    def take(three: list[int], top: int, under: int) -> None:
        used.update(three + [top])
        out.append(TileSet(sorted(three + [top]), "kong", True, ON_TOP))
        if lay.codes[under] != lay.codes[top]:
            covered[under] = lay.codes[top]

    for runs in lay.runs:  # the fourth tile on top, read in the same row
        for run in runs:
            for a, b in zip(run, run[1:]):
                ba, bb = lay.seen[a].box, lay.seen[b].box
                overlap = min(ba[2], bb[2]) - max(ba[0], bb[0])
                if overlap < 0.5 * min(ba[2] - ba[0], bb[2] - bb[0]) or a in used or b in used:
                    continue
                top = a if lay.centre(a)[1] < lay.centre(b)[1] else b
                under = b if top == a else a
                k = run.index(b)
                rest = [p for p in run if p != top]
                for start in range(max(0, k - 3), min(k, len(rest) - 3) + 1):
                    three = rest[start:start + 3]
                    if len(three) == 3 and _with_fourth(lay, three, top, under, unsure):
                        take(three, top, under)
                        break
    for ri, runs in enumerate(lay.runs):  # the fourth tile on top, read as a row of its own
        for run in runs:
            if len(run) != 3 or used & set(run):
                continue
            x1 = min(lay.seen[p].box[0] for p in run)
            x2 = max(lay.seen[p].box[2] for p in run)
            cy = sum(lay.centre(p)[1] for p in run) / 3
            h = max(lay.height(p) for p in run)
            for o in (o[0] for rj, others in enumerate(lay.runs) if rj != ri for o in others if len(o) == 1):
                x, y = lay.centre(o)
                if o in used or not x1 <= x <= x2 or abs(y - cy) > 1.2 * h:
                    continue
                under = min(run, key=lambda p: abs(lay.centre(p)[0] - x))
                if _with_fourth(lay, run, o, under, unsure):
                    take(run, o, under)
                    break
    return out, covered


def raised_middle(lay: Layout, s: TileSet) -> bool:
    """Whether a pung's middle tile lies higher than both its neighbours by a quarter of a tile's
    height or more: the fourth tile of a kong laid on top of it, read as one tile with it."""
    if s.kind != "pung" or len(s.tiles) != 3:
        return False
    a, m, b = sorted(s.tiles, key=lambda p: lay.centre(p)[0])
    top = lambda p: lay.seen[p].box[1]  # noqa: E731
    return min(top(a), top(b)) - top(m) >= 0.25 * max(lay.height(a), lay.height(b))


def face_down_kongs(lay: Layout, run: list[int]) -> tuple[list[TileSet], list[list[int]]]:
    """Concealed kongs in a run: four in a row with one to four face down and the faces shown all
    alike (two face-down ends is the usual way). The kongs, and the pieces of the run left between
    them."""
    kongs, pieces, piece = [], [], []
    k = 0
    while k < len(run):
        window = run[k:k + 4]
        faces = {lay.codes[p] for p in window if lay.codes[p] != BACK}
        backs = sum(lay.codes[p] == BACK for p in window)
        wall = backs == 4 and len(run) > 4  # face down, five or more in a row: a wall, no kong
        if len(window) == 4 and backs >= 1 and len(faces) <= 1 and (not faces or faces <= set(INDEX)) and not wall:
            code = next(iter(faces)) if faces else BACK
            kongs.append(TileSet(window, "concealed_kong", False, FACE_DOWN, code=code))
            if piece:
                pieces.append(piece)
            piece = []
            k += 4
            continue
        piece.append(run[k])
        k += 1
    if piece:
        pieces.append(piece)
    return kongs, pieces


def turned_sets(lay: Layout, run: list[int], end_of_concealed_row: bool) -> tuple[list[TileSet], list[int], int | None]:
    """The melded sets of a run with a turned tile: ``(sets, concealed positions, winning tile or
    None)``. The whole run cut into legal sets each with a turned tile; else a single turned tile at
    the end of the concealed row is the winning tile laid there; else each turned tile's set, the
    three or four tiles beside it that make one (the run's own end first: a set is laid at the end of
    the row), the rest concealed; a turned tile with no set stays concealed (its caller marks it)."""
    turned = [p for p in run if lay.turned(p)]
    whole = cut_into(lay, run, TURNED)
    if whole is not None and all(any(lay.turned(p) for p in s.tiles) for s in whole):
        return whole, [], None
    if end_of_concealed_row and len(turned) == 1 and turned[0] == run[-1] and len(run) > 4:
        return [], run[:-1], run[-1]  # the winning tile turned at the end of the concealed tiles
    sets: list[TileSet] = []
    taken: set[int] = set()
    for t in turned:
        if t in taken:
            continue
        i = run.index(t)
        windows = []
        for size in (4, 3):
            for start in range(max(0, i - size + 1), min(i, len(run) - size) + 1):
                part = run[start:start + size]
                if taken & set(part) or not set_kind([lay.codes[p] for p in part]):
                    continue
                at_end = start == 0 or start + size == len(run)
                windows.append((not at_end, -size, abs(start + size / 2 - i), part))
        if windows:
            part = min(windows)[3]
            taken.update(part)
            sets.append(TileSet(part, set_kind([lay.codes[p] for p in part]), True, TURNED))
    return sets, [p for p in run if p not in taken], None


def placed_sets(lay: Layout, run: list[int], row: int) -> list[TileSet]:
    """Tiles laid apart from the concealed row (in a row of their own: in front of it, beyond it, a
    second row) that cut, in the order they lie, into legal sets of three or four are melded sets:
    one set alone, or several laid side by side."""
    if row == lay.main or len(run) < 3:
        return []
    return cut_into(lay, run, APART) or []


def sets_within_reach(lay: Layout, alt_min: float, min_ratio: float, most: int = 2) -> dict[int, str]:
    """Tiles to read as one of their alternatives so that a row of melded sets is legal sets: the
    row, of three or more tiles with none turned or face down, does not cut into sets as read
    (:func:`cut_sets`) but does with up to ``most`` of its tiles each taking an alternative given
    at least ``alt_min`` and at least ``min_ratio`` times its reading, no tile then read a fifth
    time; and another row of the hand does not cut as read (the concealed row: it holds the pair).
    The likeliest such change (the product of the ratios), ``{position: code}``; none where no row
    or more than one row could be mended so (which is the row of melds is then unclear)."""
    rows = [[p for p in row if not is_bonus(lay.codes[p])] for row in lay.rows]
    cuts = [len(r) >= 3 and cut_sets([lay.codes[p] for p in r]) is not None for r in rows]
    count: dict[str, int] = {}
    for c in lay.codes:
        count[c] = count.get(c, 0) + 1
    mends = []
    for ri, row in enumerate(rows):
        if len(row) < 3 or cuts[ri] or any(lay.turned(p) or lay.codes[p] == BACK for p in row):
            continue
        if not any(other and not cuts[rj] for rj, other in enumerate(rows) if rj != ri):
            continue
        options = []
        for p in row:
            seen = lay.seen[p]
            now = max(dict(seen.alternatives).get(lay.codes[p], seen.confidence), 1e-6)
            options += [(q / now, p, c) for c, q in seen.alternatives
                        if c in INDEX and not is_bonus(c) and c != lay.codes[p] and q >= alt_min and q / now >= min_ratio]
        best = None
        for k in range(1, most + 1):
            for change in combinations(options, k):
                if len({p for _, p, _ in change}) < k:
                    continue
                trial = dict(zip(row, (lay.codes[p] for p in row)))
                trial.update({p: c for _, p, c in change})
                added = [c for _, _, c in change]
                if any(count.get(c, 0) + added.count(c) > 4 for c in added):
                    continue
                if cut_sets([trial[p] for p in row]) is not None:
                    ratio = 1.0
                    for r, _, _ in change:
                        ratio *= r
                    if best is None or ratio > best[0]:
                        best = (ratio, {p: c for _, p, c in change})
            if best is not None:
                break
        if best is not None:
            mends.append(best[1])
    return mends[0] if len(mends) == 1 else {}


def four_alike_apart(lay: Layout, run: list[int], alone: bool) -> TileSet | None:
    """Four alike in a run of their own are a melded kong."""
    if not alone or len(run) != 4 or set_kind([lay.codes[p] for p in run]) != "kong":
        return None
    return TileSet(run, "kong", True, FOUR_APART)


def winning_apart(lay: Layout, lone: list[tuple[int, int, bool]]) -> int | None:
    """The winning tile among the lone tiles apart (``(position, row, last of its row)``): the one at
    the end of the concealed row, else the last one read."""
    if not lone:
        return None
    at_end = [p for p, r, last in lone if r == lay.main and last]
    return at_end[0] if at_end else lone[-1][0]


# ------------------------------------------------------------------ the structure

def read_structure(lay: Layout, unsure: float = 0.8) -> Structure:
    """The likeliest structure of the hand laid out as ``lay`` (the rules above, in turn; a tile
    covered by a kong's fourth read below ``unsure`` is read again, in ``lay.codes`` too)."""
    sets: list[TileSet] = []
    concealed: list[int] = []
    bonus: list[int] = []
    backs: list[int] = []
    flagged: set[int] = set()
    notes: list[str] = []
    winning = None
    lone: list[tuple[int, int, bool]] = []
    stacked, covered = stacked_kongs(lay, unsure)
    for p, code in covered.items():
        notes.append(f"tile {p + 1} lies under the fourth tile of a kong and shows little of its face: taken as "
                     f"{code} (it read {lay.codes[p]}); lift the tile on top to check it")
        lay.codes[p] = code
        flagged.add(p)
    in_stack = {p for s in stacked for p in s.tiles}
    sets += stacked
    tile_runs = sum(1 for runs in lay.runs for run in runs if any(not is_bonus(lay.codes[p]) for p in run))
    for ri, runs in enumerate(lay.runs):
        row = [p for p in lay.rows[ri] if not is_bonus(lay.codes[p]) and p not in in_stack]
        if len(runs) > 1 and not any(lay.turned(p) or lay.codes[p] == BACK for p in row):
            whole = placed_sets(lay, row, ri)  # a row of melds whose gaps do not fall between its sets
            if whole:
                sets += whole
                bonus += [p for p in lay.rows[ri] if is_bonus(lay.codes[p])]
                continue
        for ki, whole in enumerate(runs):
            bonus += [p for p in whole if is_bonus(lay.codes[p])]
            run = [p for p in whole if not is_bonus(lay.codes[p]) and p not in in_stack]
            if not run:
                continue
            last = ki == len(runs) - 1
            kongs, pieces = face_down_kongs(lay, run)
            sets += kongs
            for piece in pieces:
                down = [p for p in piece if lay.codes[p] == BACK]
                backs += down
                piece = [p for p in piece if p not in down]
                if not piece:
                    continue
                if any(lay.turned(p) for p in piece):
                    if len(piece) == 1 and ri == lay.main and (last or ki == 0) and tile_runs > 1:
                        lone.append((piece[0], ri, last))  # a single tile turned at the row's end (or start)
                        concealed += piece
                        continue
                    found, rest, won = turned_sets(lay, piece, ri == lay.main and winning is None)
                    sets += found
                    concealed += rest
                    if won is not None:
                        winning = won
                        concealed.append(won)
                    lost = [p for p in rest if lay.turned(p)]
                    if lost:
                        flagged.update(lost)
                        notes.append("a tile turned sideways that makes no set with the tiles beside it is "
                                     "taken as a concealed tile: check it")
                    continue
                placed = placed_sets(lay, piece, ri)
                kong = four_alike_apart(lay, piece, len(pieces) == 1 and len(runs) > 1)
                if placed or kong:
                    sets += placed or [kong]
                    continue
                if len(piece) == 1 and tile_runs > 1 and len(pieces) == 1:
                    lone.append((piece[0], ri, last))
                concealed += piece
    for s in sets:
        if s.melded and s.kind == "pung" and raised_middle(lay, s):  # the tile under the fourth hidden
            s.kind, s.evidence = "kong", ON_TOP
            notes.append(f"the {lay.codes[s.tiles[0]]} set's middle tile lies higher than the others: read as a "
                         "kong with its fourth tile laid on top, the one under it hidden")
    guessed = False
    if winning is None:
        winning = winning_apart(lay, [x for x in lone if x[0] in concealed])
    if winning is None and concealed:
        winning, guessed = concealed[-1], True
    out = sets[:]
    if bonus:
        out.append(TileSet(sorted(bonus), "bonus"))
    if concealed:
        out.append(TileSet(concealed, "concealed", False, IN_ROW))
    if lay.apart:
        out.append(TileSet(sorted(lay.apart), "stray", why="doubted"))
        flagged.update(lay.apart)
        notes += [f"tile {p + 1}, read unsurely as {lay.codes[p]} at the end of a row that makes sets without it, is "
                  "left out of the hand (a marker or a stray tile?): check it" for p in lay.apart]
    if backs:
        out.append(TileSet(sorted(backs), "stray", why="face-down"))
        notes.append("1 face-down tile that makes no kong is left out of the hand" if len(backs) == 1 else
                     f"{len(backs)} face-down tiles that make no kong are left out of the hand")
    return Structure(out, winning, guessed, flagged, notes)


def other_groupings(lay: Layout, groups: list[dict], winning: int | None,
                    layout_only: bool = False) -> list[tuple[str, list[dict], list[int]]]:
    """The plausible other groupings of a hand grouped as ``groups`` (dicts: ``tiles``, ``kind``,
    ``melded``, ``evidence``): ``(what, groups, tiles of the set that changes)``. :mod:`vision.trust`
    weighs them all; where the likeliest grouping makes no winning hand, :class:`vision.group.MeldGrouper`
    tries the first two kinds (``layout_only``: a set's place in the layout, not a hidden tile).

    - a set melded only because it lies apart from the concealed row: concealed tiles laid apart;
    - a run of three or four making a set, set apart in the concealed row (not the winning tile):
      a melded set whose claimed tile was not turned;
    - a pung whose middle tile lies higher than its neighbours (:func:`raised_middle`): a kong with
      its fourth tile laid on top, hidden in one box with it;
    - a kong of four alike shown face up: a pung and a tile of the concealed part beside it;
    - a kong read from three tiles, the middle one raised: a pung whose middle tile only lies higher.
    """
    out = []
    codes = lay.codes
    concealed = next((g for g in groups if g["kind"] == "concealed"), None)
    hidden = list(concealed["tiles"]) if concealed else []

    def with_concealed(rest: list[dict], tiles: list[int]) -> list[dict]:
        return rest + ([{"tiles": sorted(tiles), "melded": False, "kind": "concealed", "evidence": IN_ROW}]
                       if tiles else [])

    for g in groups:
        others = [x for x in groups if x is not g and x is not concealed]
        ev = g.get("evidence")
        if g["melded"] and ev in (APART, FOUR_APART):
            out.append((f"the {g['kind']} laid apart may be concealed tiles",
                        with_concealed(others, hidden + g["tiles"]), list(g["tiles"])))
        if layout_only:
            continue
        if g["kind"] == "pung" and raised_middle(lay, TileSet(g["tiles"], "pung")):
            kong = dict(g, kind="kong", tiles=g["tiles"] + [g["tiles"][1]], evidence=ON_TOP)
            out.append((f"the {codes[g['tiles'][0]]} pung may be a kong with its fourth tile on top",
                        with_concealed(others + [kong], hidden), list(g["tiles"])))
        if g["kind"] == "kong" and g["melded"] and ev in (FOUR_APART, ON_TOP) and len(g["tiles"]) == 4:
            pung = dict(g, kind="pung", tiles=g["tiles"][:3])
            out.append((f"the {codes[g['tiles'][0]]} kong may be a pung and a concealed tile",
                        with_concealed(others + [pung], hidden + g["tiles"][3:]), list(g["tiles"])))
        if g["kind"] == "kong" and len(g["tiles"]) == 3:
            pung = dict(g, kind="pung", evidence=APART)
            out.append((f"the {codes[g['tiles'][0]]} kong may be a pung whose middle tile only lies higher",
                        with_concealed(others + [pung], hidden), list(g["tiles"])))
    if concealed is not None and lay.rows:
        runs = lay.runs[lay.main]
        for run in runs:
            part = [p for p in run if p in hidden]
            if len(runs) < 2 or len(part) != len(run) or not 3 <= len(run) <= 4 or winning in part:
                continue
            kind = set_kind([codes[p] for p in part])
            if kind:
                rest = [x for x in groups if x is not concealed]
                meld = {"tiles": part, "melded": True, "kind": kind, "evidence": APART}
                out.append((f"the {kind} set apart in the row may be melded",
                            with_concealed(rest + [meld], [p for p in hidden if p not in part]), part))
    return out
