"""The de-identification's derived word lists kept on disk (deid/tables.py): read back equal to a fresh build,
built once and then read, rebuilt when their file is damaged, usable when the folder cannot be written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from climedbench.deid import en_places, lexicon, tables, zh_places

STORED = [lexicon.zh_surnames, lexicon.pinyin_surnames, lexicon.china_places, zh_places.towns, zh_places._aliases,
          en_places.towns]


def _shape(value: object) -> object:
    if isinstance(value, tuple):
        return ("tuple", [_shape(v) for v in value])
    return type(value).__name__


@pytest.mark.parametrize("fn", STORED, ids=lambda f: f"{f.__module__}.{f.__name__}")
def test_a_real_table_reads_back_as_built(fn, tmp_path):
    built = fn.build()
    path = tmp_path / "t.json"
    tables._write(path, built)
    back = tables._read(path)
    assert back == built
    assert _shape(back) == _shape(built)  # frozensets stay frozensets, tuples tuples
    assert len(json.dumps(tables.encode(built))) > 1000  # a real table, not an empty one


def test_built_once_then_read_by_a_new_process(tmp_path, monkeypatch):
    monkeypatch.setenv(tables.ENV, str(tmp_path))
    calls = []

    def build() -> tuple[frozenset[str], frozenset[str]]:
        calls.append(1)
        return frozenset({"喀什", "延吉"}), frozenset({"Zhang"})

    first = tables.stored("demo")(build)
    assert first() == (frozenset({"喀什", "延吉"}), frozenset({"Zhang"}))
    assert first() == first()
    assert len(calls) == 1
    assert [p.name for p in tmp_path.iterdir()] == [f"demo-{tables.digest()}.json"]
    again = tables.stored("demo")(build)  # as a new process would: nothing in memory, the file on disk
    assert again() == (frozenset({"喀什", "延吉"}), frozenset({"Zhang"}))
    assert len(calls) == 1


@pytest.mark.parametrize("damage", ["", "{\"set\": [1, 2]}", "{\"set\": [\"a\"", "[]", "{\"other\": []}"])
def test_a_damaged_file_is_built_again_and_rewritten(tmp_path, monkeypatch, damage):
    monkeypatch.setenv(tables.ENV, str(tmp_path))
    path = tmp_path / f"demo-{tables.digest()}.json"
    path.write_text(damage, "utf-8")
    calls = []

    def build() -> frozenset[str]:
        calls.append(1)
        return frozenset({"Catonsville"})

    assert tables.stored("demo")(build)() == frozenset({"Catonsville"})
    assert len(calls) == 1
    assert tables._read(path) == frozenset({"Catonsville"})


def test_only_the_newest_digests_are_kept(tmp_path, monkeypatch):
    monkeypatch.setenv(tables.ENV, str(tmp_path))
    olds = []
    for k in range(6):
        old = tmp_path / f"demo-{k:020d}.json"
        old.write_text(json.dumps(tables.encode(frozenset({"stale"}))), "utf-8")
        os.utime(old, (1_000_000 + k, 1_000_000 + k))
        olds.append(old.name)
    other = tmp_path / "demo2-00000000000000000000.json"
    other.write_text(json.dumps(tables.encode(frozenset({"kept"}))), "utf-8")
    assert tables.stored("demo")(lambda: frozenset({"fresh"}))() == frozenset({"fresh"})
    kept = sorted(p.name for p in tmp_path.iterdir())
    assert kept == sorted([f"demo-{tables.digest()}.json", other.name, *olds[-(tables.KEPT - 1):]])
    assert tables.KEPT == 4


def test_an_unwritable_place_still_gives_the_table(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", "utf-8")
    monkeypatch.setenv(tables.ENV, str(blocker / "tables"))  # its parent is a file: mkdir fails
    assert tables.stored("demo")(lambda: frozenset({"x"}))() == frozenset({"x"})
    assert blocker.read_text("utf-8") == "not a folder"


def test_the_digest_follows_the_package_source(tmp_path):
    """A copy of the package with one detector edited gets another digest (so its tables are built afresh)."""
    src = Path(tables.__file__).parents[2]
    code = "from climedbench.deid import tables; print(tables.digest())"

    def digest_of(root: Path) -> str:
        env = {**os.environ, "PYTHONPATH": str(root)}
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        return done.stdout.strip()

    copy = tmp_path / "src"
    (copy / "climedbench").mkdir(parents=True)
    (copy / "climedbench" / "__init__.py").write_text((src / "climedbench" / "__init__.py").read_text("utf-8"))
    deid = copy / "climedbench" / "deid"
    deid.mkdir()
    for path in (src / "climedbench" / "deid").iterdir():
        if path.suffix in (".py", ".yaml"):
            (deid / path.name).write_bytes(path.read_bytes())
    assert digest_of(copy) == tables.digest()
    (deid / "en_places.py").write_text((deid / "en_places.py").read_text("utf-8") + "\n# edited\n", "utf-8")
    assert digest_of(copy) != tables.digest()
