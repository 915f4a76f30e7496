"""`climedbench rate serve` as a real child process on 127.0.0.1 over a real SQLite file, driven over HTTP: nothing
submitted is lost to SIGKILL, a double submission stores one rating, bad input gets a 4xx and changes nothing,
concurrent raters all get through, item text is escaped, token guessing is rate-limited."""

from __future__ import annotations

import socket
import sqlite3
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from tests.rater.helpers import MODELS, form_fields, make_study
from tests.support.rater_server import RaterServer, rater_server

ASPECTS = ("correctness", "completeness", "fluency", "friendliness")


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """Six cases, five raters, two per case; raters 1–5 are used by different tests."""
    db, tokens = make_study(tmp_path_factory.mktemp("served"), n=6, raters=5, per_item=2)
    with rater_server(db) as server:
        yield server, tokens


def client(server: RaterServer) -> httpx.Client:
    return httpx.Client(base_url=server.url, follow_redirects=False, timeout=30)


def page(c: httpx.Client, token: str, position: int) -> tuple[str, str, str, list[str]]:
    r = c.get(f"/r/{token}/{position}")
    assert r.status_code == 200, r.text
    return (r.text, *form_fields(r.text))


def post(c: httpx.Client, token: str, position: int, sid: str, case: str, scores: dict[str, int],
         **extra: str) -> httpx.Response:
    return c.post(f"/r/{token}/{position}", data={"sid": sid, "case": case, **scores, **extra})


def snapshot(db) -> list[tuple]:
    with sqlite3.connect(db) as con:
        return [*con.execute("SELECT * FROM ratings ORDER BY 1, 2, 3, 4"), *con.execute("SELECT * FROM notes"),
                *con.execute("SELECT * FROM submissions ORDER BY 1"), *con.execute("SELECT * FROM assignments")]


def export(c: httpx.Client, admin: str, unblind: bool = False) -> list[list[str]]:
    r = c.get(f"/admin/{admin}/ratings.csv", params={"unblind": "1"} if unblind else {})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    return [line.split(",") for line in r.text.strip().splitlines()[1:]]


def test_listens_on_loopback_only_by_default(served):
    server, _ = served
    assert server.url.startswith("http://127.0.0.1:")
    listening = []
    with open("/proc/net/tcp") as fh:
        for line in fh.readlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            if state == "0A" and int(local.split(":")[1], 16) == server.port:
                listening.append(local.split(":")[0])
    assert listening == ["0100007F"]  # 127.0.0.1, not 0.0.0.0


def test_a_submitted_rating_survives_sigkill(served):
    server, tokens = served
    token = tokens.raters["rater-1"]
    with client(server) as c:
        r = c.get(f"/r/{token}")
        assert r.status_code == 303 and r.headers["location"] == f"/r/{token}/1"
        _, sid, case, fields = page(c, token, 1)
        scores = {f: 1 + k % 5 for k, f in enumerate(fields)}
        r = post(c, token, 1, sid, case, scores, comment="急性炎症是禁忌")
        assert r.status_code == 303 and r.headers["location"] == f"/r/{token}/2"
    server.kill()  # the moment the redirect arrived: no graceful shutdown
    server.start()
    with client(server) as c:
        r = c.get(f"/r/{token}")
        assert r.headers["location"] == f"/r/{token}/2"  # resumes after what was stored
        rows = [row for row in export(c, tokens.admin) if row[2] == "rater-1"]
        stored = {f"s:{row[1]}:{row[3]}": int(row[4]) for row in rows}
        assert stored == scores and {row[0] for row in rows} == {case}
        notes = c.get(f"/admin/{tokens.admin}/notes.csv").text
        assert "急性炎症是禁忌" in notes


def test_a_double_submission_stores_one_rating(served):
    server, tokens = served
    token = tokens.raters["rater-2"]
    with client(server) as c:
        _, sid, case, fields = page(c, token, 1)
        scores = dict.fromkeys(fields, 3)
        with ThreadPoolExecutor(2) as pool:  # a double click: the same form twice at once
            answers = list(pool.map(lambda _: post(c, token, 1, sid, case, scores), range(2)))
        assert [r.status_code for r in answers] == [303, 303]
        retry = post(c, token, 1, sid, case, dict.fromkeys(fields, 5))  # a retry of the same form, later
        assert retry.status_code == 303
        rows = [row for row in export(c, tokens.admin) if row[2] == "rater-2"]
        assert len(rows) == len(fields) == 8 and {row[4] for row in rows} == {"3"}
    with sqlite3.connect(server.db) as con:
        assert con.execute("SELECT COUNT(*) FROM submissions WHERE id = ?", (sid,)).fetchone() == (1,)


