"""The mjcam command line: score, waits, rules; exit codes and one-line errors."""

import json
import subprocess
import sys

import pytest

from mjcam.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_score_json_matches_contract(capsys):
    code, out, err = run(capsys, "score", "[RdRdRd] [123s] [999s] 45s NN +6s", "--discarder", "W",
                         "--seat", "S", "--json")
    assert code == 0 and not err
    d = json.loads(out)
    for key in ("rules", "legal", "reason", "fan", "raw_fan", "limit", "min_fan", "meets_min",
                "patterns", "arrangement", "points", "payments"):
        assert key in d
    assert d["rules"] == "hk-old-style" and d["fan"] == 5 and d["points"] == 16
    assert d["payments"] == {"E": -16, "S": 64, "W": -32, "N": -16}
    assert {"id": "half_flush", "name": "Half Flush", "zh": "混一色", "fan": 3, "count": 1} in d["patterns"]
    assert {"kind": "pung", "tiles": ["Rd", "Rd", "Rd"], "melded": True, "concealed": False,
            "winning": False} in d["arrangement"]


def test_score_text_breakdown(capsys):
    code, out, _ = run(capsys, "score", "[RdRdRd]", "[GdGdGd]", "123m", "456p", "Wd", "+Wd",
                       "--discarder", "W", "--seat", "S")
    assert code == 0
    assert "Little Three Dragons" in out and "小三元" in out
    assert "not counted: Dragon Pung" in out
    assert "Payments" in out and "South +" in out


def test_not_a_win_exits_1_with_reason(capsys):
    code, out, _ = run(capsys, "score", "123m 456m 789m 123p 4p +5p", "--json")
    d = json.loads(out)
    assert code == 1 and d["legal"] is False and "not a winning hand" in d["reason"]
    assert d["payments"] == {"E": 0, "S": 0, "W": 0, "N": 0}


def test_below_minimum_exits_1(capsys):
    hand = "[123m] [456m] 789p 23s 99s +4s"  # all chows 2 + no honours 2 < 5
    code, out, _ = run(capsys, "score", hand, "--rules", "hk-new-style", "--discarder", "W", "--json")
    d = json.loads(out)
    assert code == 1 and d["meets_min"] is False and "minimum" in d["reason"]
    code, out, _ = run(capsys, "score", hand, "--rules", "hk-new-style", "--discarder", "W",
                       "--min-fan", "1", "--json")
    assert code == 0 and json.loads(out)["legal"]


@pytest.mark.parametrize("argv, words", [
    (["score", "123m 456m 789m EEE 5p 0p"], "'0p' at position 23"),
    (["score", "123m 456m 789m EEE 5p +5p", "--rules", "nope"], "invalid choice"),
    (["score", "123m 456m 789m EEE 5p +5p", "--seat", "X"], "seat"),
    (["score", "123m 456m 789m EEE 5p +5p", "--self-drawn", "--discarder", "S"], "not allowed"),
    (["score", "123m 456m 789m EEE 5p +5p", "--discarder", "E"], "cannot be the discarder"),
    (["score", "123m 456m 789m EEE 5p +5p", "--robbing-kong"], "robbing a kong needs"),
    (["score", "123m 456m 789m EEE 5p +5p", "--min-fan", "-1"], ">= 0"),
    (["score", "123m 456m 789m EEE 5p +5p", "--config", "/nonexistent.toml"], "not found"),
    (["score", "123m 456m 789m EEE 5p +5p F1", "--no-flowers-in-play"], "not in play"),
    (["waits", "123m 456m 789m EEE 5p +5p"], "no winning tile"),
    # a photo is not read where no hand could be scored under the options given
    (["photo", "no-such-photo.jpg", "--yes", "--seat", "S", "--discarder", "S"], "cannot be the discarder"),
    (["photo", "no-such-photo.jpg", "--yes", "--config", "/nonexistent.toml"], "not found"),
    (["batch", "no-such-folder", "--out", "never.jsonl", "--heavenly", "--seat", "S"], "heavenly hand is the dealer's self-drawn"),
])
def test_usage_and_parse_errors_exit_2_with_one_line(capsys, argv, words):
    code, out, err = run(capsys, *argv)
    assert code == 2 and not out
    assert err.count("\n") == 1 and err.startswith("mjcam: error:") and words in err


