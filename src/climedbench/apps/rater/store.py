"""The study's SQLite file: design, tokens (hashed), ratings, comments; every write one short transaction.

Durability: WAL journal with `synchronous=FULL`, so a submission is on disk when its transaction commits and
the web app only then redirects to the next case: killing the server (even SIGKILL) loses nothing already
submitted. Writers take the lock with BEGIN IMMEDIATE and wait up to `busy_timeout`; a submission holds it
for a few milliseconds, so concurrent raters do not block each other in practice, and each rater's rows are
keyed by the rater, so no one overwrites anyone else.

Idempotency: every rendered form carries a submission id; the first time an id arrives its ratings are
stored, any later arrival of the same id (a double click, a browser retry, a stale tab) changes nothing.
A rater who revises a case submits a new form: that submission replaces the rater's ratings of the case.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import secrets
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from climedbench.apps.rater.design import CaseContent, Source, StudyPlan
from climedbench.apps.rater.rubric import Rubric
from climedbench.core.types import Rating
from climedbench.errors import ConfigError, DataError

SCHEMA_VERSION = "1"
MAX_COMMENT = 4000
SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE raters (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, token_hash TEXT NOT NULL);
CREATE TABLE cases (id INTEGER PRIMARY KEY, uid TEXT NOT NULL UNIQUE, task TEXT NOT NULL, content TEXT NOT NULL);
CREATE TABLE answers (
    case_id INTEGER NOT NULL REFERENCES cases(id), number INTEGER NOT NULL, model TEXT NOT NULL,
    run TEXT NOT NULL, text TEXT NOT NULL, auto_score REAL, PRIMARY KEY (case_id, number));
CREATE TABLE assignments (
    rater_id INTEGER NOT NULL REFERENCES raters(id), position INTEGER NOT NULL,
    case_id INTEGER NOT NULL REFERENCES cases(id), answer_order TEXT NOT NULL, done_at TEXT,
    PRIMARY KEY (rater_id, position), UNIQUE (rater_id, case_id));
CREATE TABLE ratings (
    rater_id INTEGER NOT NULL, case_id INTEGER NOT NULL, answer INTEGER NOT NULL, aspect TEXT NOT NULL,
    score INTEGER NOT NULL, rated_at TEXT NOT NULL, submission TEXT NOT NULL,
    PRIMARY KEY (rater_id, case_id, answer, aspect),
    FOREIGN KEY (rater_id, case_id) REFERENCES assignments(rater_id, case_id));
CREATE TABLE notes (
    rater_id INTEGER NOT NULL, case_id INTEGER NOT NULL, comment TEXT NOT NULL, flagged INTEGER NOT NULL,
    noted_at TEXT NOT NULL, PRIMARY KEY (rater_id, case_id),
    FOREIGN KEY (rater_id, case_id) REFERENCES assignments(rater_id, case_id));
CREATE TABLE submissions (id TEXT PRIMARY KEY, rater_id INTEGER NOT NULL, case_id INTEGER NOT NULL,
    received_at TEXT NOT NULL);
"""


class Rejected(Exception):
    """A request the store refuses (nothing was changed): an HTTP status and a message for the rater."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class Study(BaseModel):
    """The study as recorded at creation (everything but cases and assignments)."""

    title: str
    lang: str
    rubric: Rubric
    raters: list[str]
    per_item: int
    seed: int
    source: Source
    drawn: dict[str, tuple[int, int]] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)
    created_at: str
    climedbench_version: str | None = None


class Tokens(BaseModel):
    """The secrets of a new study, shown once: one per rater and the admin's."""

    raters: dict[str, str]
    admin: str


class RaterRef(BaseModel):
    id: int
    name: str


class Slot(BaseModel):
    """One case in a rater's list."""

    position: int
    uid: str
    task: str
    done: bool


class ShownAnswer(BaseModel):
    """An answer as a rater sees it: a neutral label by position, its number (the form key) and its text."""

    label: str
    number: int
    text: str


class CaseView(BaseModel):
    """Everything the rating page of one case shows to one rater."""

    position: int
    total: int
    done_count: int
    case_id: int
    done: bool
    content: CaseContent
    answers: list[ShownAnswer]
    scores: dict[str, int] = Field(default_factory=dict)  # "number:aspect" → score already given
    comment: str = ""
    flagged: bool = False


