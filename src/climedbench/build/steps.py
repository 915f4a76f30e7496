"""Surgical steps in order (answer type `steps`; CliMedBench's surgical steps organization): the operation note
(手术经过) as the steps it tells, some of the middle ones hidden, lettered and shuffled; the key is the letters in
the order of the gaps, which is the note's own order. No model.

A step is a clause of the operation section (after the operation's name, '…行腹腔镜胆囊切除术：') that names an
action of the template's list for the language (切开, 游离, 夹闭, divided, placed …) and none of its `not_steps`
markers (findings, bleeding, pathology, the surgeon's name). Only notes whose steps are clearly sequential make an
item: at least `min` steps, at least three hidden, and no two hidden steps that are the same action (same first
action word) or the same text in other words: their order could be argued either way.
"""

from __future__ import annotations

import random
import re

from climedbench.build.candidates import Candidate, Provenance
from climedbench.build.clip import clip
from climedbench.build.dates import strip_dates
from climedbench.build.distractors import too_close
from climedbench.build.generate import Skip, _candidate, _sections, _seed
from climedbench.build.preprocess import Kept
from climedbench.build.scenarios import LangSpec, Scenario, StepsSpec
from climedbench.build.segments import Guideline, is_placeholder

_ZH_CLAUSE = re.compile(r"[，；。,;]")
_EN_CLAUSE = re.compile(r";|(?<=[a-z0-9)])\.\s+")


def name_and_body(text: str, lang: str) -> tuple[str, str]:
    """The operation's name (dates and the anaesthesia before '行' dropped) and the text of its steps."""
    text = strip_dates(text.strip())
    if lang == "zh":
        head, sep, body = text.partition("：")
        if not sep:
            head, _, body = text.partition("。")
        m = re.search(r"行(.+)$", head)
        return (m.group(1) if m else head).strip(" ，。"), body
    head, _, body = text.partition(". ")
    return head.strip(" -–—.").strip(), body


def first_action(clause: str, actions: list[str]) -> str | None:
    found = [(clause.find(a), a) for a in actions if a in clause]
    return min(found)[1] if found else None


def steps_of(text: str, spec: StepsSpec, lang: str) -> tuple[str, list[str]]:
    """(the operation's name, its steps in the note's order)."""
    name, body = name_and_body(text, lang)
    actions, stop = spec.actions.get(lang, []), spec.not_steps.get(lang, [])
    out: list[str] = []
    for clause in (_ZH_CLAUSE if lang == "zh" else _EN_CLAUSE).split(body):
        clause = clause.strip(" .")
        if len(clause) < 3 or first_action(clause, actions) is None or any(s in clause for s in stop):
            continue
        got = clip(clause, spec.max_chars)
        if got is not None and got not in out:
            out.append(got)
    return name, out[: spec.max]


def hidden_of(steps: list[str], spec: StepsSpec, lang: str, rng: random.Random) -> list[int] | None:
    """Which of the middle steps are hidden (sorted), or None when their order would be ambiguous."""
    middle = list(range(1, len(steps) - 1))
    if len(middle) < 3:
        return None
    hidden = sorted(rng.sample(middle, min(spec.mask, len(middle))))
    actions = spec.actions.get(lang, [])
    verbs = [first_action(steps[i], actions) for i in hidden]
    if len(set(verbs)) < len(verbs):
        return None
    if any(too_close(steps[i], steps[j], 0.6) for i in hidden for j in hidden if i < j):
        return None
    return hidden


def steps_item(sc: Scenario, spec: LangSpec, kept: Kept, g: Guideline) -> Candidate | Skip:
    st = sc.steps
    assert st is not None
    secs = [s for s in _sections(kept, [st.from_]) if not is_placeholder(s.text, g)]
    if not secs:
        return Skip(f"no {st.from_} section")
    # the operation section with the most steps: a note's 'OPERATIVE NOTE' header may be followed by 'Procedure:'
    sec = max(secs, key=lambda s: len(steps_of(s.text, st, g.lang)[1]))
    name, steps = steps_of(sec.text, st, g.lang)
    if len(steps) < st.min or not name:
        return Skip(f"fewer than {st.min} operation steps (clauses naming an action)")
    rng = random.Random(_seed(kept.note.record, sc.scenario))
    hidden = hidden_of(steps, st, g.lang, rng)
    if hidden is None:
        return Skip("hidden steps whose order is ambiguous (the same action twice, or fewer than three)")
    perm = list(range(len(hidden)))
    while perm == sorted(perm):
        rng.shuffle(perm)
    letters = {hidden[p]: chr(65 + j) for j, p in enumerate(perm)}  # step index → its letter
    colon = "：" if g.lang == "zh" else ": "
    ph = spec.phrases
    lines = [f"{i + 1}.____" if i in letters else f"{i + 1}. {s}" for i, s in enumerate(steps)]
    shown = "\n".join(f"{chr(65 + j)}: {steps[hidden[p]]}" for j, p in enumerate(perm))
    text = "\n".join([f"## {ph.get('name', '手术名称')}{colon}{name}",
                      f"## {ph.get('steps', '手术步骤')}{colon}" + "\n".join(lines),
                      f"## {ph.get('hidden', '遮挡文本')}: {shown}"])
    reference = "".join(letters[i] for i in hidden)
    where = ", ".join(str(i + 1) for i in hidden)
    return _candidate(sc, spec, kept, text, reference,
                      Provenance(record=kept.note.record, patient=kept.note.patient, segments=[sec.segment_id],
                                 key_segment=sec.segment_id, template=sc.template_id, generator="none",
                                 prompt_hash=None,
                                 notes=[f"{len(steps)} steps, {len(hidden)} hidden (steps {where})"]))
