"""The study file (real SQLite): tokens only hashed, one transaction per submission, a repeated submission id
stores nothing, bad input changes nothing, concurrent raters all get their ratings stored."""

import shutil
import sqlite3
from concurrent.futures import ThreadPoolExecutor

import pytest

from climedbench.apps.rater.store import Rejected, Store, Submission
from climedbench.errors import ConfigError
from tests.rater.helpers import make_study

ASPECTS = ("correctness", "completeness", "fluency", "friendliness")


def full(score: int, sid: str, numbers=(1, 2), **kw) -> Submission:
    return Submission(id=sid, scores={(n, a): score for n in numbers for a in ASPECTS}, **kw)


def snapshot(db) -> list[tuple]:
    with sqlite3.connect(db) as con:
        return [*con.execute("SELECT * FROM ratings ORDER BY 1, 2, 3, 4"),
                *con.execute("SELECT * FROM notes ORDER BY 1, 2"), *con.execute("SELECT * FROM submissions ORDER BY 1"),
                *con.execute("SELECT * FROM assignments ORDER BY 1, 2")]


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return make_study(tmp_path_factory.mktemp("template"))


@pytest.fixture
def study(template, tmp_path):
    """A fresh copy of one study file per test (making it once keeps the tests fast)."""
    db, tokens = template
    copy = tmp_path / "study.sqlite"
    shutil.copyfile(db, copy)
    return Store(copy), tokens


def test_tokens_are_stored_only_hashed_and_can_be_replaced(study):
    store, tokens = study
    raw = store.path.read_bytes() + b"".join(p.read_bytes() for p in store.path.parent.glob("study.sqlite-*"))
    for token in [*tokens.raters.values(), tokens.admin]:
        assert token.encode() not in raw
    assert store.rater_by_token(tokens.raters["rater-2"]).name == "rater-2"
    assert store.rater_by_token(tokens.raters["rater-2"][:-1] + "x") is None
    assert store.is_admin(tokens.admin) and not store.is_admin(tokens.raters["rater-1"])
    new = store.reissue("rater-2")
    assert store.rater_by_token(tokens.raters["rater-2"]) is None
    assert store.rater_by_token(new).name == "rater-2"
    with pytest.raises(ConfigError, match="no rater 'nobody'"):
        store.reissue("nobody")


def test_a_repeated_submission_id_stores_nothing_new(study):
    store, _ = study
    assert store.submit(1, 1, full(4, "sid-1", comment="first")) is True
    before = snapshot(store.path)
    assert store.submit(1, 1, full(2, "sid-1", comment="retry")) is False  # a stale tab or a retry
    assert snapshot(store.path) == before
    scores = {r.score for r in store.ratings() if r.rater == "rater-1"}
    assert scores == {4.0} and len(store.ratings()) == 8
    # A new submission of the same case replaces the rater's ratings of it.
    assert store.submit(1, 1, full(5, "sid-2")) is True
    assert {r.score for r in store.ratings()} == {5.0} and len(store.ratings()) == 8
    assert store.case_view(1, 1).done and store.next_position(1) == 2


@pytest.mark.parametrize(("position", "sub", "status", "message"), [
    (1, Submission(id="x", scores={(1, "correctness"): 6}), 400, "6 is not on the scale 1–5"),
    (1, Submission(id="x", scores={(1, "correctness"): 0}), 400, "0 is not on the scale"),
    (1, Submission(id="x", scores={(1, "bedside_manner"): 3}), 400, "unknown aspect 'bedside_manner'"),
    (1, Submission(id="x", scores={(7, "correctness"): 3}), 400, "answer 7 is not part of this case"),
    (99, full(3, "x"), 404, "No such case"),
    (1, full(3, "x", numbers=(1,)), 400, "4 score(s) missing"),
    (1, Submission(id="x", scores={}, comment="x" * 4001), 400, "longer than 4000"),
])
def test_bad_input_is_refused_and_changes_nothing(study, position, sub, status, message):
    store, _ = study
    store.submit(1, 2, full(3, "earlier"))
    before = snapshot(store.path)
    with pytest.raises(Rejected) as e:
        store.submit(1, position, sub)
    assert e.value.status == status and message in e.value.message
    assert snapshot(store.path) == before


def test_a_flagged_case_may_leave_aspects_unrated(study):
    store, _ = study
    assert store.submit(2, 1, Submission(id="f", scores={(1, "fluency"): 2}, flagged=True, comment="wrong key"))
    notes = store.notes()
    assert [(n.rater, n.flagged, n.comment) for n in notes] == [("rater-2", True, "wrong key")]
    assert [(r.aspect, r.score) for r in store.ratings()] == [("fluency", 2.0)]


def test_concurrent_raters_all_get_their_ratings_stored(tmp_path):
    db, _ = make_study(tmp_path, n=8, raters=4, per_item=2)
    store = Store(db)
    jobs = [(rid, slot.position) for rid in range(1, 5) for slot in store.slots(rid)]
    assert len(jobs) == 16

    def one(job):
        rid, pos = job
        return Store(db).submit(rid, pos, full(1 + (rid + pos) % 5, f"{rid}-{pos}"))

    with ThreadPoolExecutor(8) as pool:
        assert all(pool.map(one, jobs))
    ratings = store.ratings()
    assert len(ratings) == 16 * 8
    expected = {(f"rater-{rid}", pos): 1 + (rid + pos) % 5 for rid, pos in jobs}
    by_slot = {}
    for rid in range(1, 5):
        for slot in store.slots(rid):
            by_slot[(f"rater-{rid}", slot.uid)] = expected[(f"rater-{rid}", slot.position)]
    assert all(r.score == by_slot[(r.rater, r.item)] for r in ratings)
    assert [p.done for p in store.progress()] == [4, 4, 4, 4]


def test_export_is_blinded_unless_asked(study):
    store, _ = study
    store.submit(1, 1, full(3, "a"))
    assert {r.model for r in store.ratings()} == {None}
    unblinded = store.ratings(unblind=True)
    assert {r.model for r in unblinded} == {"secret-model-alpha", "secret-model-beta"}
    # The same neutral answer number always names the same model within an item.
    pairs = {(r.item, r.answer, r.model) for r in unblinded}
    assert len(pairs) == 2 and len({(i, a) for i, a, _ in pairs}) == 2


def test_a_study_file_is_never_overwritten(study, tmp_path):
    from climedbench.apps.rater.store import create_study

    store, _ = study
    with pytest.raises(ConfigError, match="already exists"):
        create_study(store.path, None)  # type: ignore[arg-type]


def test_failed_lookups_block_a_client_only_within_the_window():
    from climedbench.apps.rater.app import FailureLimiter

    now = [1000.0]  # a clock the test moves: the window is checked at its edges, not by sleeping
    limiter = FailureLimiter(limit=2, window=30.0, clock=lambda: now[0])
    limiter.fail("10.0.0.1")
    assert limiter.retry_after("10.0.0.1") == 0
    now[0] += 10.0
    limiter.fail("10.0.0.1")
    assert limiter.retry_after("10.0.0.1") == 21  # the first failure leaves the window 20 s from now
    assert limiter.retry_after("10.0.0.2") == 0  # another client is not affected
    now[0] += 19.5
    assert limiter.retry_after("10.0.0.1") == 1  # still blocked half a second before the edge
    now[0] += 0.5
    assert limiter.retry_after("10.0.0.1") == 0  # the first failure has left the window
