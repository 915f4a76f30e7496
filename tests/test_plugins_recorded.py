"""A run made with `--include-path DIR` records DIR in run.json (`include_path`), so later commands on the run import
its plug-ins again without the option; a recorded folder that is gone is one clear error, unless the command names
where the plug-ins are now."""

from __future__ import annotations

import json
import shutil

from tests.support.cli import run_cli as cli
from tests.support.instant_server import instant_server
from tests.test_plugins import DATA, MODULE, REPLY, SUITE, TASK, check_results


def test_later_commands_reimport_the_runs_include_path(tmp_path):
    folder = tmp_path / "plugins"  # the plug-in alone: the suite file stays where it is when the folder moves
    folder.mkdir()
    shutil.copy(MODULE, folder / "dose.py")
    suite = shutil.copy(SUITE, tmp_path / "dosing.yaml")
    out = tmp_path / "run"
    with instant_server(model="dose", reply=REPLY) as url:
        cli("run", "--include-path", str(folder), "--suite", str(suite), "--data", str(DATA), "--model",
            "openai:dose", "--base-url", url, "--out", str(out), "--quiet", "--no-cache")
    check_results(out)
    assert json.loads((out / "run.json").read_text("utf-8"))["include_path"] == [str(folder.resolve())]
    before = json.loads((out / "results.json").read_text("utf-8"))["tasks"][TASK]
    # No --include-path: the plug-in metric comes back from run.json.
    again = json.loads(cli("score", str(out), "--json").stdout)["tasks"][TASK]
    assert (again["metric"], again["score"]) == (before["metric"], before["score"])
    # The folder moved: an error naming run.json's folder; with --include-path where it is now, it works.
    moved = tmp_path / "moved"
    shutil.move(folder, moved)
    proc = cli("score", str(out), "--json", check=False)
    assert proc.returncode != 0
    assert proc.stderr.strip() == f"error: run.json include_path {folder.resolve()}: no such folder"
    rescored = json.loads(cli("score", str(out), "--include-path", str(moved), "--json").stdout)["tasks"][TASK]
    assert rescored["score"] == before["score"]
