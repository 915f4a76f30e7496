"""Step 4 of `climedbench build`: audit the candidate items, without a model and with a second one (LLM2).

Rules that need no model (every candidate, every time):
- inconsistency: the key is not one of the options, fewer than two options, or two options with the same text;
- leakage: the key's distinctive wording (its character bigrams — words, in English — that no other option has)
  is in the stem: at least 3 such bigrams (2 words) and at least 60% of them;
- ambiguity: two options so alike (bigram Dice ≥ 0.75, or one containing the other) that both may be defensible;
- phi: a PHI remnant in the stem or an option, found by climedbench.deid's analyzer (names, phone numbers,
  record numbers, dates, addresses …); on notes de-identified with surrogates, the options' contact details and
  identifiers (phone numbers, e-mail, record and ID numbers …);
- duplicate: a near-duplicate of an earlier item (the `audit-items` 8-character shingle Jaccard ≥ 0.5);
- cue: where an `audit-items` cue rule (longest option, agreement between options, wording shared with the
  question, a feature in one option, key position) finds the key of a scenario beyond chance, the items whose
  key that rule picks.

LLM2 (`--auditor MODEL`) reads each item and answers a JSON object constrained by a JSON schema
(`response_format`): `{"verdict": "pass"|"fail", "problems": [...kinds], "reason": "..."}`. Every request goes
through the response cache, so a re-run sends nothing. An item in which the rules found a PHI remnant is not
sent to the auditor (it may be a remote server); it is flagged anyway.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from climedbench.errors import DataError

if TYPE_CHECKING:
    from climedbench.core.types import Item
    from climedbench.deid.engine import Analyzer

KINDS = ("inconsistency", "ambiguity", "leakage", "implausible", "phi", "duplicate", "cue")
# Detections below this score are left out of the audit: the Chinese name guesser also tags words such as 查体
# (查 is a surname), and an audit flag costs a reviewer's time; cue-based names, phone numbers, IDs score higher.
PHI_MIN_SCORE = 0.8
# A cue rule marks the items whose key it picks only when it beats chance significantly (one-sided binomial),
# not on the 15-point excess alone, which a scenario of a few items reaches by luck.
CUE_P = 0.01
LEAK_MIN = 3
LEAK_MIN_WORDS = 2
LEAK_SHARE = 0.6
ALIKE = 0.75
OPTIONS_MARK = "## 选项"


@dataclass
class Candidate:
    """One candidate item as `climedbench build` writes it to `.build/candidates.jsonl` (official format plus
    provenance); `revision` counts refinements (0: as generated)."""

    id: str
    code: str
    question: str
    options: dict[str, str]
    answer: str
    provenance: dict[str, Any] = field(default_factory=dict)
    revision: int = 0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def as_item(self) -> Item:
        """The candidate as a climedbench Item (stem, then the option list, like the official input)."""
        from climedbench.core.types import Item

        listing = "\n".join(f"{k}: {v}" for k, v in self.options.items())
        return Item(id=self.id, task=self.code, input=f"{self.stem}\n{OPTIONS_MARK}: {listing}",
                    options=self.options, answer=self.answer)

    @property
    def stem(self) -> str:
        return re.split(r"##\s*(选项|备选答案|答案选项|Options)", self.question)[0].strip()


def parse_candidate(raw: Any, where: str, line: int) -> Candidate:
    """One JSON object read from a candidates file; a DataError naming the file, line and field. Two shapes: flat
    (`id, code, question, options, answer, provenance`) or as `climedbench build` writes it (`candidate_id,
    scenario, item: {official record: input with its '## 选项' section, reference}, provenance, round`)."""
    if not isinstance(raw, dict):
        raise DataError("expected a JSON object", file=where, line=line)
    if isinstance(raw.get("item"), dict):
        raw = flatten(raw, where, line)
    for name in ("id", "code", "question", "answer"):
        if not isinstance(raw.get(name), str) or not raw[name].strip():
            raise DataError("missing or not a non-empty string", file=where, line=line, field=name)
    options = raw.get("options")
    if not isinstance(options, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in options.items()):
        raise DataError("expected an object of letter → option text", file=where, line=line, field="options")
    prov = raw.get("provenance") or {}
    if not isinstance(prov, dict):
        raise DataError("expected an object", file=where, line=line, field="provenance")
    revision = raw.get("revision", 0)
    if not isinstance(revision, int) or revision < 0:
        raise DataError("expected a non-negative integer", file=where, line=line, field="revision")
    return Candidate(id=raw["id"], code=raw["code"], question=raw["question"], options=dict(options),
                     answer=raw["answer"], provenance=prov, revision=revision)


def flatten(raw: dict[str, Any], where: str, line: int) -> dict[str, Any]:
    """The flat record of a candidate written by `climedbench build` (official item nested under `item`): the
    options parsed from the input's '## 选项' section (none for items that are not single-choice)."""
    from climedbench.data.sections import parse_options, section

    item = raw["item"]
    text = item.get("input")
    if not isinstance(text, str):
        raise DataError("missing or not a string", file=where, line=line, field="item.input")
    block = section(text, "选项", "备选答案", "答案选项", "Options", "options")
    options = parse_options(block) if block else {}
    prov = dict(raw.get("provenance") or {})
    if "prompt_hash" in prov and "prompt_sha256" not in prov:
        prov["prompt_sha256"] = prov["prompt_hash"]
    return {"id": raw.get("candidate_id") or item.get("id"), "code": raw.get("task") or raw.get("scenario"),
            "question": text, "options": options, "answer": item.get("reference") or item.get("answer"),
            "provenance": prov, "revision": raw.get("revision", raw.get("round", 0))}


