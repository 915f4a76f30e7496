"""Label answers (yes/no/maybe, relation types, document classes): one label, or a set of labels."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from functools import cached_property

from climedbench.extract.base import Extraction, Pipeline, Rule, run_rules
from climedbench.extract.clean import clean_response

_LABEL_MARKER = re.compile(
    r"(?:final answer|the (?:correct |final |best )?answer(?: to (?:the|this) question)? (?:is|would be|should be)|"
    r"answer\s*[:：=]|"
    r"the (?:correct )?(?:label|category|class|relation(?: type)?) (?:is|would be)|label\s*[:：=]|"
    r"(?:relation|category|class)\s*[:：=]|最终答案|答案(?:是|为)?\s*[:：]?|结论(?:是|为)?\s*[:：]?)\s*",
    re.I,
)
_LABEL_HEDGE = re.compile(r"\b(?:cannot (?:determine|be determined|say)|unclear|not sure|insufficient information|"
                          r"it depends|depends on|yes and no|"
                          r"(?:results|findings|evidence) (?:are|is|were|was) mixed)\b|"
                          r"无法确定|不能确定|视情况而定|取决于", re.I)
# A Chinese yes/no right after an answer marker ("答案：是", "答案：否。").
_ZH_YES_NO = re.compile(r"\s*(是|否|不是)(?=[\s。，,.!！;；]|$)")
_LABEL_CORRECTION = re.compile(r"(?:\bactually|\bwait|on second thought|correction|不对|更正|纠正|改为|修改为|"
                               r"\b(?:revise|change|update|amend)(?: my)?(?: final)? answer to)\s*[,，:：—–\-]*\s*",
                               re.I)
# A concluding statement ("In conclusion, no, …", "Therefore, yes.").
_CONCLUSION = re.compile(r"(?:in conclusion|in summary|therefore|thus|overall|综上|因此|所以)\s*[,，:：]?\s*", re.I)


def _label_pattern(label: str) -> re.Pattern[str]:
    """A label written with any spacing, hyphens or underscores; short all-capital aliases ('PS', 'TPI') match
    only in capitals, so that 'id' or 'cd' inside prose do not."""
    words = r"[\s_\-]+".join(re.escape(w) for w in re.split(r"[\s_\-]+", label.strip()) if w)
    flags = 0 if (label.isupper() and len(label) <= 4) else re.I
    return re.compile(rf"(?<![A-Za-z0-9]){words}(?![A-Za-z0-9])", flags)


def _labels_at(text: str, labels: tuple[str, ...], aliases: dict[str, tuple[str, ...]] | None = None
               ) -> list[tuple[int, str]]:
    """(position, label) of every mention of a label or one of its aliases, longer names first where two
    overlap."""
    names = [(lab, lab) for lab in labels] + [(a, lab) for lab in labels for a in (aliases or {}).get(lab, ())]
    found: list[tuple[int, int, str]] = []
    for name, lab in sorted(names, key=lambda x: len(x[0]), reverse=True):
        for m in _label_pattern(name).finditer(text):
            if not any(s <= m.start() < e for s, e, _ in found):
                found.append((m.start(), m.end(), lab))
    return sorted((s, lab) for s, _, lab in found)


@dataclass
class LabelReading:
    """A label response prepared once for the rules: the cleaned text and every mention of a label in it."""

    response: str
    labels: tuple[str, ...]
    aliases: dict[str, tuple[str, ...]] | None
    cleaned: str | None = field(init=False)

    def __post_init__(self) -> None:
        self.cleaned = clean_response(self.response)

    @property
    def text(self) -> str:
        return self.cleaned or ""

    @cached_property
    def mentions(self) -> list[tuple[int, str]]:
        return _labels_at(self.text, self.labels, self.aliases)

    @property
    def yes_no(self) -> bool:
        return {"yes", "no"} <= {lab.lower() for lab in self.labels}

    def named(self, word: str) -> str:
        """The label that is `word` ('yes' or 'no'), in the label set's spelling."""
        return next(lab for lab in self.labels if lab.lower() == word)


def _unterminated(r: LabelReading) -> Extraction | None:
    return Extraction(None, "unterminated_reasoning") if r.cleaned is None else None


def _empty(r: LabelReading) -> Extraction | None:
    return Extraction(None, "empty") if not r.text.strip() else None


def _correction(r: LabelReading) -> Extraction | None:
    """A correction names the answer: "No, I don't think so. Actually — yes."."""
    corrected = [lab for c in _LABEL_CORRECTION.finditer(r.text) for pos, lab in r.mentions
                 if c.end() <= pos <= c.end() + 3]
    return Extraction(corrected[-1], "label_correction") if corrected else None


def _contradiction(r: LabelReading) -> Extraction | None:
    """Two answer statements that disagree with no correction between them ("Answer: yes\nAnswer: no")."""
    stated = []
    for m in _LABEL_MARKER.finditer(r.text):
        near = [lab for pos, lab in r.mentions if m.end() <= pos <= m.end() + 3]
        if near:
            stated.append((m.start(), near[0]))
    for (p1, a), (p2, b) in itertools.pairwise(stated):
        if a != b and not _LABEL_CORRECTION.search(r.text, p1, p2 + 20):
            return Extraction(None, "inconsistent")
    return None


def _marker(r: LabelReading) -> Extraction | None:
    """The label right after the last answer marker that has one ("The answer is no", "答案：是")."""
    text = r.text
    for m in reversed(list(_LABEL_MARKER.finditer(text))):
        # "The correct answer is B) no": an option letter may stand before the label.
        letter = re.match(r"\s*(?:\(?[A-Z][).:]\s*)?", text[m.end():])
        start = m.end() + (len(letter.group(0)) if letter else 0)
        after = [lab for pos, lab in r.mentions if m.end() <= pos <= start + 3]
        if after:
            return Extraction(after[0], "label_marker")
        zh = _ZH_YES_NO.match(text, m.end())
        if zh and r.yes_no:
            return Extraction(r.named("yes" if zh.group(1) == "是" else "no"), "label_marker")
    return None


