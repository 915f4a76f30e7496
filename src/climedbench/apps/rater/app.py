"""The rating web app (Starlette + Jinja2): a page per case for each rater, an admin page, CSV exports.

- Each rater's personal link is `/r/TOKEN`; it opens their first case not yet rated (resume), and every page
  shows their progress. The admin link `/admin/TOKEN` shows progress per rater, flagged items, exports.
- A form is posted to the case's own URL with a submission id signed for (rater, case): a forged or
  cross-site form is refused, and a repeated id (double click, retry) stores nothing twice. The ratings are
  committed before the browser is redirected to the next case.
- Unknown tokens answer 404; a client with too many of them in a time window gets 429 until it has passed.
- A comment holding a NUL character is refused (400); a client that disconnects mid-request is no error.
- Every text is escaped (Jinja2 autoescape); the Content-Security-Policy allows only this app's own script
  and style, so markup inside an EHR cannot run; pages are not cached and send no Referer (links hold tokens).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData, MutableHeaders
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from climedbench.apps.rater.export import notes_csv, ratings_csv
from climedbench.apps.rater.store import MAX_COMMENT, RaterRef, Rejected, Store, Submission
from climedbench.errors import ConfigError

HERE = Path(__file__).parent
HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
                               "form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "progress": "rated", "case": "Case", "reference": "Reference answer", "key": "Answer key",
        "answer": "Answer", "item": "The item", "comment": "Comment (optional)",
        "flag": "Flag a problem with this item",
        "save": "Save and next", "saved": "saved", "prev": "Previous", "next": "Next", "list": "All my cases",
        "done_title": "All done — thank you!", "done_text": "Every case in your list is rated. You can still open any "
        "case to change your ratings.", "keys": "Keys: 1–9 score the highlighted aspect · ↑ ↓ move · Enter saves · "
        "c comment · f flag", "options": "Options", "todo": "to rate", "error": "Something is wrong",
        "back": "Back", "admin": "Study administration", "rater": "Rater", "assigned": "assigned",
        "done": "done", "flagged": "flagged", "last": "last activity", "exports": "Exports",
        "ratings_blind": "ratings (blinded)", "ratings_unblind": "ratings with model names",
        "notes": "comments and flags", "notes_title": "Comments and flags", "context": "Context",
    },
    "zh": {
        "progress": "已评", "case": "病例", "reference": "参考答案", "key": "标准答案", "answer": "回答",
        "item": "题目", "comment": "备注（可选）", "flag": "标记此题有问题", "save": "保存并继续", "saved": "已保存",
        "prev": "上一个", "next": "下一个", "list": "我的全部病例", "done_title": "全部完成，谢谢！",
        "done_text": "您列表中的所有病例均已评分。您仍可打开任一病例修改评分。",
        "keys": "快捷键：1–9 为当前高亮项打分 · ↑ ↓ 切换 · Enter 保存 · c 备注 · f 标记", "options": "选项",
        "todo": "待评", "error": "出现问题", "back": "返回", "admin": "研究管理", "rater": "评分者", "assigned": "分配",
        "done": "完成", "flagged": "标记", "last": "最近活动", "exports": "导出", "ratings_blind": "评分（盲态）",
        "ratings_unblind": "评分（含模型名称）", "notes": "备注与标记", "notes_title": "备注与标记", "context": "背景",
    },
}


class FailureLimiter:
    """Failed token lookups per client in a sliding window; a client over the limit is refused until the
    oldest failure leaves the window. Valid lookups are never counted."""

    def __init__(self, limit: int = 10, window: float = 600.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.window = window
        self.clock = clock
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, client: str, now: float) -> deque[float]:
        q = self._failures.setdefault(client, deque())
        while q and q[0] <= now - self.window:
            q.popleft()
        return q

    def retry_after(self, client: str) -> int:
        """Seconds until the client may try again (0: it may now)."""
        now = self.clock()
        with self._lock:
            q = self._recent(client, now)
            if len(q) < self.limit:
                return 0
            return max(1, int(q[0] + self.window - now) + 1)

    def fail(self, client: str) -> None:
        now = self.clock()
        with self._lock:
            self._recent(client, now).append(now)
            if len(self._failures) > 10000:  # forget clients with no failure in the window: memory stays bounded
                for key in [k for k in self._failures if not self._recent(k, now)]:
                    del self._failures[key]


class HTTPError(Exception):
    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


class _Site:
    """The rating site of one study file: its pages, forms and exports (the routes of :func:`create_app`)."""

    def __init__(self, db: str | Path, failure_limit: int, failure_window: float) -> None:
        self.store = Store(db)
        study = self.store.study()
        self.form_key = self.store.form_key()
        self.limiter = FailureLimiter(failure_limit, failure_window)
        self.env = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(default=True),
                               trim_blocks=True, lstrip_blocks=True)
        lang = study.lang if study.lang in STRINGS else "en"
        self.base = {"t": STRINGS[lang], "lang": lang, "study": study, "rubric": study.rubric}

    def render(self, name: str, status: int = 200, **context: Any) -> HTMLResponse:
        html = self.env.get_template(name).render(**self.base, **context)
        return HTMLResponse(html, status_code=status)

    def client_of(self, request: Request) -> str:
        return request.client.host if request.client else "unknown"

    def check_limit(self, request: Request) -> None:
        wait = self.limiter.retry_after(self.client_of(request))
        if wait:
            raise HTTPError(429, "Too many invalid links from your address; try again later.",
                            {"Retry-After": str(wait)})

    async def rater_of(self, request: Request) -> tuple[RaterRef, str]:
        self.check_limit(request)
        token = request.path_params["token"]
        rater = await run_in_threadpool(self.store.rater_by_token, token)
        if rater is None:
            self.limiter.fail(self.client_of(request))
            raise HTTPError(404, "This rating link is not valid. Ask the study's administrator for yours.")
        return rater, token

    async def admin_of(self, request: Request) -> str:
        self.check_limit(request)
        token = request.path_params["token"]
        if not await run_in_threadpool(self.store.is_admin, token):
            self.limiter.fail(self.client_of(request))
            raise HTTPError(404, "This administration link is not valid.")
        return str(token)

    def sign(self, rater_id: int, case_id: int, nonce: str) -> str:
        msg = f"{rater_id}:{case_id}:{nonce}".encode()
        return hmac.new(self.form_key, msg, hashlib.sha256).hexdigest()[:32]

    def new_sid(self, rater_id: int, case_id: int) -> str:
        nonce = secrets.token_urlsafe(12)
        return f"{nonce}.{self.sign(rater_id, case_id, nonce)}"

    def check_sid(self, sid: str, rater_id: int, case_id: int) -> None:
        nonce, _, sig = sid.partition(".")
        if not nonce or not hmac.compare_digest(sig, self.sign(rater_id, case_id, nonce)):
            raise HTTPError(400, "This form was not issued for this case (reload the page and submit again).")

    def position_of(self, request: Request) -> int:
        raw = str(request.path_params["position"])
        if not raw.isdigit() or len(raw) > 9:
            raise HTTPError(404, "No such case in your list.")
        return int(raw)

    async def health(self, request: Request) -> Response:
        return PlainTextResponse("ok")

    async def start(self, request: Request) -> Response:
        rater, token = await self.rater_of(request)
        nxt = await run_in_threadpool(self.store.next_position, rater.id)
        return RedirectResponse(f"/r/{token}/{nxt}" if nxt else f"/r/{token}/done", 303)

    async def listing(self, request: Request) -> Response:
        rater, token = await self.rater_of(request)
        slots = await run_in_threadpool(self.store.slots, rater.id)
        done = sum(s.done for s in slots)
        return self.render("list.html", rater=rater, token=token, slots=slots, done_count=done, total=len(slots),
                      all_done=request.url.path.endswith("/done") and done == len(slots))

    async def case_page(self, request: Request) -> Response:
        rater, token = await self.rater_of(request)
        position = self.position_of(request)
        try:
            view = await run_in_threadpool(self.store.case_view, rater.id, position)
        except Rejected as e:
            raise HTTPError(e.status, e.message) from e
        return self.render("case.html", rater=rater, token=token, view=view, sid=self.new_sid(rater.id, view.case_id),
                      max_comment=MAX_COMMENT)

    async def submit(self, request: Request) -> Response:
        rater, token = await self.rater_of(request)
        position = self.position_of(request)
        form = await request.form(max_files=0, max_fields=500, max_part_size=64 * 1024)
        try:
            view = await run_in_threadpool(self.store.case_view, rater.id, position)
        except Rejected as e:
            raise HTTPError(e.status, e.message) from e
        if _one(form, "case") != view.content.uid:
            raise HTTPError(400, "The form names another case than the page it was sent to.")
        sid = _one(form, "sid")
        self.check_sid(sid, rater.id, view.case_id)
        sub = Submission(id=sid, scores=_scores(form), comment=_one(form, "comment").replace("\r\n", "\n"),
                         flagged=_one(form, "flag") in ("1", "on", "true"))
        try:
            await run_in_threadpool(self.store.submit, rater.id, position, sub)
        except Rejected as e:
            raise HTTPError(e.status, e.message) from e
        nxt = await run_in_threadpool(self.store.next_position, rater.id, position)
        return RedirectResponse(f"/r/{token}/{nxt}" if nxt else f"/r/{token}/done", 303)

    async def admin(self, request: Request) -> Response:
        token = await self.admin_of(request)
        progress = await run_in_threadpool(self.store.progress)
        notes = await run_in_threadpool(self.store.notes)
        return self.render("admin.html", token=token, progress=progress, notes=notes)

    async def export_ratings(self, request: Request) -> Response:
        await self.admin_of(request)
        unblind = request.query_params.get("unblind") == "1"
        rows = await run_in_threadpool(self.store.ratings, unblind)
        return _csv(ratings_csv(rows), "ratings-unblinded.csv" if unblind else "ratings.csv")

    async def export_notes(self, request: Request) -> Response:
        await self.admin_of(request)
        return _csv(notes_csv(await run_in_threadpool(self.store.notes)), "notes.csv")

    async def on_error(self, request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPError)
        response = self.render("error.html", status=exc.status, message=exc.message)
        response.headers.update(exc.headers)
        return response

    async def not_found(self, request: Request, exc: Exception) -> Response:
        return self.render("error.html", status=404, message="Not found.")

    async def disconnected(self, request: Request, exc: Exception) -> Response:
        # The client went away mid-request (a closed tab): nothing was stored, no one reads the answer, and it
        # is no server error to log with a traceback.
        return Response(status_code=400)


def create_app(db: str | Path, *, failure_limit: int = 10, failure_window: float = 600.0) -> Starlette:
    """The app serving one study file."""
    site = _Site(db, failure_limit, failure_window)
    routes = [
        Route("/health", site.health),
        Route("/r/{token}", site.start),
        Route("/r/{token}/list", site.listing),
        Route("/r/{token}/done", site.listing),
        Route("/r/{token}/{position}", site.case_page, methods=["GET"]),
        Route("/r/{token}/{position}", site.submit, methods=["POST"]),
        Route("/admin/{token}", site.admin),
        Route("/admin/{token}/ratings.csv", site.export_ratings),
        Route("/admin/{token}/notes.csv", site.export_notes),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={HTTPError: site.on_error, 404: site.not_found,
                                                       ClientDisconnect: site.disconnected})
    app.add_middleware(SecurityHeaders)
    return app


class SecurityHeaders:
    """Add HEADERS to every response (pages, exports, static files, errors)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for key, value in HEADERS.items():
                    headers.setdefault(key, value)
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _csv(text: str, name: str) -> Response:
    return Response(text.encode("utf-8"), media_type="text/csv; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


def _one(form: FormData, name: str) -> str:
    values = form.getlist(name)
    if len(values) > 1:
        raise HTTPError(400, f"The form field {name!r} was sent more than once.")
    value = values[0] if values else ""
    if not isinstance(value, str):
        raise HTTPError(400, f"The form field {name!r} is not text.")
    return value


def _scores(form: FormData) -> dict[tuple[int, str], int]:
    """Scores from fields named 's:ANSWER:ASPECT'; a malformed name or value is a 400."""
    out: dict[tuple[int, str], int] = {}
    for name in {k for k in form if k.startswith("s:")}:
        _, number, aspect = [*name.split(":", 2), "", ""][:3]
        value = _one(form, name)
        if not number.isdigit() or not aspect:
            raise HTTPError(400, f"Malformed score field {name!r}.")
        if not value.lstrip("-").isdigit() or len(value) > 6:
            raise HTTPError(400, f"{aspect}: {value!r} is not a score.")
        out[(int(number), aspect)] = int(value)
    return out


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on host:port (port 0: any free port); a ConfigError when it cannot be had."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as e:
        raise ConfigError(f"--host {host}: cannot resolve ({e.strerror})") from e
    family, _, _, _, address = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as e:
        sock.close()
        raise ConfigError(f"cannot listen on {host}:{port} ({e.strerror}); is another server using the port?") from e
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def serve(db: str | Path, host: str = "127.0.0.1", port: int = 8765, *, proxy_headers: bool = False,
          failure_limit: int = 10, failure_window: float = 600.0, announce: Any = print) -> None:
    """Serve the study until interrupted; `announce` gets the base URL once the socket is listening."""
    import uvicorn

    app = create_app(db, failure_limit=failure_limit, failure_window=failure_window)
    sock = bind(host, port)
    bound_host, bound_port = sock.getsockname()[:2]
    shown = f"[{bound_host}]" if ":" in str(bound_host) else bound_host
    # No access log: request lines hold the raters' tokens.
    config = uvicorn.Config(app, access_log=False, log_level="warning", proxy_headers=proxy_headers,
                            server_header=False, timeout_graceful_shutdown=5)
    announce(f"http://{shown}:{bound_port}")
    uvicorn.Server(config).run(sockets=[sock])
