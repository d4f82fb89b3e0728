"""`mjcam batch`: the records of a mixed folder, the three output kinds, resuming after kill -9,
local worker processes and a Dask LocalCluster giving the same output, the review page."""

import csv
import html
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from mjcam.batch import BatchError, Options, Progress, find_photos, run, write_review
from mjcam.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLES = os.path.join(ROOT, "samples")


@pytest.fixture
def folder(tmp_path):
    d = tmp_path / "photos"
    (d / "night").mkdir(parents=True)
    for name in ("hand-honours.jpg", "hand-pungs.jpg"):
        shutil.copy(os.path.join(SAMPLES, name), d / name)
    shutil.copy(os.path.join(SAMPLES, "hand-honours.jpg"), d / "night" / "same-again.JPG")  # a duplicate
    good = open(os.path.join(SAMPLES, "hand-bonus.jpg"), "rb").read()
    (d / "night" / "cut.jpg").write_bytes(good[:len(good) // 3])  # corrupt
    (d / "night" / "list.jpg").write_text("eggs, milk, tiles\n")  # a text file named .jpg
    (d / "night" / "notes.txt").write_text("not a photo, not looked at\n")
    return d


def _by_name(records):
    return {os.path.basename(r["path"]): r for r in records}


def _quiet():
    class Null:
        def step(self, record):
            pass
    return Null()


def test_find_photos_walks_folders_and_keeps_named_files(folder):
    found = [os.path.relpath(p, folder) for p in find_photos([str(folder)])]
    assert found == ["hand-honours.jpg", "hand-pungs.jpg", "night/cut.jpg", "night/list.jpg", "night/same-again.JPG"]
    assert find_photos([str(folder / "night" / "notes.txt")]) == [str(folder / "night" / "notes.txt")]


def test_mixed_folder_gives_the_right_records(folder, tmp_path):
    out = tmp_path / "run.jsonl"
    s = run([str(folder)], str(out), Options(), progress=_quiet())
    recs = _by_name(json.loads(line) for line in out.read_text().splitlines())
    assert set(recs) == {"hand-honours.jpg", "hand-pungs.jpg", "cut.jpg", "list.jpg", "same-again.JPG"}
    assert recs["cut.jpg"]["status"] == "error" and recs["cut.jpg"]["error"]["kind"] == "corrupt"
    assert recs["list.jpg"]["error"]["kind"] == "not-an-image"
    dup = recs["same-again.JPG"]
    assert dup["status"] == "duplicate" and dup["duplicate_of"].endswith("hand-honours.jpg")
    good = recs["hand-honours.jpg"]
    assert good["status"] == "scored" and good["legal"] and good["score"]["limit"]
    assert good["hand"] == "19m 19p 119s E S W Rd Gd Wd +N" and len(good["hash"]) == 64
    assert all({"code", "confidence", "box"} <= set(t) for t in good["tiles"])
    assert (s.found, s.read, s.failed, s.duplicates, s.skipped) == (5, 2, 2, 1, 0)
    again = run([str(folder)], str(out), Options(), progress=_quiet())  # a re-run skips them all
    assert (again.skipped, again.read, again.failed) == (5, 0, 0)
    assert len(out.read_text().splitlines()) == 5


@pytest.mark.parametrize("ext", ["csv", "sqlite"])
def test_csv_and_sqlite_outputs(folder, tmp_path, ext):
    out = tmp_path / f"run.{ext}"
    run([str(folder)], str(out), Options(rules="hk-new-style"), progress=_quiet())
    if ext == "csv":
        rows = list(csv.DictReader(open(out, newline="")))
        statuses = {os.path.basename(r["path"]): r["status"] for r in rows}
        honours = next(r for r in rows if r["path"].endswith("hand-honours.jpg"))
        assert honours["rules"] == "hk-new-style" and honours["legal"] == "1" and honours["tiles"].startswith("1s:")
    else:
        db = sqlite3.connect(out)
        statuses = {os.path.basename(p): s for p, s in db.execute("SELECT path, status FROM photos")}
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert statuses["cut.jpg"] == "error" and statuses["same-again.JPG"] == "duplicate"
    assert statuses["hand-honours.jpg"] == "scored"
    assert run([str(folder)], str(out), Options(rules="hk-new-style"), progress=_quiet()).skipped == 5
    # records made under other rules are not added to: one file, one set of rules
    with pytest.raises(BatchError, match="made with other options .rules hk-new-style there, hk-old-style here"):
        run([str(folder)], str(out), Options(), progress=_quiet())


def test_a_config_file_is_the_same_by_its_content_wherever_it_is_named_from(folder, tmp_path, monkeypatch):
    cfg = tmp_path / "house.toml"
    cfg.write_text("min_fan = 1\n")
    out = tmp_path / "run.jsonl"
    monkeypatch.chdir(tmp_path)
    assert run([str(folder)], str(out), Options(house=(("config", "house.toml"),)), progress=_quiet()).read
    same = Options(house=(("config", str(cfg)),))  # the same file by its full path
    assert run([str(folder)], str(out), same, progress=_quiet()).skipped == 5
    cfg.write_text("min_fan = 2\n")  # the same name, other rules
    with pytest.raises(BatchError, match="config_sha256"):
        run([str(folder)], str(out), same, progress=_quiet())


def test_a_torn_last_line_is_cut_off_on_resume(folder, tmp_path):
    out = tmp_path / "run.jsonl"
    run([str(folder / "hand-pungs.jpg")], str(out), Options(), progress=_quiet())
    with open(out, "a") as fh:
        fh.write('{"path": "half a rec')  # killed in the middle of a write
    run([str(folder)], str(out), Options(), progress=_quiet())
    lines = out.read_text().splitlines()
    assert len(lines) == 5 and all(json.loads(x) for x in lines)


def test_killed_run_resumes_with_each_photo_exactly_once(tmp_path):
    photos = tmp_path / "many"
    photos.mkdir()
    for i in range(8):  # eight different photos: the sample re-encoded at different qualities
        from PIL import Image

        Image.open(os.path.join(SAMPLES, "hand-pungs.jpg")).save(photos / f"p{i}.jpg", quality=60 + 4 * i)
    out = tmp_path / "run.jsonl"
    cmd = [sys.executable, "-m", "mjcam", "batch", str(photos), "--out", str(out)]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while time.time() < deadline and (not out.exists() or len(out.read_text().splitlines()) < 2):
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    first = len(out.read_text().splitlines())
    assert 2 <= first < 8
    assert subprocess.run(cmd, cwd=ROOT, capture_output=True).returncode == 0
    recs = [json.loads(x) for x in out.read_text().splitlines()]
    assert sorted(os.path.basename(r["path"]) for r in recs) == [f"p{i}.jpg" for i in range(8)]
    assert len({r["hash"] for r in recs}) == 8


def _comparable(path):
    recs = [json.loads(x) for x in open(path).read().splitlines()]
    return sorted((os.path.basename(r["path"]), r["status"], r.get("hand"), r.get("hash")) for r in recs)


def test_two_local_workers_and_a_dask_local_cluster_give_the_same_output(folder, tmp_path):
    pytest.importorskip("dask.distributed")
    one, two, dask = tmp_path / "one.jsonl", tmp_path / "two.jsonl", tmp_path / "dask.jsonl"
    run([str(folder)], str(one), Options(), progress=_quiet())
    run([str(folder)], str(two), Options(), workers=2, progress=_quiet())
    run([str(folder)], str(dask), Options(), workers=2, dask="local", progress=_quiet())
    assert _comparable(one) == _comparable(two) == _comparable(dask)


def test_review_page_lists_the_doubtful_and_the_failed(folder, tmp_path):
    out, page = tmp_path / "run.jsonl", tmp_path / "review.html"
    from PIL import Image

    with Image.open(os.path.join(SAMPLES, "hand-pungs.jpg")) as im:  # half a hand: surely for a person
        im.crop((0, 0, im.width // 2, im.height)).save(folder / "half.jpg")
    run([str(folder)], str(out), Options(), progress=_quiet())
    recs = [json.loads(x) for x in out.read_text().splitlines()]
    n = write_review(str(out), str(page))
    text = page.read_text()
    doubtful = [r for r in recs if r.get("needs_person") and r["status"] != "error"]
    assert n == len(doubtful)
    assert text.count("<figure>") == n and text.count("data:image/jpeg;base64,") == n
    assert "Could not be read (2)" in text and "list.jpg" in text
    assert any(r.get("notes") for r in doubtful)
    for r in doubtful:  # the recogniser's notes say why, beside what a misreading would change
        assert all(html.escape(note) in text for note in r.get("notes") or [])
        if r["status"] == "scored":
            assert r["check"] and all(html.escape(why) in text for why in r["check"])
    assert "src='http" not in text and "<link" not in text and "<script" not in text  # self-contained


def test_batch_cli(folder, tmp_path, capsys):
    out = tmp_path / "run.sqlite"
    assert main(["batch", str(folder), "--out", str(out), "--review", str(tmp_path / "r.html"), "--seat", "S"]) == 0
    err = capsys.readouterr().err
    assert "5 photos: 0 already recorded, 2 read" in err and "review page" in err
    assert main(["batch", str(folder), "--out", str(tmp_path / "run.txt")]) == 2
    assert "must end in .jsonl, .csv or .sqlite" in capsys.readouterr().err
    assert main(["batch", str(tmp_path / "nowhere"), "--out", str(out)]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    assert main(["batch", str(folder), "--out", str(out), "--workers", "0"]) == 2


def test_progress_plain_lines_when_not_a_terminal(capsys):
    import io

    buf = io.StringIO()
    p = Progress(2, buf)
    p.step({"status": "scored", "path": "a.jpg"})
    p.step({"status": "error", "path": "b.jpg", "needs_person": True, "error": {"message": "b.jpg: empty file"}})
    assert buf.getvalue() == "1/2 scored: a.jpg\n2/2 error: b.jpg: empty file\n"  # the reason, the path once
    buf = io.StringIO()
    Progress(1, buf).step({"status": "scored", "path": "c.jpg", "needs_person": True})  # scored, but not alone
    assert buf.getvalue() == "1/1 scored, a person to check: c.jpg\n"


def test_a_hand_that_cannot_be_scored_is_recorded_in_its_own_words(monkeypatch, tmp_path):
    from mjcam import batch
    from mjcam.scoring.notation import NotationError

    def refuse(*args, **kwargs):
        raise NotationError("a winning hand has 14 tiles (kongs counted as 3); this one has 13")

    monkeypatch.setattr(batch, "score_hand", refuse)
    out, page = tmp_path / "run.jsonl", tmp_path / "review.html"
    run([os.path.join(SAMPLES, "hand-layout.jpg")], str(out), Options(), workers=0, progress=_quiet())
    record = json.loads(out.read_text())
    assert record["error"] == {"kind": "score", "message": "a winning hand has 14 tiles (kongs counted as 3); "
                                                            "this one has 13"}
    assert record["status"] == "not-a-win" and record["hand"]
    write_review(str(out), str(page))  # the page gives the same words
    assert "the proposed hand cannot be scored: a winning hand has 14 tiles" in page.read_text()


def test_review_page_says_why_a_hand_is_no_legal_win_and_names_a_failed_photo_once(tmp_path):
    out, page = tmp_path / "run.jsonl", tmp_path / "review.html"
    shutil.copy(os.path.join(SAMPLES, "hand-layout.jpg"), tmp_path / "hand.jpg")  # 2 fan as East: under 3
    (tmp_path / "empty.jpg").write_bytes(b"")
    run([str(tmp_path / "hand.jpg"), str(tmp_path / "empty.jpg")], str(out), Options(), progress=_quiet())
    recs = {os.path.basename(r["path"]): r for r in map(json.loads, out.read_text().splitlines())}
    assert recs["hand.jpg"]["status"] == "not-a-win"
    write_review(str(out), str(page))
    text = page.read_text()
    assert html.escape("not a legal win under the rules: " + recs["hand.jpg"]["score"]["reason"]) in text
    empty = recs["empty.jpg"]["path"]
    assert text.count(html.escape(empty)) == 1 and html.escape(f"{empty}: empty file") in text


def test_options_recorded_before_a_condition_existed_hold_its_default():
    from mjcam.batch import _same_options

    now = Options().to_json()
    older = {**now, "situation": {k: v for k, v in now["situation"].items() if k != "ready"}}
    assert _same_options(older, now)
    assert not _same_options({**older, "situation": {**older["situation"], "seat": "S"}}, now)
    from mjcam.batch import _differences

    assert _differences({**older, "situation": {**older["situation"], "seat": "S"}}, now) == "seat S there, E here"


def test_every_photo_failing_says_why_for_each_and_exits_2(tmp_path, capsys):
    bad = tmp_path / "bb"
    bad.mkdir()
    (bad / "empty.jpg").write_bytes(b"")
    (bad / "list.jpg").write_text("eggs, milk\n")
    out = tmp_path / "r.jsonl"
    for _ in range(2):  # and again, all of them already recorded: still nothing read
        assert main(["batch", str(bad), "--out", str(out)]) == 2
        err = capsys.readouterr().err.splitlines()
        assert err[-1] == f"mjcam: error: none of the 2 photos could be read; {out} records why for each"
    assert len(out.read_text().splitlines()) == 2  # each recorded once
    assert main(["batch", str(bad / "empty.jpg"), "--out", str(tmp_path / "one.jsonl")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == f"1/1 error: {bad / 'empty.jpg'}: empty file"  # the reason on the progress line
    assert err[-1].startswith("mjcam: error: the photo could not be read;")
    # one photo read among failures: the run did its work
    shutil.copy(os.path.join(SAMPLES, "hand-pungs.jpg"), bad / "hand.jpg")
    assert main(["batch", str(bad), "--out", str(out)]) == 0