def _opening_hedge(r: LabelReading) -> Extraction | None:
    """"Yes and no — it depends on the timing.": a hedge in the first sentence."""
    opening = r.text.strip()[:120]
    if _LABEL_HEDGE.search(re.split(r"(?<=[.。!?！？])\s", opening, maxsplit=1)[0]):
        return Extraction(None, "hedge")
    return None


def _leading(r: LabelReading) -> Extraction | None:
    """The response opens with its label ("是的，两者存在相互作用。", "No. …"), unless a conclusion names another."""
    text = r.text
    zh = re.match(r"\s*(是的|是|否|不是)(?=[\s。，,.!！;；]|$)", text)
    if zh and r.yes_no:
        return Extraction(r.named("yes" if zh.group(1).startswith("是") else "no"), "leading_label")
    lead = [lab for pos, lab in r.mentions if pos <= len(text) - len(text.lstrip()) + 2]
    if lead:
        # A conclusion that names a different label contradicts the opening one ("Yes. … In conclusion, no").
        concluded = [lab for c in _CONCLUSION.finditer(text) for pos, lab in r.mentions
                     if c.end() <= pos <= c.end() + 2]
        if concluded and concluded[-1] != lead[0]:
            return Extraction(None, "inconsistent")
        return Extraction(lead[0], "leading_label")
    return None


def _last_line(r: LabelReading) -> Extraction | None:
    """A label alone on the last line ("…a well-documented interaction.\n\n**yes**")."""
    text = r.text
    last = text.strip().rsplit("\n", 1)[-1].strip(" \t.。!！*")
    on_last = [lab for pos, lab in r.mentions if pos >= len(text.rstrip()) - len(last) - 4]
    if on_last and _labels_at(last, r.labels, r.aliases) and len(last) <= len(on_last[-1]) + 2:
        return Extraction(on_last[-1], "last_line_label")
    return None


def _only_label(r: LabelReading) -> Extraction | None:
    """The only label the response names, with no hedge."""
    distinct = {lab for _, lab in r.mentions}
    if len(distinct) == 1 and not _LABEL_HEDGE.search(r.text):
        return Extraction(distinct.pop(), "only_label")
    return None


def _no_label(r: LabelReading) -> Extraction:
    return Extraction(None, "hedge" if r.mentions else "no_label")


# The rules of one-label answers, in order (tests/test_extract_rules.py pins it); `no_label` always decides: a hedge
# when several labels are named, no_label when none is.
LABEL_RULES: tuple[Rule[LabelReading], ...] = (
    Rule("unterminated_reasoning", _unterminated, "guard"),
    Rule("empty", _empty, "guard"),
    Rule("label_correction", _correction, "stated"),
    Rule("self_contradiction", _contradiction, "guard"),
    Rule("label_marker", _marker, "stated"),
    Rule("opening_hedge", _opening_hedge, "guard"),
    Rule("leading_label", _leading, "stated"),
    Rule("last_line_label", _last_line, "flexible"),
    Rule("only_label", _only_label, "flexible"),
    Rule("no_label", _no_label, "guard"),
)


def extract_label(response: str, labels: tuple[str, ...], aliases: dict[str, tuple[str, ...]] | None = None,
                  pipeline: Pipeline = "flexible") -> Extraction:
    """One label: the one right after the last answer marker, else a label opening the response, else (flexible)
    a label alone on the last line or the only label the response names (`LABEL_RULES`)."""
    return run_rules(LABEL_RULES, LabelReading(response, labels, aliases), pipeline, Extraction(None, "no_label"))


def _region(r: LabelReading) -> tuple[bool, str]:
    """Whether an answer marker is present, and the text after the last one (the whole text without one)."""
    markers = list(_LABEL_MARKER.finditer(r.text))
    return bool(markers), r.text[markers[-1].end():] if markers else r.text


def _named_after_marker(r: LabelReading) -> Extraction | None:
    marked, region = _region(r)
    named = sorted({lab for _, lab in _labels_at(region, r.labels, r.aliases)}) if marked else []
    return Extraction(named, "labels_marker") if named else None


def _named_anywhere(r: LabelReading) -> Extraction | None:
    marked, region = _region(r)
    named = [] if marked else sorted({lab for _, lab in _labels_at(region, r.labels, r.aliases)})
    return Extraction(named, "labels") if named else None


def _labels_none(r: LabelReading) -> Extraction | None:
    """An explicit 'none' is the empty set."""
    _, region = _region(r)
    if re.match(r"\s*(?:none|no (?:label|category|class)|n/a|无)\b", region, re.I):
        return Extraction([], "labels_none")
    return None


# The rules of label-set answers, in order.
LABELS_RULES: tuple[Rule[LabelReading], ...] = (
    Rule("unterminated_reasoning", _unterminated, "guard"),
    Rule("empty", _empty, "guard"),
    Rule("labels_marker", _named_after_marker, "stated"),
    Rule("labels", _named_anywhere, "flexible"),
    Rule("labels_none", _labels_none, "stated"),
)


def extract_labels(response: str, labels: tuple[str, ...], aliases: dict[str, tuple[str, ...]] | None = None,
                   pipeline: Pipeline = "flexible") -> Extraction:
    """A set of labels (multi-label classification): every label the answer names, after the last answer
    marker when there is one; an explicit 'none' is the empty set (`LABELS_RULES`)."""
    return run_rules(LABELS_RULES, LabelReading(response, labels, aliases), pipeline, Extraction(None, "no_label"))
