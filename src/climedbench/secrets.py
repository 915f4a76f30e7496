"""Keep API keys out of logs, files and messages: every registered secret is redacted wherever text leaves us."""

from __future__ import annotations

import logging
import os
import re

_SECRETS: set[str] = set()
# Key-like tokens a server may echo back (OpenAI-style keys, bearer tokens).
_KEYLIKE = re.compile(r"\b(sk-[A-Za-z0-9_\-]{6,}|Bearer\s+[A-Za-z0-9._\-]{8,})")


def register(secret: str | None) -> None:
    """Remember a secret value so that `redact` removes it."""
    if secret and len(secret) >= 4:
        _SECRETS.add(secret)


def redact(text: str) -> str:
    """The text with every registered secret and key-like token replaced by '***'."""
    for s in sorted(_SECRETS, key=len, reverse=True):
        text = text.replace(s, "***")
    return _KEYLIKE.sub(lambda m: m.group(0)[:3] + "***", text)


def api_key_from_env(name: str | None) -> str | None:
    """Read an API key from the named environment variable (never from the command line)."""
    if not name:
        return None
    value = os.environ.get(name)
    if value:
        value = value.strip()
        register(value)
    return value or None


class RedactingFilter(logging.Filter):
    """A logging filter that redacts secrets from every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = redact(record.getMessage())
        record.args = ()
        return True


def install_log_redaction() -> None:
    """Attach the redacting filter to the root logger's handlers."""
    root = logging.getLogger()
    for h in root.handlers:
        if not any(isinstance(f, RedactingFilter) for f in h.filters):
            h.addFilter(RedactingFilter())