class Submission(BaseModel):
    """One submitted page: scores by (answer number, aspect key), a comment and a problem flag."""

    id: str
    scores: dict[tuple[int, str], int]
    comment: str = ""
    flagged: bool = False


class RaterProgress(BaseModel):
    name: str
    assigned: int
    done: int
    flagged: int
    last: str | None = None


class NoteRow(BaseModel):
    item: str
    task: str
    rater: str
    flagged: bool
    comment: str
    time: str


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def token_hash(token: str) -> str:
    """Tokens carry 256 random bits, so one SHA-256 is enough to keep them out of the file."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(32)


def answer_label(position: int) -> str:
    """A, B, …, Z, AA, AB, …"""
    label = ""
    position += 1
    while position:
        position, rem = divmod(position - 1, 26)
        label = chr(65 + rem) + label
    return label


class Store:
    """One study file."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise ConfigError(f"{self.path}: no such rating database (make one with `climedbench rate create`)")
        try:
            with self._connect() as con:
                row = con.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        except sqlite3.DatabaseError as e:
            raise DataError(f"{self.path}: not a climedbench rating database ({e})") from e
        if row is None or row[0] != SCHEMA_VERSION:
            raise DataError(f"{self.path}: not a climedbench rating database of schema {SCHEMA_VERSION}")
        self._study: Study | None = None

    # -- connections ---------------------------------------------------------------------------

    @contextlib.contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        con = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
        try:
            con.execute("PRAGMA foreign_keys = ON")
            con.execute("PRAGMA synchronous = FULL")
            con.execute("PRAGMA busy_timeout = 30000")
            yield con
        finally:
            con.close()

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """A write transaction: all of it is committed (and on disk), or none of it."""
        with self._connect() as con:
            con.execute("BEGIN IMMEDIATE")
            try:
                yield con
            except BaseException:
                con.execute("ROLLBACK")
                raise
            con.execute("COMMIT")

    # -- study ---------------------------------------------------------------------------------

    def study(self) -> Study:
        if self._study is None:
            with self._connect() as con:
                row = con.execute("SELECT value FROM meta WHERE key = 'study'").fetchone()
            try:
                self._study = Study.model_validate_json(row[0])
            except (TypeError, ValidationError) as e:
                raise DataError(f"{self.path}: the study record is unreadable ({e})") from e
        return self._study

    def form_key(self) -> bytes:
        with self._connect() as con:
            return bytes.fromhex(con.execute("SELECT value FROM meta WHERE key = 'form_key'").fetchone()[0])

    # -- tokens --------------------------------------------------------------------------------

    def rater_by_token(self, token: str) -> RaterRef | None:
        """The rater whose token this is; every stored hash is compared in constant time."""
        digest = token_hash(token)
        with self._connect() as con:
            rows = con.execute("SELECT id, name, token_hash FROM raters").fetchall()
        found: RaterRef | None = None
        for rid, name, stored in rows:
            if hmac.compare_digest(stored, digest):
                found = RaterRef(id=rid, name=name)
        return found

    def is_admin(self, token: str) -> bool:
        with self._connect() as con:
            stored = con.execute("SELECT value FROM meta WHERE key = 'admin_hash'").fetchone()[0]
        return hmac.compare_digest(stored, token_hash(token))

    def reissue(self, rater: str | None) -> str:
        """A new token for a rater (or, with None, the admin); the old one stops working at once."""
        token = new_token()
        with self._write() as con:
            if rater is None:
                con.execute("UPDATE meta SET value = ? WHERE key = 'admin_hash'", (token_hash(token),))
            else:
                cur = con.execute("UPDATE raters SET token_hash = ? WHERE name = ?", (token_hash(token), rater))
                if cur.rowcount != 1:
                    names = [r[0] for r in con.execute("SELECT name FROM raters ORDER BY id")]
                    raise ConfigError(f"no rater {rater!r} in {self.path}; raters: {', '.join(names)}")
        return token

    # -- a rater's work ------------------------------------------------------------------------

    def slots(self, rater_id: int) -> list[Slot]:
        with self._connect() as con:
            rows = con.execute(
                "SELECT a.position, c.uid, c.task, a.done_at IS NOT NULL FROM assignments a "
                "JOIN cases c ON c.id = a.case_id WHERE a.rater_id = ? ORDER BY a.position", (rater_id,)).fetchall()
        return [Slot(position=p, uid=u, task=t, done=bool(d)) for p, u, t, d in rows]

    def next_position(self, rater_id: int, after: int = 0) -> int | None:
        """The first case not yet done after `after` (wrapping round), or None when all are done."""
        todo = [s.position for s in self.slots(rater_id) if not s.done]
        if not todo:
            return None
        later = [p for p in todo if p > after]
        return later[0] if later else todo[0]

    def case_view(self, rater_id: int, position: int) -> CaseView:
        with self._connect() as con:
            row = con.execute(
                "SELECT a.case_id, a.answer_order, a.done_at, c.content FROM assignments a "
                "JOIN cases c ON c.id = a.case_id WHERE a.rater_id = ? AND a.position = ?",
                (rater_id, position)).fetchone()
            if row is None:
                raise Rejected(404, "No such case in your list.")
            case_id, order_json, done_at, content_json = row
            total, done_count = con.execute(
                "SELECT COUNT(*), COUNT(done_at) FROM assignments WHERE rater_id = ?", (rater_id,)).fetchone()
            texts = dict(con.execute("SELECT number, text FROM answers WHERE case_id = ?", (case_id,)).fetchall())
            scores = {f"{n}:{a}": s for n, a, s in con.execute(
                "SELECT answer, aspect, score FROM ratings WHERE rater_id = ? AND case_id = ?", (rater_id, case_id))}
            note = con.execute("SELECT comment, flagged FROM notes WHERE rater_id = ? AND case_id = ?",
                               (rater_id, case_id)).fetchone()
        order = json.loads(order_json)
        shown = [ShownAnswer(label=answer_label(k), number=n, text=texts[n]) for k, n in enumerate(order)]
        return CaseView(position=position, total=total, done_count=done_count, case_id=case_id,
                        done=done_at is not None, content=CaseContent.model_validate_json(content_json),
                        answers=shown, scores=scores, comment=note[0] if note else "",
                        flagged=bool(note[1]) if note else False)

    def submit(self, rater_id: int, position: int, sub: Submission) -> bool:
        """Store one page's ratings in one transaction; False when this submission id was already stored
        (nothing changes). A Rejected error (and no change) for a case not in the rater's list, an unknown
        answer or aspect, a score off the scale, or missing scores on an unflagged case."""
        rubric = self.study().rubric
        if len(sub.comment) > MAX_COMMENT:
            raise Rejected(400, f"the comment is longer than {MAX_COMMENT} characters")
        if "\x00" in sub.comment:  # invisible, and cut short by C-string readers of the exports
            raise Rejected(400, "the comment contains a NUL character (\\x00); remove it and save again")
        stamp = now()
        with self._write() as con:
            row = con.execute("SELECT case_id, answer_order FROM assignments WHERE rater_id = ? AND position = ?",
                              (rater_id, position)).fetchone()
            if row is None:
                raise Rejected(404, "No such case in your list.")
            case_id, order_json = row
            numbers = set(json.loads(order_json)) if rubric.target == "answer" else {0}
            for (number, key), score in sub.scores.items():
                aspect = rubric.aspect(key)
                if aspect is None:
                    raise Rejected(400, f"unknown aspect {key!r}")
                if number not in numbers:
                    raise Rejected(400, f"answer {number} is not part of this case")
                if score not in aspect.values:
                    raise Rejected(400, f"{key}: {score} is not on the scale {aspect.low}–{aspect.high}")
            missing = [f"{a.key}" for n in sorted(numbers) for a in rubric.aspects if (n, a.key) not in sub.scores]
            if missing and not sub.flagged:
                raise Rejected(400, f"{len(missing)} score(s) missing ({', '.join(sorted(set(missing)))}); rate every "
                                    "aspect, or flag the case as a problem")
            try:
                con.execute("INSERT INTO submissions (id, rater_id, case_id, received_at) VALUES (?, ?, ?, ?)",
                            (sub.id, rater_id, case_id, stamp))
            except sqlite3.IntegrityError:
                return False  # the same form again: already stored
            con.execute("DELETE FROM ratings WHERE rater_id = ? AND case_id = ?", (rater_id, case_id))
            con.executemany(
                "INSERT INTO ratings (rater_id, case_id, answer, aspect, score, rated_at, submission) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(rater_id, case_id, n, key, s, stamp, sub.id) for (n, key), s in sorted(sub.scores.items())])
            con.execute("INSERT INTO notes (rater_id, case_id, comment, flagged, noted_at) VALUES (?, ?, ?, ?, ?) "
                        "ON CONFLICT (rater_id, case_id) DO UPDATE SET comment = excluded.comment, "
                        "flagged = excluded.flagged, noted_at = excluded.noted_at",
                        (rater_id, case_id, sub.comment, int(sub.flagged), stamp))
            con.execute("UPDATE assignments SET done_at = ? WHERE rater_id = ? AND case_id = ?",
                        (stamp, rater_id, case_id))
        return True

    # -- assignments after creation (a third rater on disagreement) ------------------------------

    def assignments(self) -> list[tuple[str, str, bool]]:
        """(case uid, rater name, done) of every assignment, by case and then in the order they were made (a rater
        added later comes after the study's own)."""
        with self._connect() as con:
            rows = con.execute(
                "SELECT c.uid, r.name, a.done_at IS NOT NULL FROM assignments a JOIN cases c ON c.id = a.case_id "
                "JOIN raters r ON r.id = a.rater_id ORDER BY c.id, a.rowid").fetchall()
        return [(uid, name, bool(done)) for uid, name, done in rows]

    def add_assignment(self, uid: str, rater: str) -> bool:
        """Give the case `uid` to `rater` as well, at the end of their list (their link shows it at once; answers,
        if any, in the case's neutral order); False when that rater has it already. A ConfigError for an
        unknown case or rater."""
        with self._write() as con:
            case = con.execute("SELECT id FROM cases WHERE uid = ?", (uid,)).fetchone()
            rid = con.execute("SELECT id FROM raters WHERE name = ?", (rater,)).fetchone()
            if case is None or rid is None:
                raise ConfigError(f"{self.path}: no {'case' if case is None else 'rater'} "
                                  f"{uid if case is None else rater!r} in this study")
            if con.execute("SELECT 1 FROM assignments WHERE rater_id = ? AND case_id = ?",
                           (rid[0], case[0])).fetchone():
                return False
            numbers = [n for (n,) in con.execute("SELECT number FROM answers WHERE case_id = ? ORDER BY number",
                                                 (case[0],))]
            last = con.execute("SELECT COALESCE(MAX(position), 0) FROM assignments WHERE rater_id = ?",
                               (rid[0],)).fetchone()[0]
            con.execute("INSERT INTO assignments (rater_id, position, case_id, answer_order) VALUES (?, ?, ?, ?)",
                        (rid[0], last + 1, case[0], json.dumps(numbers)))
        return True

    # -- the admin's view ----------------------------------------------------------------------

    def progress(self) -> list[RaterProgress]:
        with self._connect() as con:
            rows = con.execute(
                "SELECT r.name, COUNT(a.case_id), COUNT(a.done_at), MAX(a.done_at), "
                "(SELECT COUNT(*) FROM notes n WHERE n.rater_id = r.id AND n.flagged) "
                "FROM raters r LEFT JOIN assignments a ON a.rater_id = r.id GROUP BY r.id ORDER BY r.id").fetchall()
        return [RaterProgress(name=n, assigned=k, done=d, last=last, flagged=f) for n, k, d, last, f in rows]

    def ratings(self, unblind: bool = False) -> list[Rating]:
        """Every stored rating, by rater, their case order, answer and the rubric's aspect order; `model` only
        when unblinded."""
        rubric = self.study().rubric
        order = {a.key: k for k, a in enumerate(rubric.aspects)}
        with self._connect() as con:
            rows = con.execute(
                "SELECT r.id, a.position, c.uid, c.task, x.answer, r.name, x.aspect, x.score, x.rated_at, m.model "
                "FROM ratings x JOIN raters r ON r.id = x.rater_id JOIN cases c ON c.id = x.case_id "
                "JOIN assignments a ON a.rater_id = x.rater_id AND a.case_id = x.case_id "
                "LEFT JOIN answers m ON m.case_id = x.case_id AND m.number = x.answer").fetchall()
        rows.sort(key=lambda r: (r[0], r[1], r[4], order.get(r[6], len(order)), r[6]))
        return [Rating(item=uid, task=task, answer="" if rubric.target == "item" else str(n), rater=name,
                       aspect=aspect, score=score, time=at, model=model if unblind else None)
                for _, _, uid, task, n, name, aspect, score, at, model in rows]

    def notes(self) -> list[NoteRow]:
        with self._connect() as con:
            rows = con.execute(
                "SELECT c.uid, c.task, r.name, n.flagged, n.comment, n.noted_at FROM notes n "
                "JOIN raters r ON r.id = n.rater_id JOIN cases c ON c.id = n.case_id "
                "JOIN assignments a ON a.rater_id = n.rater_id AND a.case_id = n.case_id "
                "WHERE n.flagged OR n.comment != '' ORDER BY r.id, a.position").fetchall()
        return [NoteRow(item=u, task=t, rater=r, flagged=bool(f), comment=c, time=at) for u, t, r, f, c, at in rows]

    def auto_scores(self) -> dict[tuple[str, str], float]:
        """The automatic score of every rated answer, by (model, item uid), as recorded from the runs."""
        with self._connect() as con:
            rows = con.execute("SELECT m.model, c.uid, m.auto_score FROM answers m JOIN cases c ON c.id = m.case_id "
                               "WHERE m.auto_score IS NOT NULL").fetchall()
        return {(model, uid): float(score) for model, uid, score in rows}


def create_study(path: str | Path, plan: StudyPlan, version: str | None = None) -> Tokens:
    """Write a new study file from its plan; refuses to overwrite an existing file. Returns the tokens (the
    only time they exist in clear)."""
    path = Path(path)
    if path.exists():
        raise ConfigError(f"{path} already exists; a study file is never overwritten (choose another --db)")
    path.parent.mkdir(parents=True, exist_ok=True)
    tokens = Tokens(raters={r: new_token() for r in plan.raters}, admin=new_token())
    study = Study(title=plan.title, lang=plan.lang, rubric=plan.rubric, raters=plan.raters, per_item=plan.per_item,
                  seed=plan.seed, source=plan.source, drawn=plan.drawn, notes=plan.notes, created_at=now(),
                  climedbench_version=version)
    tmp = path.with_name(f".{path.name}.creating")
    tmp.unlink(missing_ok=True)
    con = sqlite3.connect(tmp, isolation_level=None)
    try:
        con.execute("PRAGMA journal_mode = WAL")
        con.execute("PRAGMA synchronous = FULL")
        con.execute("BEGIN")
        for stmt in SCHEMA.split(";"):
            if stmt.strip():
                con.execute(stmt)
        meta = {"schema": SCHEMA_VERSION, "study": study.model_dump_json(), "admin_hash": token_hash(tokens.admin),
                "form_key": secrets.token_hex(32)}
        con.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", list(meta.items()))
        rater_ids = {}
        for name in plan.raters:
            cur = con.execute("INSERT INTO raters (name, token_hash) VALUES (?, ?)",
                              (name, token_hash(tokens.raters[name])))
            rater_ids[name] = cur.lastrowid
        case_ids = []
        for case in plan.cases:
            cur = con.execute("INSERT INTO cases (uid, task, content) VALUES (?, ?, ?)",
                              (case.content.uid, case.content.task, case.content.model_dump_json()))
            case_ids.append(cur.lastrowid)
            con.executemany(
                "INSERT INTO answers (case_id, number, model, run, text, auto_score) VALUES (?, ?, ?, ?, ?, ?)",
                [(cur.lastrowid, k, a.model, a.run, a.text, a.auto_score) for k, a in enumerate(case.answers, 1)])
        for name, rows in plan.assignments.items():
            con.executemany(
                "INSERT INTO assignments (rater_id, position, case_id, answer_order) VALUES (?, ?, ?, ?)",
                [(rater_ids[name], pos, case_ids[a.case], json.dumps(a.answer_order)) for pos, a in
                 enumerate(rows, 1)])
        con.execute("COMMIT")
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except BaseException:
        con.close()
        tmp.unlink(missing_ok=True)
        raise
    con.close()
    for suffix in ("-wal", "-shm"):
        Path(f"{tmp}{suffix}").unlink(missing_ok=True)
    tmp.rename(path)
    return tokens
