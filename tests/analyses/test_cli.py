"""`climedbench analyze …`, `perturb` and `nota` from the command line (constructed runs; no model)."""

import json

from tests.analyses.runs import make_run
from tests.support.cli import run_cli

BKT = [f"BKT-{k:03d}" for k in range(1, 11)]


def cli(*args, check=True):
    return run_cli(*args, check=check, timeout=300)


def test_analyze_cot_writes_the_contract_files(tmp_path):
    v = make_run(tmp_path / "v", [{"task": "BKT", "id": i, "score": float(k < 3)} for k, i in enumerate(BKT)])
    c = make_run(tmp_path / "c", [{"task": "BKT", "id": i, "score": float(k < 6)} for k, i in enumerate(BKT)],
                 variant="cot")
    out = tmp_path / "a"
    proc = cli("analyze", "cot", str(v), str(c), "--out", str(out))
    assert "Chain-of-thought vs vanilla" in proc.stdout and "BKT" in proc.stdout
    record = json.loads((out / "cot.json").read_text())
    assert {"analysis", "version", "title", "created_at", "suite", "inputs", "table", "notes", "data"} <= set(record)
    assert record["analysis"] == "cot" and record["inputs"] == [str(v), str(c)]
    header = (out / "cot.csv").read_text().splitlines()[0]
    assert header.split(",") == record["table"]["columns"]
    assert (out / "cot.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = (out / "cot.svg").read_text()
    assert "<svg" in svg and "BKT" in svg  # text kept as text


def test_validity_json_and_one_line_errors(tmp_path):
    ours = tmp_path / "ours.csv"
    ours.write_text("model,overall\na,1\nb,2\nc,3\nd,4\n")
    other = tmp_path / "other.csv"
    other.write_text("model,overall\nA,10\nB,30\nC,20\nD,40\nE,50\n")
    result = json.loads(cli("analyze", "validity", str(ours), str(other), "--json").stdout)
    assert result["overall"]["spearman"] == 0.8 and result["overall"]["n"] == 4 and result["unmatched"] == ["E"]
    other.write_text("name,overall\nA,1\n")
    proc = cli("analyze", "validity", str(ours), str(other), check=False)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [f"error: {other}:1: no 'model' column (header: name, overall)"]


def test_not_a_run_directory(tmp_path):
    proc = cli("analyze", "instruction", str(tmp_path), check=False)
    assert proc.returncode == 2 and "run.json: not found" in proc.stderr and "Traceback" not in proc.stderr


def test_perturb_and_nota_commands(tmp_path):
    m = json.loads(cli("perturb", "--kind", "homophone", "--seed", "2", "--out", str(tmp_path / "h"), "--json").stdout)
    assert m["kind"] == "homophone" and m["changed"] > 0 and (tmp_path / "h" / "BKT.test.jsonl").exists()
    proc = cli("nota", "--out", str(tmp_path / "n"))
    assert "replaced by '以上都不是'" in proc.stderr
    proc = cli("perturb", "--kind", "bold", "--out", str(tmp_path / "x"), check=False)
    assert proc.returncode == 2 and "--kind must be one of glyph, homophone, traditional, symbol, mixed" in proc.stderr


def test_leaderboard_of_runs_has_rank_intervals(tmp_path):
    # Three runs on the same 40 BKT items: a clearly best one, and two close together.
    items = [f"BKT-{k:03d}" for k in range(1, 41)]
    best = make_run(tmp_path / "best", [{"task": "BKT", "id": i, "score": float(k < 36)} for k, i in enumerate(items)],
                    model="best")
    a = make_run(tmp_path / "a", [{"task": "BKT", "id": i, "score": float(k < 12)} for k, i in enumerate(items)],
                 model="a")
    b = make_run(tmp_path / "b", [{"task": "BKT", "id": i, "score": float(k % 3 == 0)} for k, i in enumerate(items)],
                 model="b")
    out = json.loads(cli("leaderboard", str(a), str(best), str(b), "--json").stdout)
    assert out["best"]["rank"] == {"rank": 1, "lower": 1, "upper": 1}
    # a (12/40) and b (14/40) are not reliably ordered: both rank intervals span ranks 2 and 3.
    assert out["b"]["rank"]["rank"] == 2 and out["a"]["rank"]["rank"] == 3
    for name in ("a", "b"):
        assert (out[name]["rank"]["lower"], out[name]["rank"]["upper"]) == (2, 3)
    text = cli("leaderboard", str(a), str(best), str(b)).stdout
    assert "rank" in text and "Leaderboard ranks with 95% intervals" in text
