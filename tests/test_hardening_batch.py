"""`mjcam batch` outputs against misuse: two runs on one output, files that cannot be read, outputs
that are folders, read-only or someone else's, and CSV cells a spreadsheet would run. Every refusal
is one line (exit 2) and leaves a file that is not ours as it was."""

import csv
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time

import pytest

from mjcam import batch
from mjcam.batch import BatchError, Options, open_output, run
from mjcam.cli import main
from mjcam.csvcell import cell, uncell

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLES = os.path.join(ROOT, "samples")


class _Quiet:
    def step(self, record):
        pass


@pytest.fixture
def folder(tmp_path):
    d = tmp_path / "photos"
    d.mkdir()
    (d / "list.jpg").write_text("eggs, milk, tiles\n")  # read as an error: no models needed
    (d / "notes.png").write_text("not a picture either\n")
    return d


def _lines(path):
    return [x for x in open(path, encoding="utf-8").read().splitlines() if x.strip()]


@pytest.mark.parametrize("ext", ["jsonl", "csv", "sqlite"])
def test_a_second_run_on_an_output_in_use_refuses_in_one_line(folder, tmp_path, capsys, ext):
    out = tmp_path / f"run.{ext}"
    held = open_output(str(out))  # a first run, still writing
    try:
        with pytest.raises(BatchError, match="another mjcam batch is writing"):
            run([str(folder)], str(out), Options(), progress=_Quiet())
        assert main(["batch", str(folder), "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "another mjcam batch is writing" in err and "Traceback" not in err
    finally:
        held.close()
    s = run([str(folder)], str(out), Options(), progress=_Quiet())  # the first one done: this one goes ahead
    assert (s.found, s.failed) == (2, 2)
    again = run([str(folder)], str(out), Options(), progress=_Quiet())
    assert again.skipped == 2 and again.failed == 0


def test_two_runs_started_together_record_every_photo_once(tmp_path):
    from PIL import Image

    photos = tmp_path / "many"
    photos.mkdir()
    for i in range(6):
        Image.open(os.path.join(SAMPLES, "hand-pungs.jpg")).save(photos / f"p{i}.jpg", quality=60 + 5 * i)
    out = tmp_path / "run.jsonl"
    cmd = [sys.executable, "-m", "mjcam", "batch", str(photos), "--out", str(out)]
    first = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while time.time() < deadline and not (out.exists() and first.poll() is None):
        time.sleep(0.02)
    second = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    first.wait(timeout=120)
    assert first.returncode == 0
    if second.returncode == 2:  # it came while the first was writing
        assert second.stderr.count("\n") == 1 and "another mjcam batch" in second.stderr
    recs = [json.loads(x) for x in _lines(out)]
    assert sorted(os.path.basename(r["path"]) for r in recs) == [f"p{i}.jpg" for i in range(6)]


def test_a_file_that_cannot_be_read_is_recorded_once(folder, tmp_path, monkeypatch):
    locked = str(folder / "locked.jpg")
    open(locked, "wb").write(b"\xff\xd8\xff")
    real = batch.content_hash
    monkeypatch.setattr(batch, "content_hash", lambda p: None if p == locked else real(p))  # as for a file we may not read
    out = tmp_path / "run.jsonl"
    for _ in range(3):
        run([str(folder)], str(out), Options(), progress=_Quiet())
    recs = [json.loads(x) for x in _lines(out)]
    assert sorted(os.path.basename(r["path"]) for r in recs) == ["list.jpg", "locked.jpg", "notes.png"]
    monkeypatch.setattr(batch, "content_hash", real)  # readable at last: read, under its hash
    s = run([str(folder)], str(out), Options(), progress=_Quiet())
    assert s.failed == 1 and len(_lines(out)) == 4


def _refused(capsys, *argv) -> str:
    assert main(["batch", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("mjcam: error:") and "Traceback" not in err, err
    return err


FOREIGN = [  # name, contents: none of them a mjcam batch output
    ("numbers.jsonl", b"5\n"), ("other.jsonl", b'{"a": 1}\n'), ("list.jsonl", b"[1, 2]\n{\"path\": \"x\"}\n"),
    ("latin.jsonl", b"\xff\xfe\n"), ("note.jsonl", b"hello, no newline at the end"),
    ("scores.csv", b"name,score\n"), ("scores2.csv", b"name,score\nAnn,3\n"), ("bare.csv", b"just words"),
    ("half.csv", b"path,hash,status,hand,needs_person,legal,fan,points,rules,error_kind,error,duplicate_of,tiles,"
                 b"detail\nx,,error,,1,,,,,,,,,[1]\n"),
]


@pytest.mark.parametrize("name, contents", FOREIGN, ids=[f[0] for f in FOREIGN])
def test_someone_elses_file_is_refused_and_left_as_it_was(folder, tmp_path, capsys, name, contents):
    out = tmp_path / name
    out.write_bytes(contents)
    err = _refused(capsys, str(folder), "--out", str(out))
    assert "not a mjcam batch" in err and str(out) in err
    assert out.read_bytes() == contents


def test_someone_elses_database_is_refused(folder, tmp_path, capsys):
    out = tmp_path / "theirs.sqlite"
    db = sqlite3.connect(out)
    db.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY, url TEXT)")
    db.commit()
    db.close()
    assert "not a mjcam batch" in _refused(capsys, str(folder), "--out", str(out))
    text = tmp_path / "words.db"
    text.write_bytes(b"some words, not a database\n" * 100)
    assert "not a usable SQLite" in _refused(capsys, str(folder), "--out", str(text))
    assert text.read_bytes() == b"some words, not a database\n" * 100


def test_a_torn_header_or_record_of_ours_is_still_cut_off(folder, tmp_path):
    csv_out = tmp_path / "run.csv"
    csv_out.write_bytes(b"path,hash,sta")  # killed while writing the header
    run([str(folder)], str(csv_out), Options(), progress=_Quiet())
    assert _lines(csv_out)[0].startswith("path,hash,status") and len(_lines(csv_out)) == 3
    jsonl = tmp_path / "run.jsonl"
    jsonl.write_bytes(b'{"path": "half a rec')
    run([str(folder)], str(jsonl), Options(), progress=_Quiet())
    assert len(_lines(jsonl)) == 2


def test_outputs_that_cannot_be_written_are_one_line(folder, tmp_path, capsys, monkeypatch):
    (tmp_path / "x.jsonl").mkdir()
    assert "is a folder" in _refused(capsys, str(folder), "--out", str(tmp_path / "x.jsonl"))
    (tmp_path / "y.sqlite").mkdir()
    assert "is a folder" in _refused(capsys, str(folder), "--out", str(tmp_path / "y.sqlite"))
    shut = tmp_path / "shut"
    shut.mkdir()
    if os.geteuid() != 0:  # a folder the user may not write to
        shut.chmod(0o555)
    else:  # (root writes everywhere: the system's refusal is stood in for)
        real_open = os.open

        def refusing(path, *a, **kw):
            if str(path).startswith(str(shut)):
                raise PermissionError(13, "Permission denied", str(path))
            return real_open(path, *a, **kw)

        monkeypatch.setattr(os, "open", refusing)
    try:
        for ext in ("jsonl", "csv", "sqlite"):
            err = _refused(capsys, str(folder), "--out", str(shut / f"run.{ext}"))
            assert "cannot write the records there" in err and "ermission denied" in err
    finally:
        shut.chmod(0o755)


def test_csv_cells_never_run_as_formulas(tmp_path, monkeypatch):
    shutil.copy(os.path.join(SAMPLES, "hand-pungs.jpg"), tmp_path / "=cmd|' calc'!A0.jpg")
    (tmp_path / "@SUM(A1).jpg").write_text("not a picture")
    monkeypatch.chdir(tmp_path)  # paths as given: relative, starting with = and @
    out = tmp_path / "run.csv"
    run(["=cmd|' calc'!A0.jpg", "@SUM(A1).jpg"], str(out), Options(), progress=_Quiet())
    rows = list(csv.reader(open(out, newline="", encoding="utf-8")))
    assert all(not c.startswith(("=", "+", "-", "@")) for row in rows for c in row), rows
    paths = {r[0] for r in rows[1:]}
    assert paths == {"'=cmd|' calc'!A0.jpg", "'@SUM(A1).jpg"}
    again = run(["=cmd|' calc'!A0.jpg", "@SUM(A1).jpg"], str(out), Options(), progress=_Quiet())
    assert again.skipped == 2  # read back as they were written


def test_the_game_export_writes_names_as_text(tmp_path):
    from mjcam.ledger import Ledger

    led = Ledger(str(tmp_path / "l.sqlite"))
    g = led.create_game(["=cmd|' /C calc'!A0", "+Bo", "-Cy", "@Di"])
    led.record(g["id"], "hand-0001", "win", "[RdRdRd] [123s] [999s] 45s NN +6s", 1, 2)
    rows = list(csv.reader(led.export_csv(g["id"]).splitlines()))
    text_cells = [c for row in rows for c in row if not c.lstrip("-").isdigit()]
    assert all(not c.startswith(("=", "+", "-", "@")) for c in text_cells), rows
    assert "'=cmd|' /C calc'!A0 delta" in rows[0] and rows[1][4] == "'+Bo"
    assert rows[1][-8:-4] == ["-16", "64", "-32", "-16"]  # numbers stay numbers


def test_cells_round_trip():
    for text in ("=1+1", "+3", "-3", "@x", "\tx", "'quoted", "''", "plain", "", "＝1"):
        assert uncell(cell(text)) == text and not cell(text).startswith(("=", "+", "-", "@", "\t", "＝"))


# ---------------------------------------------------------------- files that are not photos

def _run_bounded(*args, **kwargs):
    """``run`` in a thread that must end within a minute: a run waiting on a pipe fails the test
    instead of holding it for ever."""
    import threading

    done = {}

    def go():
        try:
            done["summary"] = run(*args, **kwargs)
        except BaseException as e:  # handed to the test
            done["error"] = e

    t = threading.Thread(target=go, daemon=True)
    t.start()
    t.join(60)
    assert not t.is_alive(), "the run is still waiting after a minute"
    if "error" in done:
        raise done["error"]
    return done["summary"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_pipes_devices_and_links_out_of_the_folder_are_recorded_never_opened(folder, tmp_path):
    secret = tmp_path / "secret.jpg"
    secret.write_bytes(b"someone else's file")
    os.mkfifo(folder / "pipe.jpg")
    os.symlink("/dev/zero", folder / "zero.jpg")
    os.symlink(secret, folder / "outside.jpg")
    os.symlink(folder / "list.jpg", folder / "inside.jpg")  # within the folder: followed
    os.mkfifo(tmp_path / "named.jpg")  # named on the command line: a link is followed, to what it is
    os.symlink("/dev/zero", tmp_path / "zero-named.jpg")
    named = [str(tmp_path / "named.jpg"), str(tmp_path / "zero-named.jpg")]
    out = tmp_path / "run.jsonl"
    s = _run_bounded([str(folder), *named], str(out), Options(), progress=_Quiet())
    recs = {os.path.basename(r["path"]): r for r in map(json.loads, _lines(out))}
    assert sorted(recs) == ["inside.jpg", "list.jpg", "named.jpg", "notes.png", "outside.jpg", "pipe.jpg", "zero-named.jpg",
                            "zero.jpg"]
    for name, kind in (("pipe.jpg", "not-a-file"), ("zero.jpg", "outside"), ("named.jpg", "not-a-file"),
                       ("zero-named.jpg", "not-a-file"), ("outside.jpg", "outside")):
        r = recs[name]
        assert r["status"] == "error" and r["error"]["kind"] == kind and r["hash"] is None, r
        assert "\n" not in r["error"]["message"] and name in r["error"]["message"]
    assert str(secret) in recs["outside.jpg"]["error"]["message"]
    assert {recs["inside.jpg"]["status"], recs["list.jpg"]["status"]} == {"error", "duplicate"}  # the link was read
    assert s.failed == 7  # the five refused, and the two files that are not pictures
    again = _run_bounded([str(folder), *named], str(out), Options(), progress=_Quiet())
    assert again.failed == 0 and len(_lines(out)) == 8  # recorded once


def test_a_file_over_the_size_limit_is_not_opened(folder, tmp_path, monkeypatch):
    from mjcam.vision import io

    monkeypatch.setattr(io, "MAX_BYTES", 12)
    out = tmp_path / "run.jsonl"
    _run_bounded([str(folder)], str(out), Options(), progress=_Quiet())
    recs = [json.loads(x) for x in _lines(out)]
    assert {r["error"]["kind"] for r in recs} == {"too-large"} and all("12 MB" not in r["error"]["message"] for r in recs)
    with pytest.raises(io.ImageError, match="over the 0 MB") as e:  # reading it directly says the same
        io.load_photo(str(folder / "list.jpg"))
    assert e.value.kind == "too-large"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_reading_a_pipe_as_a_photo_is_refused_at_once(tmp_path, capsys):
    from mjcam.vision.io import ImageError, load_photo

    os.mkfifo(tmp_path / "p.jpg")
    with pytest.raises(ImageError) as e:
        load_photo(str(tmp_path / "p.jpg"))
    assert e.value.kind == "not-a-file"
    assert batch.content_hash(str(tmp_path / "p.jpg")) is None  # opened without waiting, not read