def test_config_file_overrides_and_unknown_keys(capsys, tmp_path):
    cfg = tmp_path / "house.toml"
    cfg.write_text('min_fan = 0\ncap = 8\n[patterns]\nhalf_flush = 5\n[settings]\nall_chows_pair = "any"\n')
    code, out, _ = run(capsys, "score", "[RdRdRd] [123s] [999s] 45s NN +6s", "--discarder", "W",
                       "--seat", "S", "--config", str(cfg), "--json")
    d = json.loads(out)
    assert code == 0 and d["fan"] == 7 and d["min_fan"] == 0
    bad = tmp_path / "bad.toml"
    bad.write_text("[patterns]\nhalf_flushh = 5\n")
    code, _, err = run(capsys, "score", "[RdRdRd] [123s] [999s] 45s NN +6s", "--config", str(bad))
    assert code == 2 and "half_flushh" in err
    bad.write_text("colour = 'red'\n")
    code, _, err = run(capsys, "score", "[RdRdRd] [123s] [999s] 45s NN +6s", "--config", str(bad))
    assert code == 2 and "'colour'" in err
    bad.write_text("min_fan = \n")
    code, _, err = run(capsys, "score", "[RdRdRd] [123s] [999s] 45s NN +6s", "--config", str(bad))
    assert code == 2 and "not valid TOML" in err


def test_flags_override_preset(capsys):
    code, out, _ = run(capsys, "score", "[EEE] 345p [678m] [222s] 8p +8p", "--rules", "hk-common",
                       "--table", "canton", "--payment", "discarder-pays-all", "--cap", "4", "--json")
    d = json.loads(out)
    assert d["fan"] == 4 and d["points"] == 16
    assert d["payments"] == {"E": 96, "S": -32, "W": -32, "N": -32}  # dealer doubling still on


def test_rules_all_side_by_side(capsys):
    code, out, _ = run(capsys, "score", "[EEE] 345p [678m] [222s] 8p +8p", "--rules", "all", "--json")
    d = json.loads(out)
    assert code == 0 and [x["rules"] for x in d] == ["hk-old-style", "hk-new-style", "chinese-new-style",
                                                      "hk-common", "hk-guide"]
    code, out, _ = run(capsys, "score", "[EEE] 345p [678m] [222s] 8p +8p", "--rules", "all")
    assert code == 0 and out.count("\n") > 6 and "chinese-new-style" in out


def test_waits_lists_tiles_with_scores(capsys):
    code, out, _ = run(capsys, "waits", "123m 456m 789m 234p 5p", "--json")
    d = json.loads(out)
    assert code == 0 and [w["tile"] for w in d] == ["2p", "5p"]
    assert d[1]["self_drawn"]["fan"] > d[1]["discard"]["fan"]
    code, out, _ = run(capsys, "waits", "123m 456m 789m 234p 5p")
    assert code == 0 and "2p" in out and "5p" in out
    code, out, _ = run(capsys, "waits", "159m 159p 159s E S W N")
    assert code == 1 and "not waiting" in out


def test_rules_listing(capsys):
    code, out, _ = run(capsys, "rules")
    assert code == 0 and all(i in out for i in ("hk-old-style", "hk-guide", "chinese-new-style"))
    code, out, _ = run(capsys, "rules", "hk-new-style")
    assert code == 0 and "Special Eyes" in out and "choices" in out
    code, out, _ = run(capsys, "rules", "chinese-new-style", "--json")
    d = json.loads(out)
    assert d["table"] == "6-9-12" and any(p["id"] == "five_doors" and p["fan"] == 3 for p in d["patterns"])
    code, out, _ = run(capsys, "rules", "--json")
    assert len(json.loads(out)) == 5


