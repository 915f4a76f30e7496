"""`climedbench report` on the command line: --html, --serve (127.0.0.1, in the browser), clear one-line errors,
and a suite of a user's own."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import yaml

from tests.report.conftest import open_page
from tests.report.runs import run_through
from tests.support.cli import run_cli

ROOT = Path(__file__).resolve().parents[2]
HOSPITAL = ROOT / "docs" / "examples" / "hospital"


def cli(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, env={"PYTHONPATH": str(ROOT / "src")}, check=check, timeout=300)


def one_line_error(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    return lines[0]


def test_serve_binds_loopback_and_serves_the_same_page(runs, browser, tmp_path):
    html = tmp_path / "served.html"
    proc = subprocess.Popen([sys.executable, "-m", "climedbench.cli", "report", str(runs.alpha), str(runs.beta),
                             "--serve", "--port", "0", "--html", str(html)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/"), url
        with urllib.request.urlopen(url, timeout=10) as r:
            assert r.headers["Content-Type"] == "text/html; charset=utf-8"
            assert r.read() == html.read_bytes()
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(url + "served.html", timeout=10)
        assert e.value.code == 404  # nothing but the page, not the folder around it
        for opened in open_page(browser, url):
            assert opened.page.locator("#board tbody tr.run").count() == 2
            assert opened.page.locator('#fig-radar g[id^="radar-zh-series-"]').count() == 2
            assert opened.page_errors == [] and opened.console_errors == []
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_bad_input_is_one_line_naming_file_and_field_before_anything_is_built(runs, tmp_path):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "cot.json").write_text(json.dumps({"analysis": "cot", "title": "CoT"}), encoding="utf-8")
    line = one_line_error(cli("report", str(runs.alpha), "--html", str(tmp_path / "r.html"), "--analyses", str(bad),
                              check=False))
    assert str(bad / "cot.json") in line and "field 'table'" in line
    assert not (tmp_path / "r.html").exists()
    assert "--html" in one_line_error(cli("report", str(runs.alpha), "--analyses", str(bad), check=False))


def test_analysis_folder_errors_name_the_file(tmp_path):
    from climedbench.errors import ConfigError, DataError
    from climedbench.report.analyses import read_analyses

    svg = tmp_path / "svg"
    svg.mkdir()
    (svg / "x.json").write_text(json.dumps({"analysis": "x", "title": "X", "table": {"columns": ["a"], "rows": []}}))
    (svg / "x.svg").write_text("<svg><g></svg>", encoding="utf-8")
    with pytest.raises(DataError, match=f"^{re.escape(str(svg / 'x.svg'))}: not a well-formed SVG"):
        read_analyses(svg)
    (svg / "x.svg").write_text('<!DOCTYPE svg [<!ENTITY a "aaaaaaaa">]><svg>&a;&a;</svg>', encoding="utf-8")
    with pytest.raises(DataError, match="not a well-formed SVG"):  # defusedxml refuses entity declarations
        read_analyses(svg)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "y.json").write_text('{"analysis": "y",\n "title": }', encoding="utf-8")
    with pytest.raises(DataError, match=f"^{re.escape(str(broken / 'y.json'))}:2: not valid JSON"):
        read_analyses(broken)
    with pytest.raises(ConfigError, match="not a folder"):
        read_analyses(tmp_path / "missing")


def test_a_users_own_suite_gets_its_own_groups_names_and_items(tmp_path):
    """The hospital example suite (English, two areas, options apart from the question): the radar falls back to
    bars over its two groups, the columns follow the suite, the items show their options."""
    from climedbench.report.build import build_page
    from climedbench.report.samples import unpack
    from tests.support.instant_server import InstantApp

    suite_file = HOSPITAL / "suite.yaml"
    run = run_through(InstantApp(model="ward-model", reply="Answer: A\nyes"), HOSPITAL / "data", tmp_path / "run",
                      suite=str(suite_file))
    page = build_page([run])
    spec = yaml.safe_load(suite_file.read_text(encoding="utf-8"))
    groups = list(spec["groups"])
    codes = [t["code"] for t in spec["tasks"]]
    assert page.languages == ["en"]
    assert [c.key for c in page.leaderboard.columns] == ["overall", *groups, *codes]
    radar = next(c for c in page.charts if c.id == "radar").svg["en"]
    for key in groups:
        assert f">{spec['groups'][key]['en']}<" in radar
    assert radar.count('id="radar-en-series-0"') == 1 and "radar-en-series-1" not in radar
    # A multiple-choice item's options are shown with its question.
    mcq = next(t for t in page.samples.tasks if t.code == "ward-mcq")
    first = json.loads((HOSPITAL / "data" / "ward-mcq.jsonl").read_text(encoding="utf-8").splitlines()[0])
    block = unpack(page.samples.chunks[mcq.blocks[0]])
    shown = block["strings"][block["input"][0][0]]
    assert shown.startswith(first["question"])
    assert f"A. {first['options'][0]}" in shown and f"D. {first['options'][3]}" in shown


def test_no_samples_leaves_out_the_sample_data_and_still_loads(runs, browser, tmp_path):
    html = tmp_path / "small.html"
    cli("report", str(runs.alpha), str(runs.beta), "--html", str(html), "--no-samples")
    text = html.read_text(encoding="utf-8")
    assert re.search(r'<script type="application/octet-stream" id=', text) is None and 'id="s-list"' not in text
    for opened in open_page(browser, html.as_uri()):
        assert opened.page.locator("#board tbody tr.run").count() == 2
        assert "left out" in opened.page.text_content("#samples")
        assert opened.page_errors == [] and opened.console_errors == []
