"""A wrong treatment to detect (answer type `critique`; CliMedBench's wrong treatment detection, open-ended): the case
(chief complaint, main diagnosis) and one treatment sentence of the note's course in which one drug element (a
clause naming a drug with a dose, '替格瑞洛180 mg嚼服负荷') is replaced by a thematically similar element of another
patient's course (distractors.py's band); the reference critique (the language's `phrases.reference`) names the
replaced element as wrong for this patient and gives the note's own. No model.

The replacement must be wrong for this patient as far as rules can tell: its drug is named nowhere in the note,
its drug's name does not start or end like one of the note's drugs (Chinese: two characters, '头孢…', '…地平',
'…他汀'; English: four letters, 'cefa…', '…pril', '…olol': mostly one class), and it comes from a patient whose main
diagnosis is not this patient's (not the same in other words). Drug classes are not looked up (no drug lexicon is
bundled); a clinician's review (docs/BUILD_REVIEW.md) is the check of the rest.
"""

from __future__ import annotations

import re

from climedbench.build.candidates import Candidate, Provenance
from climedbench.build.clip import clip
from climedbench.build.dates import strip_dates
from climedbench.build.distractors import Band, EmbeddingStore, PoolEntry, pick, too_close
from climedbench.build.generate import Skip, _candidate, _sections
from climedbench.build.keys import first_item, first_sentence
from climedbench.build.preprocess import Kept
from climedbench.build.scenarios import CritiqueSpec, LangSpec, Scenario
from climedbench.build.segments import Guideline

# A dose ('0.1 U/kg/h' too), not a laboratory value ('1.31 mg/dL', '4.6 mmol/L' are results).
_DOSE = re.compile(r"(?<![\d.])\d+(?:\.\d+)?\s*(?:mg|g|μg|ug|mcg|U|IU|万U|万单位|单位|mL|ml|mmol)(?![A-Za-z])"
                   r"(?!/(?:d?L|l)\b)", re.I)
# English: the drug is the word right before its dose, a salt or release form between them allowed.
_EN_DRUG = re.compile(r"([A-Za-z][A-Za-z\-]{3,})(?:\s+(?:succinate|tartrate|sodium|potassium|hydrochloride|hcl|"
                      r"er|xl|sr|extended-release))?\s*$", re.I)
_GENDER = {"m": re.compile(r"\b(?:he|his|him)\b", re.I), "f": re.compile(r"\b(?:she|her|hers)\b", re.I)}
_ZH_CLAUSE = re.compile(r"[，；,;、]")
_EN_CLAUSE = re.compile(r";|,\s+(?:and\s+)?|\s+and\s+")


def _norm(s: str) -> str:
    return re.sub(r"[\s\W_]+", "", s.lower())


def drug_name(clause: str, spec: CritiqueSpec, lang: str) -> str | None:
    """The drug a clause names with its dose ('入院后即予阿司匹林300 mg' → '阿司匹林'), or None."""
    m = _DOSE.search(clause)
    if m is None:
        return None
    head = clause[:m.start()].rstrip()
    cues = spec.cues.get(lang, [])
    if lang == "zh":
        for cue in sorted(cues, key=len, reverse=True):
            at = head.rfind(cue)
            if at >= 0:
                head = head[at + len(cue):]
        # after the last cue the rest must be the name itself ('术前30分钟头孢唑林' → '头孢唑林'; '按空腹血糖每3天上调'
        # is no drug: '…2 U至16 U' is the regimen of one named before)
        name = head.strip() if re.fullmatch(r"[\u4e00-\u9fffA-Za-z][\u4e00-\u9fffA-Za-z\-]*", head.strip()) else ""
        name = name.removesuffix("自")  # '泼尼松自10 mg起始'
        for form in sorted(spec.forms.get(lang, []), key=len, reverse=True):
            name = name.removesuffix(form)
    else:
        found = _EN_DRUG.search(head)
        name = found.group(1) if found and found.group(1).lower() not in cues else ""
    return name if len(name) >= (2 if lang == "zh" else 4) else None


def gender_clash(text: str, context: str) -> bool:
    """English: the text says 'she' of a patient the context calls 'he' (or the other way): another patient's."""
    ctx = {k for k, r in _GENDER.items() if r.search(context)}
    return len(ctx) == 1 and any(r.search(text) for k, r in _GENDER.items() if k not in ctx)


def class_stems(name: str, lang: str) -> set[str]:
    """A drug name's first and last two characters (Chinese: '头孢…', '…地平') or four letters (English: 'cefa…',
    '…pril'): drugs that share one are mostly of one class."""
    n = 2 if lang == "zh" else 4
    low = name.lower()
    return {"^" + low[:n], low[-n:] + "$"}


