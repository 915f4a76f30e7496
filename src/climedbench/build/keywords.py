"""Keywords of a record (answer type `keywords`; CliMedBench's keyword extraction, whose official items are paper
abstracts): the text is the note's narrative (the stem's sections, without headers, plain text as the official
abstracts); the keywords are the note's own diagnoses (the key extractor, e.g. `diagnosis_names` over the diagnosis
section) that the text itself names, at least two, in the diagnosis section's order, '；'-joined as the official
references. The diagnosis section is never in the text. No model."""

from __future__ import annotations

import re

from climedbench.build.candidates import Candidate, Provenance
from climedbench.build.generate import Skip, _candidate, key_of, stem_of
from climedbench.build.preprocess import Kept
from climedbench.build.scenarios import LangSpec, Scenario
from climedbench.build.segments import Guideline

_QUALIFIER = re.compile(r"^(?:急性|慢性|左侧|右侧|双侧|左|右|acute|chronic|left|right|bilateral)\s*", re.I)


def named_keywords(candidates: list[str], text: str) -> list[str]:
    """The candidates the text names, in their order, each as the text names it: the whole name, or the name
    without a leading acuity or side ('急性胰腺炎' named '胰腺炎' gives '胰腺炎')."""
    out: list[str] = []
    for c in candidates:
        for form in (c, _QUALIFIER.sub("", c)):
            if len(form) >= 2 and form.lower() in text.lower() and form not in out:
                out.append(form)
                break
    return out


def keywords_item(sc: Scenario, spec: LangSpec, kept: Kept, g: Guideline) -> Candidate | Skip:
    got = key_of(sc, kept, g)
    if got is None:
        return Skip(f"fewer than two items in {sc.key.from_ if sc.key else '?'}")
    names, key_seg = got
    stem, used, _ = stem_of(spec, kept, g, None, False)
    sep = " " if g.lang == "en" else ""
    text = sep.join(t for _, t in stem)
    found = named_keywords(names.split("；"), text)
    if len(found) < 2:
        return Skip("fewer than two of the note's diagnoses are named in the text")
    return _candidate(sc, spec, kept, text, ("; " if g.lang == "en" else "；").join(found),
                      Provenance(record=kept.note.record, patient=kept.note.patient, segments=[*used, key_seg],
                                 key_segment=key_seg, template=sc.template_id, generator="none", prompt_hash=None,
                                 notes=[f"{len(found)} of {len(names.split('；'))} diagnoses named in the text"]))