def read_jsonl(path: Path) -> list[tuple[int, Any]]:
    """(line number, parsed JSON) of every non-blank line; a DataError naming the file and line."""
    out = []
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise DataError(f"cannot read ({e})", file=str(path)) from e
    for n, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                out.append((n, json.loads(line)))
            except ValueError as e:
                raise DataError(f"not valid JSON ({e})", file=str(path), line=n) from e
    return out


def load_candidates(path: Path) -> list[Candidate]:
    """The candidates of a file, in order; the same id twice is an error naming both lines."""
    out: list[Candidate] = []
    seen: dict[str, int] = {}
    for n, raw in read_jsonl(path):
        c = parse_candidate(raw, str(path), n)
        if c.id in seen:
            raise DataError(f"id {c.id!r} already on line {seen[c.id]}", file=str(path), line=n, field="id")
        seen[c.id] = n
        out.append(c)
    return out


def write_jsonl(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    """Write a whole JSONL file atomically (a temporary file renamed over it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    tmp.replace(path)


@dataclass(frozen=True)
class Finding:
    """One problem with one item: its kind (KINDS), who found it (a rule or the auditor model) and why."""

    kind: str
    source: str
    detail: str


_CJK = re.compile(r"[\u4e00-\u9fff]")
_WORD = re.compile(r"[A-Za-z][A-Za-z-]{2,}")
_STOP = frozenset({"the", "and", "with", "for", "was", "were", "has", "had", "his", "her", "from", "that", "this",
                   "after", "before", "into", "acute"})


def _english(text: str) -> bool:
    return not _CJK.search(text) and bool(_WORD.search(text))


def _bigrams(text: str) -> set[str]:
    """The units compared: character bigrams of Chinese text; of English text its words (3+ letters, a few
    function words and 'acute' left out), since letter pairs are shared by any two English sentences."""
    if _english(text):
        return {w.lower() for w in _WORD.findall(text)} - _STOP
    t = re.sub(r"[\W_]+", "", text).lower()
    return {t[i:i + 2] for i in range(len(t) - 1)}


def consistency(c: Candidate) -> list[Finding]:
    out: list[Finding] = []
    if not c.options:  # not a choice item (an order, keywords, free text): nothing to check here
        return out
    if c.answer not in c.options:
        out.append(Finding("inconsistency", "rule", f"the key {c.answer!r} is not one of the options "
                                                      f"({', '.join(c.options)})"))
    if len(c.options) < 2:
        out.append(Finding("inconsistency", "rule", "fewer than two options"))
    texts: dict[str, str] = {}
    for k, v in c.options.items():
        norm = re.sub(r"\s+", "", v)
        if norm in texts:
            out.append(Finding("inconsistency", "rule", f"options {texts[norm]} and {k} have the same text"))
        texts.setdefault(norm, k)
    return out


def leakage(c: Candidate) -> list[Finding]:
    """The key's distinctive bigrams (in no other option) found in the stem."""
    if c.answer not in c.options:
        return []
    others = set().union(*(_bigrams(v) for k, v in c.options.items() if k != c.answer))
    own = _bigrams(c.options[c.answer]) - others
    found = own & _bigrams(c.stem)
    least = LEAK_MIN_WORDS if _english(c.options[c.answer]) else LEAK_MIN
    if own and len(found) >= least and len(found) / len(own) >= LEAK_SHARE:
        return [Finding("leakage", "rule", f"{len(found)} of the key's {len(own)} distinctive bigrams are in the "
                                           f"stem: {''.join(sorted(found))[:40]}")]
    return []


def alike_options(c: Candidate) -> list[Finding]:
    """Two options so alike that both may be right (e.g. a diagnosis and the same diagnosis made more precise)."""
    out = []
    keys = list(c.options)
    for i, a in enumerate(keys):
        for b in keys[i + 1:]:
            ga, gb = _bigrams(c.options[a]), _bigrams(c.options[b])
            if not ga or not gb or c.options[a].strip() == c.options[b].strip():
                continue
            dice = 2 * len(ga & gb) / (len(ga) + len(gb))
            if dice >= ALIKE or ga <= gb or gb <= ga:
                out.append(Finding("ambiguity", "rule", f"options {a} and {b} say nearly the same "
                                                        f"(bigram Dice {dice:.2f})"))
    return out


def phi_remnants(c: Candidate, analyzer: Analyzer, entities: frozenset[str] | None = None,
                 options_only: bool = False) -> list[Finding]:
    """PHI the deid detectors find (score ≥ PHI_MIN_SCORE) in the stem and each option (`options_only`: the
    options; `entities`: only these types)."""
    out = []
    parts = [] if options_only else [("stem", c.stem)]
    for where, text in [*parts, *((f"option {k}", v) for k, v in c.options.items())]:
        for span in (s for s in analyzer.analyze(text) if s.score >= PHI_MIN_SCORE):
            if entities is not None and span.entity not in entities:
                continue
            # The value itself is not repeated in the finding: the audit file should not spread it further.
            out.append(Finding("phi", "rule", f"{span.entity} in the {where} (characters {span.start}–{span.end}, "
                                              f"detector {span.detector})"))
    return out


@dataclass(frozen=True)
class PhiScope:
    """What the PHI check looks at: every type in stem and options, or (notes de-identified with surrogates,
    whose fake names and dates the detectors would find again) the options' contact details and identifiers."""

    entities: frozenset[str] | None = None
    options_only: bool = False


def set_findings(cands: Sequence[Candidate]) -> tuple[dict[str, list[Finding]], list[dict[str, Any]]]:
    """The `audit-items` cue rules per scenario over the whole set: per item the duplicates and the flagged cues
    its key shows, and the per-scenario report."""
    from climedbench import audit as cue

    out: dict[str, list[Finding]] = {c.id: [] for c in cands}
    report = []
    by_code: dict[str, list[Candidate]] = {}
    for c in cands:
        by_code.setdefault(c.code, []).append(c)
    pickers = {"longest option": cue.longest, "agrees with the other options": cue.agrees_with_others,
               "shares wording with the question": cue.shares_question_wording}
    for code, group in by_code.items():
        items = [c.as_item() for c in group]
        task = cue.audit_task(code, items)
        report.append(task.as_json())
        for _, later, j in task.near_duplicates:
            out[later].append(Finding("duplicate", "rule", f"near-duplicate of an earlier item (Jaccard {j:.2f})"))
        for item, opt in task.options_in_case:
            out[item].append(Finding("leakage", "rule", f"option {opt} is repeated word for word in the case"))
        for rule in task.rules:
            if not (rule.n and rule.p_value < CUE_P):
                continue
            for c, it in zip(group, items, strict=True):
                pick = _rule_pick(rule.rule, it, pickers, task.key_shares)
                if pick is not None and pick == c.answer:
                    out[c.id].append(Finding("cue", "rule", f"{code}: the rule '{rule.rule}' finds the key beyond "
                                                            f"chance ({rule.accuracy:.0%} vs {rule.chance:.0%}), "
                                                            "and it picks this item's key"))
    return out, report


def _rule_pick(name: str, item: Item, pickers: dict[str, Any], shares: dict[str, float]) -> str | None:
    """The option a flagged cue rule picks on this item (None: the rule picks none, or ties)."""
    from climedbench import audit as cue

    if name == "most frequent key position":
        return max(shares, key=lambda k: shares[k]) if shares else None
    if name in pickers:
        return pickers[name](item)
    if name.startswith("the one option with "):
        return cue.only_with(item, name.removeprefix("the one option with "))
    if name.startswith("always ") and len(name) == 8:
        return name[-1]
    return None


def rule_audit(cands: Sequence[Candidate], analyzer: Analyzer | None, scope: PhiScope | None = None
               ) -> tuple[dict[str, list[Finding]], list[dict[str, Any]]]:
    """Every rule that needs no model, per item; with `analyzer` None the PHI check is left out."""
    found, report = set_findings(cands)
    scope = scope or PhiScope()
    for c in cands:
        phi = phi_remnants(c, analyzer, scope.entities, scope.options_only) if analyzer is not None else []
        found[c.id] = [*consistency(c), *leakage(c), *alike_options(c), *phi, *found[c.id]]
    return found, report


# -- the item set of a build folder ------------------------------------------------------------------------------

def build_dir(out: Path) -> Path:
    return Path(out) / ".build"


def current_candidates(out: Path) -> list[Candidate]:
    """The items as they stand: `.build/candidates.jsonl` with every refined revision (`.build/refined.jsonl`,
    the latest per id) in place of the original."""
    base = build_dir(out) / "candidates.jsonl"
    if not base.is_file():
        raise DataError("no candidates yet (run `climedbench build` first)", file=str(base))
    items = load_candidates(base)
    refined = build_dir(out) / "refined.jsonl"
    if refined.is_file():
        latest: dict[str, Candidate] = {}
        for n, raw in read_jsonl(refined):
            c = parse_candidate(raw, str(refined), n)
            if c.id not in latest or c.revision >= latest[c.id].revision:
                latest[c.id] = c
        items = [latest.get(c.id, c) for c in items]
    return items


# -- LLM2 --------------------------------------------------------------------------------------------------------

@dataclass
class Verdict:
    """The auditor model's verdict on one item (None fields when its reply was unusable: `problem` says why)."""

    verdict: str | None
    problems: list[str]
    reason: str
    model: str
    problem: str | None = None
    cached: bool = False


async def model_audit(cands: Sequence[Candidate], backend: Any, cache: Any, prompt: Any) -> dict[str, Verdict]:
    """LLM2's verdict on every candidate, through the response cache."""
    from climedbench.build.llm import ask_all

    contexts = [{"item": c, "options": list(c.options.items()), "kinds": KINDS} for c in cands]
    replies = await ask_all(backend, prompt, contexts, cache)
    out = {}
    for c, r in zip(cands, replies, strict=True):
        if r.data is None:
            out[c.id] = Verdict(None, [], "", backend.name, r.problem, r.cached)
        else:
            out[c.id] = Verdict(str(r.data["verdict"]), list(r.data["problems"]), str(r.data["reason"]),
                                backend.name, None, r.cached)
    return out


def audit_rows(cands: Sequence[Candidate], rules: dict[str, list[Finding]],
               verdicts: dict[str, Verdict] | None) -> list[dict[str, Any]]:
    """One `.build/audit.jsonl` row per item: its findings (rules and LLM2), LLM2's verdict, flagged or not.
    An item the auditor could not judge (an unusable reply) is flagged too: a person should look at it."""
    rows = []
    for c in cands:
        found = list(rules.get(c.id, []))
        v = verdicts.get(c.id) if verdicts is not None else None
        if v is not None and v.verdict == "fail":
            kinds = [k for k in v.problems if k in KINDS] or ["inconsistency"]
            found += [Finding(k, "llm", v.reason) for k in dict.fromkeys(kinds)]
        unjudged = v is not None and v.verdict is None
        rows.append({"id": c.id, "code": c.code, "revision": c.revision,
                     "findings": [asdict(f) for f in found],
                     "llm": asdict(v) if v is not None else None,
                     "flagged": bool(found) or unjudged})
    return rows


def surrogate_notes(out: Path) -> Path | None:
    """The manifest of the build's notes when `climedbench deid` wrote them in surrogate mode (None otherwise):
    the notes `--demo` de-identified into `.build/`, or the source folder `.build/state.json` names."""
    manifests = sorted(build_dir(out).glob("*/deid_manifest.json"))
    try:
        source = Path(json.loads((build_dir(out) / "state.json").read_text(encoding="utf-8"))["source"])
        manifests.append((source if source.is_dir() else source.parent) / "deid_manifest.json")
    except (OSError, ValueError, KeyError, TypeError):
        pass
    for manifest in manifests:
        try:
            if json.loads(manifest.read_text(encoding="utf-8")).get("mode") == "surrogate":
                return manifest
        except (OSError, ValueError, AttributeError):
            continue
    return None


async def run_audit(out: Path, *, backend: Any | None, cache: Any | None, phi: str = "auto",
                    prompt: str | Path = "audit") -> dict[str, Any]:
    """Audit the current items of a build folder (`phi`: auto, on or off); writes `.build/audit.jsonl` and
    `.build/audit_set.json` and returns a summary (items, flagged, per kind, the PHI check, LLM2's verdicts and
    how many came from the cache)."""
    from climedbench.build.llm import load_prompt

    cands = current_candidates(out)
    analyzer = None
    # `auto` on notes climedbench deid wrote with surrogates: the same detectors already ran over them and would
    # find again the fake names and dates they put in; the options are still checked for contact details and
    # identifiers (a phone number the de-identification missed, or its surrogate, has no place in an answer).
    skipped = surrogate_notes(out) if phi == "auto" else None
    scope = PhiScope()
    if phi in ("on", "auto"):
        from climedbench.deid.engine import Analyzer
        from climedbench.deid.patterns import STRUCTURED

        analyzer = Analyzer(ner=False)
        if skipped is not None:
            scope = PhiScope(entities=frozenset(STRUCTURED), options_only=True)
    rules, report = rule_audit(cands, analyzer, scope)
    verdicts = None
    if backend is not None:
        # An item with a PHI remnant is not sent to the auditor (which may be a remote server): it is flagged anyway.
        send = [c for c in cands if not any(f.kind == "phi" for f in rules[c.id])]
        verdicts = await model_audit(send, backend, cache, load_prompt(prompt))
    rows = audit_rows(cands, rules, verdicts)
    write_jsonl(build_dir(out) / "audit.jsonl", rows)
    (build_dir(out) / "audit_set.json").write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n",
                                                   encoding="utf-8")
    kinds: dict[str, int] = {}
    for r in rows:
        for k in dict.fromkeys(f["kind"] for f in r["findings"]):
            kinds[k] = kinds.get(k, 0) + 1
    summary: dict[str, Any] = {"items": len(rows), "flagged": sum(r["flagged"] for r in rows), "by_kind": kinds,
                               "phi_check": ("off (asked)" if analyzer is None else "on" if skipped is None else
                                             f"options only, contact details and identifiers (surrogate notes: "
                                             f"{skipped})")}
    if verdicts is not None:
        summary["auditor"] = {"model": backend.name if backend is not None else None,
                              "pass": sum(v.verdict == "pass" for v in verdicts.values()),
                              "fail": sum(v.verdict == "fail" for v in verdicts.values()),
                              "unusable": sum(v.verdict is None for v in verdicts.values()),
                              "cached": sum(v.cached for v in verdicts.values()),
                              "not_sent_phi": len(cands) - len(verdicts)}
    return summary