def elements(kept: Kept, g: Guideline, spec: CritiqueSpec) -> list[tuple[str, str, str, str]]:
    """(clause, drug name, its sentence, segment id) of every drug element of the `from` sections, in order: the
    clauses naming a drug with its dose in sentences that name a treatment (the guideline's treatment cues; not
    '血压128/82 mmHg（仅服…）'). An element followed in its sentence by a dose without a drug ('then 81 mg daily',
    '1周后加量至300 mg qd': the same drug's regimen) is left out: replaced, it would leave that clause dangling."""
    out = []
    for sec in _sections(kept, [spec.from_]):
        for sent in sec.sentences:
            if not any(c in sent for c in g.treatment_cues):
                continue
            clauses = [c.strip(" 。.") for c in (_ZH_CLAUSE if g.lang == "zh" else _EN_CLAUSE).split(sent)]
            names = [drug_name(c, spec, g.lang) for c in clauses]
            for i, (clause, name) in enumerate(zip(clauses, names, strict=True)):
                dangling = any(n is None and _DOSE.search(c) for c, n in zip(clauses[i + 1:], names[i + 1:],
                                                                           strict=True))
                if name is not None and not dangling:
                    out.append((clause, name, sent, sec.segment_id))
    return out


def _lower_first(text: str) -> str:
    """'Crampy abdominal pain' → 'crampy abdominal pain' inside an English sentence ('NSTEMI' stays)."""
    return text[0].lower() + text[1:] if len(text) > 1 and text[0].isupper() and text[1].islower() else text


def _diagnosis(kept: Kept, g: Guideline) -> str:
    """The main diagnosis: the last diagnosis section's first item, or an earlier section's when the last one only
    refers back ('同入院诊断', 'Same as admission')."""
    for sec in reversed(_sections(kept, ["diagnosis"])):
        got = first_item([sec], g)
        if got is not None and not re.match(r"同|same as", got[0], re.I):
            return got[0]
    return ""


def element_pool(sc: Scenario, notes: list[Kept], guidelines: dict[str, Guideline], lang: str) -> list[PoolEntry]:
    assert sc.critique is not None
    pool = []
    for k in notes:
        if k.note.lang != lang:
            continue
        g = guidelines[lang]
        dx = _diagnosis(k, g)
        for clause, _name, _sent, seg in elements(k, g, sc.critique):
            pool.append(PoolEntry(clause, k.note.record, k.note.patient, seg, kind="element", context=dx))
    return pool


def wrong_here(entry: PoolEntry, spec: CritiqueSpec, lang: str, note_text: str, own_stems: set[str],
               dx: str) -> bool:
    """The entry's drug is absent from the note, not of a stem of the note's drugs, and from another diagnosis."""
    name = drug_name(entry.text, spec, lang)
    return (name is not None and _norm(name) not in _norm(note_text) and not (class_stems(name, lang) & own_stems)
            and not too_close(entry.context, dx, 0.6))


def critique_item(sc: Scenario, spec: LangSpec, kept: Kept, g: Guideline, pool: list[PoolEntry],
                  store: EmbeddingStore) -> Candidate | Skip:
    cs = sc.critique
    assert cs is not None
    dx = _diagnosis(kept, g)
    cc = first_sentence(_sections(kept, ["chief_complaint"]), g)
    els = elements(kept, g, cs)
    if not dx or cc is None or not els:
        return Skip("no chief complaint, main diagnosis or drug element (a drug with its dose) in the course")
    own_stems = {x for _, n, _, _ in els for x in class_stems(n, g.lang)}
    cands = [e for e in pool if e.kind == "element" and wrong_here(e, cs, g.lang, kept.note.text, own_stems, dx)]
    b = sc.distractors
    for clause, name, sent, seg in els:
        got = pick(clause, kept.note.patient, cands, store, Band(b.lo, b.hi, b.floor, b.step, b.max_overlap, 1))
        if got is None:
            continue
        repl = got[0][0]
        shown = clip(strip_dates(sent.replace(clause, repl.text, 1)), cs.max_chars)
        if shown is None or strip_dates(repl.text) not in shown or gender_clash(repl.text, kept.note.text):
            continue
        shown = shown.rstrip(" ，,；;。.") + ("." if g.lang == "en" else "。")
        shown = shown[0].upper() + shown[1:]  # an English sentence that now starts with the replacement
        wrong = drug_name(repl.text, cs, g.lang) or repl.text
        ph = spec.phrases
        text = ph.get("case", "{complaint}；{diagnosis}；{treatment}").format(
            complaint=_lower_first(cc[0].rstrip("。. ")), diagnosis=_lower_first(dx), treatment=shown)
        reference = ph.get("reference", "{wrong}: {right}").format(
            wrong=wrong, wrong_text=repl.text, right=clause, diagnosis=_lower_first(dx))
        return _candidate(sc, spec, kept, text, reference,
                          Provenance(record=kept.note.record, patient=kept.note.patient,
                                     segments=[cc[1], seg], key_segment=seg, template=sc.template_id,
                                     generator="none", prompt_hash=None, embedder=store.embedder.name,
                                     band=[got[1][0], b.hi], distractors=[repl],
                                     notes=[f"replaced '{clause}' ({name}) by another patient's '{repl.text}'"]))
    return Skip("no drug element of another patient in the band whose drug is absent from this note, of another "
                "name stem and from another main diagnosis")
