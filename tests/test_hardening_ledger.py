"""The game ledger against text it cannot store and files that hold it all the same, and the deal
worked out from the last hand alone (what keeps recording a hand as quick in a long game)."""

import json
import random
import sqlite3

import pytest

from mjcam.ledger import Ledger, LedgerError

PLAYERS = ["Ann", "Bo", "Cy", "Di"]
WIN = "[RdRdRd] [123s] [999s] 45s NN +6s"
ODD_NAMES = ["東風 Lee", "🀄 Mahjong", "Zoë\u0301", "עִברִית"]  # CJK, a tile outside the BMP, combining, RTL


def test_every_stored_field_round_trips(tmp_path):
    db = str(tmp_path / "g.sqlite")
    ledger = Ledger(db)
    from mjcam.scoring.payments import SCHEMES
    from mjcam.scoring.tables import TABLES

    house = {"min_fan": 1, "cap": 10, "table": sorted(TABLES)[0], "payment": sorted(SCHEMES)[0]}
    g = ledger.create_game(ODD_NAMES, "hk-old-style", house, "S", False, False)
    pid = ledger.add_photo(g["id"], "ab" * 32, {"image": {"path": None}, "note": "🀄 東"}, b"\xff\xd8jpeg", b"thumb")
    flags = {"last_tile": True, "responsible": None}
    ledger.record(g["id"], "req-0001-🀄", "win", WIN, 1, 2, flags, photo_id=pid)
    ledger.record(g["id"], "req-0002-東", "draw")
    for again in (ledger, Ledger(db)):  # as written, and after a restart
        got = again.game(g["id"])
        assert got["players"] == ODD_NAMES and got["house"] == house and got["start_round"] == "S"
        assert got["dealer_keeps_on_draw"] is False and got["flowers_in_play"] is False
        win, draw = got["history"]
        assert (win["kind"], win["winner"], win["discarder"], win["photo_id"]) == ("win", 1, 2, pid)
        assert win["flags"] == flags and win["hand"] and win["patterns"] and win["preset"] == "hk-old-style"
        assert draw["kind"] == "draw" and draw["hand"] is None and draw["deltas"] == [0, 0, 0, 0]
        assert again.games()[0]["players"] == ODD_NAMES
        assert again.photo(pid, "annotated") == b"\xff\xd8jpeg" and again.photo(pid, "thumb") == b"thumb"
        csv = again.export_csv(g["id"])
        assert all(name in csv for name in ODD_NAMES)
    raw = sqlite3.connect(db)
    ids = [r[0] for r in raw.execute("SELECT request_id FROM hands ORDER BY seq")]
    recognition = json.loads(raw.execute("SELECT recognition FROM photos").fetchone()[0])
    assert ids == ["req-0001-🀄", "req-0002-東"] and recognition["note"] == "🀄 東"


@pytest.mark.parametrize("where", ["players", "request_id", "hand", "undo"])
def test_a_lone_surrogate_is_never_stored(tmp_path, where):
    ledger = Ledger(str(tmp_path / "g.sqlite"))
    if where == "players":
        with pytest.raises(LedgerError, match="not valid Unicode"):
            ledger.create_game(["A\ud800", "B", "C", "D"])
        assert ledger.games() == []
        return
    gid = ledger.create_game(PLAYERS)["id"]
    with pytest.raises(LedgerError) as e:
        if where == "request_id":
            ledger.record(gid, "req-\udc00-0001", "draw")
        elif where == "hand":
            ledger.record(gid, "req-0000001", "win", WIN + " \ud800", 1, 2)
        else:
            ledger.undo(gid, "undo-\ud800-01")
    assert e.value.status < 500
    str(e.value).encode("utf-8")  # the message itself can be shown
    assert ledger.game(gid)["hands_recorded"] == 0


def test_a_ledger_already_holding_a_lone_surrogate_reads_back(tmp_path):
    db = str(tmp_path / "g.sqlite")
    ledger = Ledger(db)
    gid = ledger.create_game(PLAYERS)["id"]
    ledger.record(gid, "req-0000001", "win", WIN, 1, 2, {"last_tile": True})
    raw = sqlite3.connect(db)  # as an older version wrote it: JSON's escape of a lone surrogate
    raw.execute("UPDATE games SET players = ?", (json.dumps(["A\ud800", "B\udfff\ud83c\udc04", "C", "D"]),))
    raw.execute("UPDATE hands SET flags = ?", (json.dumps({"x\ud800": True}),))
    raw.commit()
    for again in (ledger, Ledger(db)):
        g = again.game(gid)
        assert g["players"] == ["A\ufffd", "B\ufffd🀄", "C", "D"] and g["history"][0]["flags"] == {"x\ufffd": True}
        json.dumps(g, ensure_ascii=False).encode("utf-8")
        assert again.games()[0]["players"][0] == "A\ufffd"
        again.export_csv(gid).encode("utf-8")


def test_the_deal_from_the_last_hand_is_the_deal_from_every_hand(tmp_path):
    rng = random.Random(7)
    ledger = Ledger(str(tmp_path / "g.sqlite"))
    for keeps in (True, False):
        g = ledger.create_game(PLAYERS, start_round=rng.choice("ESWN"), dealer_keeps_on_draw=keeps)
        gid, n = g["id"], 0
        with ledger._connect() as db:
            row = ledger._game_row(db, gid)
        for _ in range(60):
            n += 1
            roll = rng.random()
            try:
                if roll < 0.15:
                    ledger.undo(gid, f"undo-{gid}-{n:04d}")
                elif roll < 0.4:
                    ledger.record(gid, f"draw-{gid}-{n:04d}", "draw")
                else:
                    dealer = ledger.game(gid)["dealer"]
                    winner = dealer if roll < 0.55 else rng.choice([p for p in range(4) if p != dealer])
                    ledger.record(gid, f"win-{gid}-{n:04d}", "win", WIN, winner, (winner + 1) % 4, view=rng.random() < .5)
            except LedgerError as e:
                assert e.status == 409  # no hand to undo, or the game is over
            with ledger._connect() as db:
                hands = ledger._hands(db, gid)
                last = hands[-1] if hands else None
            assert ledger._state_after(row, last, len(hands)) == ledger._state(row, hands)


def test_recording_without_the_view_says_how_many_hands(tmp_path):
    ledger = Ledger(str(tmp_path / "g.sqlite"))
    gid = ledger.create_game(PLAYERS)["id"]
    assert ledger.record(gid, "req-0000001", "draw", view=False) == ({"id": gid, "hands_recorded": 1}, True)
    assert ledger.record(gid, "req-0000001", "draw", view=False) == ({"id": gid, "hands_recorded": 1}, False)
    with sqlite3.connect(str(tmp_path / "g.sqlite")) as raw:  # every connection of the ledger syncs fully
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    with ledger._connect() as db:
        assert db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
