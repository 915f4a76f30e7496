"""`climedbench rate create|export|agreement|analyze|links` from the command line, on constructed runs (no model)
and the bundled demo items; ratings are entered through the store as the web app would."""

import csv
import io
import json

import pytest

from climedbench.apps.rater.store import Store, Submission
from tests.rater.helpers import MODELS, make_runs
from tests.support.cli import run_cli

ASPECTS = ("correctness", "completeness", "fluency", "friendliness")


def cli(*args, check=True):
    """The real entry point in a child process (for what the user sees: exit codes, one-line errors)."""
    return run_cli("rate", *args, check=check, timeout=300)


def run(*args):
    """The same commands in this process (no start-up cost); user errors come back as the exception."""
    from typer.testing import CliRunner

    from climedbench.cli import app

    result = CliRunner().invoke(app, ["rate", *args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        return result
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture(scope="module")
def rated(tmp_path_factory):
    """A study made by `rate create` from two runs, every case rated by its raters through the store: the
    rating is the model's automatic score on a 1–5 scale, moved by one point for rater-3."""
    tmp = tmp_path_factory.mktemp("cli")
    runs, _ = make_runs(tmp, n=8)
    db = tmp / "study.sqlite"
    proc = cli("create", *map(str, runs), "--db", str(db), "--raters", "ana,bo,chen", "--per-item", "2",
               "--per-task", "6", "--seed", "3", "--base-url", "http://127.0.0.1:9000")
    store = Store(db)
    auto = store.auto_scores()
    with store._connect() as con:
        models = {(uid, n): m for uid, n, m in con.execute(
            "SELECT c.uid, a.number, a.model FROM answers a JOIN cases c ON c.id = a.case_id")}
    for rid, name in enumerate(["ana", "bo", "chen"], start=1):
        for slot in store.slots(rid):
            scores = {}
            for n in (1, 2):
                base = 1 + round(4 * min(1.0, auto[(models[(slot.uid, n)], slot.uid)]))
                for a in ASPECTS:
                    scores[(n, a)] = max(1, min(5, base + (1 if name == "chen" and a == "fluency" else 0)))
            store.submit(rid, slot.position, Submission(id=f"{name}-{slot.position}", scores=scores))
    return tmp, db, runs, proc


def test_create_prints_one_link_per_rater_and_refuses_to_overwrite(rated):
    _, db, runs, proc = rated
    links = [line for line in proc.stdout.splitlines() if "http://127.0.0.1:9000/" in line]
    assert [line.split(" (")[0].strip() for line in links[:3]] == ["ana", "bo", "chen"]
    assert links[3].strip().startswith("admin: http://127.0.0.1:9000/admin/")
    assert "WTD: 6 of 8 drawn" in proc.stdout
    assert Store(db).study().drawn == {"WTD": (8, 6)}
    again = cli("create", *map(str, runs), "--db", str(db), check=False)
    assert again.returncode == 2 and "already exists" in again.stderr and len(again.stderr.splitlines()) == 1


def test_export_agreement_and_analyze(rated):
    tmp, db, runs, _ = rated
    blind = list(csv.DictReader(io.StringIO(run("export", "--db", str(db), "--csv").stdout)))
    assert len(blind) == 6 * 2 * 2 * 4 and {r["model"] for r in blind} == {""}
    unblinded_csv = tmp / "ratings.csv"
    run("export", "--db", str(db), "--unblind", "--out", str(unblinded_csv))
    rows = list(csv.DictReader(unblinded_csv.open(encoding="utf-8")))
    assert {r["model"] for r in rows} == set(MODELS)
    assert list(rows[0]) == ["item", "answer", "rater", "aspect", "score", "model", "task", "time"]

    from_db = json.loads(run("agreement", "--db", str(db), "--json", "--replicates", "200").stdout)
    from_csv = json.loads(run("agreement", str(unblinded_csv), "--json", "--replicates", "200").stdout)
    assert list(from_db) == list(ASPECTS)
    for aspect in ASPECTS:
        assert from_db[aspect]["alpha"] == pytest.approx(from_csv[aspect]["alpha"])
        assert from_db[aspect]["n_items"] == 12 and from_db[aspect]["n_raters"] == 3
    # ana and bo agree perfectly except where chen stands in for one of them; fluency is where chen differs.
    assert from_db["correctness"]["alpha"] == 1.0
    assert from_db["fluency"]["alpha"] < 1.0

    out = tmp / "analyses"
    out.mkdir()
    (out / "index.json").write_text(json.dumps({"analyses": [{"kind": "cot", "json": "cot.json"}]}))
    run("analyze", "--db", str(db), "--out", str(out), "--replicates", "200", "--quiet")
    record = json.loads((out / "ratings.json").read_text())
    assert record["analysis"] == "ratings" and {"title", "table", "notes", "data"} <= set(record)
    assert all((out / f"ratings.{ext}").exists() for ext in ("csv", "png", "svg"))
    index = json.loads((out / "index.json").read_text())
    assert [e["kind"] for e in index["analyses"]] == ["cot", "ratings"]
    table = record["table"]
    kinds = {row[1] for row in table["rows"]}
    assert kinds == {"alpha", "mean", "spearman"}
    spear = {(row[0], row[2]): row for row in table["rows"] if row[1] == "spearman"}
    # The ratings were made from the automatic scores, so they rise together (ties lower rho below 1).
    assert spear[("correctness", "WTD")][3] > 0.8 and spear[("correctness", "WTD")][6] == 12
    # The same figures from the CSV and the runs.
    out2 = tmp / "from-csv"
    run("analyze", str(unblinded_csv), "--runs", ",".join(map(str, runs)), "--out", str(out2), "--replicates",
        "200", "--quiet")
    again = {(r[0], r[1], r[2]): r[3] for r in json.loads((out2 / "ratings.json").read_text())["table"]["rows"]}
    assert again == {(r[0], r[1], r[2]): r[3] for r in table["rows"]}


def test_items_study_and_clear_errors(tmp_path):
    db = tmp_path / "items.sqlite"
    proc = run("create", "--items", "src/climedbench/suites/climedbench/demo", "--tasks", "BKT,MC",
               "--per-task", "3", "--raters", "2", "--per-item", "2", "--db", str(db))
    assert "BKT: 3 of" in proc.stdout and "MC: 3 of" in proc.stdout
    study = Store(db).study()
    assert study.rubric.rubric == "item" and study.source.kind == "items" and study.lang == "zh"
    assert [len(Store(db).slots(r)) for r in (1, 2)] == [6, 6]
    store = Store(db)
    for rid in (1, 2):  # rater 2 is one point stricter on language
        for slot in store.slots(rid):
            scores = {(0, "accuracy"): 4, (0, "effectiveness"): 3, (0, "language"): 5 - rid + 1 - (slot.task == "MC")}
            store.submit(rid, slot.position, Submission(id=f"{rid}-{slot.position}", scores=scores))
    run("analyze", "--db", str(db), "--out", str(tmp_path / "a"), "--replicates", "100", "--quiet")
    record = json.loads((tmp_path / "a" / "ratings.json").read_text())
    means = {(r[0], r[2]): r[3] for r in record["table"]["rows"] if r[1] == "mean"}
    assert means == {("accuracy", "BKT"): 4, ("accuracy", "MC"): 4, ("effectiveness", "BKT"): 3,
                     ("effectiveness", "MC"): 3, ("language", "BKT"): 4.5, ("language", "MC"): 3.5}
    assert record["data"]["grouped_by"] == "task" and not [r for r in record["table"]["rows"] if r[1] == "spearman"]
    assert any("3 or more as acceptable" in n for n in record["notes"])
    new = run("links", "--db", str(db), "--rater", "rater-2").stdout.strip()
    assert new.startswith("http://127.0.0.1:8765/r/")
    assert Store(db).rater_by_token(new.rsplit("/", 1)[1]).name == "rater-2"

    bad = tmp_path / "bad.csv"
    bad.write_text("item,rater,aspect,score\na,x,fluency,3\nb,x,fluency,\n", encoding="utf-8")
    proc = cli("agreement", str(bad), check=False)
    assert proc.returncode == 2 and f"{bad}:3: field 'score': empty" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    result = run("create", "--items", "src/climedbench/suites/climedbench/demo", "--aspects", "answer",
                 "--db", str(tmp_path / "x.sqlite"))
    assert "rates model answers" in str(result.exception)
    assert not (tmp_path / "x.sqlite").exists()


def test_alpha_of_one_rated_item_is_null_with_a_reason(tmp_path):
    # Issue 20: one item rated by two raters gave "α 0.000 [0.000, 0.000]", which reads as a measured disagreement.
    ratings = tmp_path / "one.csv"
    ratings.write_text("item,answer,rater,aspect,score,model,task,time\n"
                       "WTD-001,1,ana,correctness,2,m,WTD,\nWTD-001,1,bo,correctness,4,m,WTD,\n", encoding="utf-8")
    data = json.loads(run("agreement", str(ratings), "--json", "--replicates", "50").stdout)["correctness"]
    assert (data["alpha"], data["lower"], data["upper"], data["n_items"]) == (None, None, None, 1)
    assert "needs at least 2 items rated by two or more raters, found 1" in data["reason"]
    table = run("agreement", str(ratings), "--replicates", "50").stdout
    assert "α of correctness: not computable" in table and "0.000" not in table
    out = tmp_path / "analyses"
    run("analyze", str(ratings), "--out", str(out), "--replicates", "50", "--quiet")
    record = json.loads((out / "ratings.json").read_text())
    assert any(n.startswith("alpha of correctness: not computable") for n in record["notes"])
    assert record["data"]["alpha"]["correctness"]["alpha"] is None