def test_python_dash_m_entry_point():
    p = subprocess.run([sys.executable, "-m", "mjcam", "score", "[EEE] 345p [678m] [222s] 8p +8p", "--json"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and json.loads(p.stdout)["points"] == 16


def test_text_names_the_table_and_payment_in_force(capsys):
    code, out, _ = run(capsys, "score", "[EEE] 345p [678m] [222s] 8p +8p", "--rules", "hk-common",
                       "--table", "canton", "--payment", "equal")
    assert code == 0 and "(canton table, equal payment)" in out


def test_bare_mjcam_prints_usage_and_version_is_known(capsys):
    code, out, err = run(capsys)
    assert code == 2 and not out and err.startswith("usage: mjcam")
    assert all(c in err for c in ("score", "waits", "recognize", "photo", "batch", "serve", "rules"))
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0 and capsys.readouterr().out.startswith("mjcam ")


@pytest.mark.parametrize("hand, words", [
    ("eee 123m 456p 789s NN +N", "case-sensitive, did you mean 'EEE'?"),
    ("123M 456p 789s EEE NN +N", "did you mean '123m'?"),
    ("1111p 234m 567s 88s EEE +E", "four 1p make a kong, marked [1111p] if melded or {1111p} if concealed"),
])
def test_errors_hint_at_what_was_meant(capsys, hand, words):
    code, out, err = run(capsys, "score", hand)
    assert code == 2 and err.count("\n") == 1 and words in err


def test_waits_says_limit_and_a_preset_without_flowers_says_so(capsys):
    code, out, _ = run(capsys, "waits", "111m 999m 111p 999p 1s")
    assert code == 0 and "limit 64 pts" in out and " L " not in out
    code, out, _ = run(capsys, "score", "123m 456p 789s EEE N F1 S2 +N", "--rules", "hk-new-style")
    assert "hk-new-style gives no fan for flowers or seasons: F1 S2 score nothing here" in out
    code, out, _ = run(capsys, "score", "123m 456p 789s EEE N F1 S2 +N")
    assert "score nothing here" not in out


def test_serve_banner_tells_where_a_phone_can_open_it_with_a_qr_code():
    import numpy as np

    cv2 = pytest.importorskip("cv2")
    from mjcam.web.banner import banner, qr_lines

    local = "\n".join(banner("127.0.0.1", 8000, None, "g.sqlite"))
    assert "on this computer only" in local and "--host 0.0.0.0" in local and "scan" not in local
    lines = banner("192.168.1.20", 8123, "654321", "g.sqlite")
    assert lines[0] == "mjcam: open http://192.168.1.20:8123/ on a phone on the same network"
    assert "mjcam: game PIN 654321 (asked before any change to the ledger)" in lines
    # the QR code, drawn back into pixels (light: the blocks a dark terminal shows light), reads as the link
    code = qr_lines("http://192.168.1.20:8123/#pin=654321")
    halves = {"\u2588": (1, 1), "\u2580": (1, 0), "\u2584": (0, 1), " ": (0, 0)}
    rows = []
    for line in code:
        rows.append([halves[c][0] for c in line])
        rows.append([halves[c][1] for c in line])
    img = np.kron(np.array(rows, np.uint8) * 255, np.ones((8, 8), np.uint8))
    img = np.pad(img, 16, constant_values=255)
    text, _, _ = cv2.QRCodeDetector().detectAndDecode(img)
    assert text == "http://192.168.1.20:8123/#pin=654321"
    assert any(line in lines for line in code)


def test_serve_prints_the_addresses_and_pin_when_bound_beyond_localhost(tmp_path):
    from conftest import ROOT, free_port

    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "mjcam", "serve", "--host", "0.0.0.0", "--port", str(port),
                             "--db", str(tmp_path / "g.sqlite"), "--pin", "246810"], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        lines = []
        for line in proc.stderr:
            lines.append(line.rstrip("\n"))
            if line.startswith("mjcam: ledger"):
                break
    finally:
        proc.kill()
        proc.wait()
    text = "\n".join(lines)
    assert "game PIN 246810" in text and "127.0.0.1" not in text
    if any(line.startswith("mjcam: open http://") for line in lines):
        assert f":{port}/ on a phone on the same network" in text and "scan this" in text
    else:  # a machine on no network at all says so
        assert "no network address a phone could reach" in text


def test_a_fault_of_the_whole_hand_names_no_position_but_a_bad_tile_does(capsys):
    code, out, err = run(capsys, "waits", "123m")
    assert code == 2 and "13 tiles" in err and "'123m'" in err and "position" not in err
    code, out, err = run(capsys, "score", "123m 456m 789m EEE 5p 5p")
    assert code == 2 and "no winning tile" in err and "position" not in err
    code, out, err = run(capsys, "score", "123m 456m 789m EEE 5p 0p")
    assert code == 2 and "'0p' at position 23" in err
