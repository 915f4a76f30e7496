"""Keyword lists and free text."""

from __future__ import annotations

import re

from climedbench.extract.base import Extraction, Pipeline, Rule, run_rules
from climedbench.extract.clean import clean_response, strip_reasoning

_KW_MARKER = re.compile(r"(?:关键词|关键字|key\s*words?)\s*(?:是|为|如下|包括|有)?\s*[:：]?", re.I)
# Separators from strongest to weakest: a list written with '；' keeps 'PI3K/Akt' and 'db/db' whole.
_KW_SEPARATORS = (r"[;；\n]+", r"[,，、|]+", r"[/]+|\s+")


def split_keyword_list(text: str) -> list[str]:
    """A keyword list split on the strongest separator it uses ('；' over '，、' over '/' and spaces)."""
    for sep in _KW_SEPARATORS:
        parts = [p.strip() for p in re.split(sep, text)]
        parts = [p for p in parts if p]
        if len(parts) > 1:
            return parts
    return [text.strip()] if text.strip() else []


def _clean_keyword(k: str) -> str:
    k = re.sub(r"^\s*(?:\d+|[一二三四五六七八九十]+)\s*[.、)）:]\s*", "", k)
    k = k.strip(" \t\"'“”‘’「」『』《》【】[]()（）*-•·.。:：")
    return k


def _unterminated(text: str | None) -> Extraction | None:
    return Extraction(None, "unterminated_reasoning") if text is None else None


def _keyword_marker(text: str | None) -> Extraction | None:
    """A '关键词：a；b；c' line, or a list under a marker on its own line."""
    for m in _KW_MARKER.finditer(text or ""):
        rest = (text or "")[m.end():]
        line = rest.split("\n", 1)[0]
        if not line.strip() and "\n" in rest:  # marker on its own line, list below
            block = re.split(r"\n\s*\n", rest.strip(), maxsplit=1)[0]
            parts = [_clean_keyword(x) for x in block.split("\n")]
        else:
            line = re.split(r"[。]|(?:理由|原因|解释|说明)\s*[:：]", line, maxsplit=1)[0]
            parts = [_clean_keyword(x) for x in split_keyword_list(line)]
        words = [p for p in parts if p and len(p) <= 20]
        if words:
            return Extraction(words, "keyword_marker")
    return None


def _keyword_list(text: str | None) -> Extraction | None:
    """A short numbered or bulleted list of two or more items."""
    items = re.findall(r"(?m)^\s*(?:\d+[.、)]|[-*•])\s*([^\n:：。,，]{1,15})\s*(?:[:：。,，]|$)", text or "")
    if len(items) >= 2:
        return Extraction([_clean_keyword(i) for i in items if _clean_keyword(i)], "keyword_list")
    return None


# The rules of keyword answers, in order (the reading is the cleaned response, None when reasoning is left open).
KEYWORD_RULES: tuple[Rule[str | None], ...] = (
    Rule("unterminated_reasoning", _unterminated, "guard"),
    Rule("keyword_marker", _keyword_marker, "stated"),
    Rule("keyword_list", _keyword_list, "flexible"),
)


def extract_keywords(response: str, pipeline: Pipeline = "flexible") -> Extraction:
    """Keywords from a '关键词：a；b；c' line or a short list (`KEYWORD_RULES`)."""
    return run_rules(KEYWORD_RULES, clean_response(response), pipeline, Extraction(None, "no_keywords"))


def _whole_text(response: str) -> Extraction | None:
    stripped = strip_reasoning(response or "")
    if stripped is None:
        return Extraction(None, "unterminated_reasoning")
    stripped = stripped.strip()
    return Extraction(stripped or None, "text" if stripped else "empty")


# Free text has one rule: the response without reasoning blocks is the answer (so strict reads it as flexible does).
TEXT_RULES: tuple[Rule[str], ...] = (Rule("text", _whole_text, "stated"),)


def extract_text(response: str, pipeline: Pipeline = "flexible") -> Extraction:
    """The response without reasoning blocks (for similarity-scored free text)."""
    return run_rules(TEXT_RULES, response, pipeline, Extraction(None, "empty"))
