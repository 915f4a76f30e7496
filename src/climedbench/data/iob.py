"""BIO (IOB) tags to mention strings: shared by loaders that read IOB files and the extractor that reads an answer
written as IOB lines."""

from __future__ import annotations

import re

# One tag: 'B', 'I', 'O', optionally with a type ('B-Disease'), any case.
BIO_TAG = re.compile(r"^(?P<bio>[BIO])(?:-(?P<type>.+))?$", re.I)


def spans(tokens: list[str], tags: list[str]) -> list[str]:
    """Mention strings of BIO tags ('B', 'I', 'O' or 'B-Disease'…); an I without a B starts a mention."""
    out: list[str] = []
    current: list[str] = []
    for token, tag in zip(tokens, tags, strict=True):
        m = BIO_TAG.match(tag.strip())
        bio = m.group("bio").upper() if m else "O"
        if bio == "B" or (bio == "I" and not current):
            if current:
                out.append(" ".join(current))
            current = [token]
        elif bio == "I":
            current.append(token)
        else:
            if current:
                out.append(" ".join(current))
            current = []
    if current:
        out.append(" ".join(current))
    return out