def test_bad_input_gets_a_4xx_and_changes_nothing(served):
    server, tokens = served
    token = tokens.raters["rater-3"]
    with client(server) as c:
        _, sid, case, fields = page(c, token, 1)
        _, _, case2, _ = page(c, token, 2)
        good = dict.fromkeys(fields, 4)
        before = snapshot(server.db)
        attempts = [
            ("off the scale", post(c, token, 1, sid, case, {**good, fields[0]: "6"}), 400, "not on the scale"),
            ("not a number", post(c, token, 1, sid, case, {**good, fields[0]: "4.5"}), 400, "is not a score"),
            ("unknown aspect", post(c, token, 1, sid, case, {**good, "s:1:bedside": "3"}), 400, "unknown aspect"),
            ("tampered item id", post(c, token, 1, sid, case2, good), 400, "another case"),
            ("another case's form", post(c, token, 2, sid, case2, good), 400, "not issued for this case"),
            ("forged form", post(c, token, 1, sid.split(".")[0] + ".0000", case, good), 400, "not issued"),
            ("case not in the list", post(c, token, 99, sid, case, good), 404, "No such case"),
            ("position not a number", post(c, token, "1x", sid, case, good), 404, "No such case"),  # type: ignore[arg-type]
            ("unknown token", post(c, "x" * 43, 1, sid, case, good), 404, "not valid"),
            ("missing scores", post(c, token, 1, sid, case, {fields[0]: "4"}), 400, "missing"),
            ("NUL in the comment", post(c, token, 1, sid, case, good, comment="ok\x00then"), 400, "NUL character"),
        ]
        for what, r, status, message in attempts:
            assert (what, r.status_code) == (what, status)
            assert message in r.text, what
        assert snapshot(server.db) == before


def test_concurrent_raters_do_not_block_or_overwrite_each_other(served):
    server, tokens = served
    jobs = []
    with client(server) as c:
        for rater in ("rater-4", "rater-5"):
            token = tokens.raters[rater]
            n = len(c.get(f"/r/{token}/list").text.split('class="is-todo"')) - 1
            for position in range(1, n + 1):
                _, sid, case, fields = page(c, token, position)
                value = 1 + (position + int(rater[-1])) % 5
                jobs.append((rater, token, position, sid, case, dict.fromkeys(fields, value)))

    def send(job):
        _, token, position, sid, case, scores = job
        with client(server) as c:
            return post(c, token, position, sid, case, scores).status_code

    with ThreadPoolExecutor(len(jobs)) as pool:
        assert list(pool.map(send, jobs)) == [303] * len(jobs)
    with client(server) as c:
        rows = export(c, tokens.admin)
        for rater, _, _, _, case, scores in jobs:
            mine = {f"s:{row[1]}:{row[3]}": int(row[4]) for row in rows if row[2] == rater and row[0] == case}
            assert mine == scores
        admin = c.get(f"/admin/{tokens.admin}").text
        assert "rater-4" in admin and "rater-5" in admin


def test_pages_escape_item_text_hide_models_and_send_security_headers(served):
    server, tokens = served
    with client(server) as c:
        htmls = []
        for rater in ("rater-1", "rater-2", "rater-3"):
            token = tokens.raters[rater]
            n = len(c.get(f"/r/{token}/list").text.split("<li class=")) - 1
            htmls += [c.get(f"/r/{token}/{p}") for p in range(1, n + 1)]
        marked = [r.text for r in htmls if "WTD/test/WTD-001" in r.text]
        assert marked, "the item with markup is in one of these lists"
        for text in marked:
            assert "<script>window.__xss" not in text and "<img src=x" not in text and "<i>不合适" not in text
            assert "&lt;script&gt;window.__xss = 1&lt;/script&gt;" in text
        for r in htmls:
            assert not any(m in r.text for m in MODELS)  # blinded
            assert "script-src 'self'" in r.headers["content-security-policy"]
            assert r.headers["referrer-policy"] == "no-referrer" and r.headers["cache-control"] == "no-store"
        unblinded = export(c, tokens.admin, unblind=True)
        assert {row[5] for row in unblinded} == set(MODELS)
        assert {row[5] for row in export(c, tokens.admin)} == {""}


def test_token_guessing_is_rate_limited(tmp_path):
    db, tokens = make_study(tmp_path, n=2, raters=1, per_item=1)
    token = tokens.raters["rater-1"]
    with rater_server(db, "--failure-limit", "3", "--failure-window", "600") as server, client(server) as c:
        for _ in range(5):
            assert c.get(f"/r/{token}/1").status_code == 200  # valid links never count
        assert [c.get(f"/r/guess{k}").status_code for k in range(3)] == [404, 404, 404]
        assert c.get("/admin/guess").status_code == 429
        blocked = c.get(f"/r/{token}/1")
        assert blocked.status_code == 429 and int(blocked.headers["retry-after"]) > 500


def test_a_client_dropping_mid_request_logs_no_traceback(tmp_path):
    # Issue 20: a rater closing the tab while a form was being sent logged "Exception in ASGI application" and a
    # traceback (starlette's ClientDisconnect) on the server's console.
    db, tokens = make_study(tmp_path, n=2, raters=1, per_item=1)
    token = tokens.raters["rater-1"]
    server = RaterServer(db)
    server.start()
    try:
        with client(server) as c:
            _, sid, case, _ = page(c, token, 1)
        body = f"sid={sid}&case={case}&comment=".encode()
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
            s.sendall(f"POST /r/{token}/1 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded"
                      f"\r\nContent-Length: {len(body) + 5000}\r\n\r\n".encode() + body)
            # A request on another connection, answered while this one waits for the rest of its body.
            with client(server) as c:
                assert c.get("/health").status_code == 200
        # the connection is closed here, 5000 bytes short
        with client(server) as c:
            assert c.get("/health").status_code == 200
            _, _, case_again, _ = page(c, token, 1)  # still serving, nothing stored
            assert case_again == case
    finally:
        server.stop()
    assert "Traceback" not in server.log and "Exception in ASGI application" not in server.log, server.log
