"""Which summary is faithful (answer type `summary`; CliMedBench's case and discharge summaries): the key is a summary
made of two facts of the note itself (the template's `facts`, each a key extractor over one content type, put into
the language's `phrases.summary`, e.g. '{0}；既往{1}。'); the distractors are the same summary with one fact, or both,
replaced by a thematically similar other patient's (distractors.py: another patient, in the similarity band, not the
same answer in other words). The four options are the 2×2 of own and replaced facts, so every option shares one fact
with two others and none with the third: no option agrees with the others more than the key does (an answer cue
`audit-items` counts). A replacement that the stem itself names is not used (it would be faithful too), nor, in
English, one that says 'she' of a patient the stem calls 'he' (or the other way). No model."""

from __future__ import annotations

import random

from climedbench.build.candidates import Candidate, Distractor, Provenance
from climedbench.build.critique import gender_clash
from climedbench.build.distractors import Band, EmbeddingStore, PoolEntry, pick
from climedbench.build.generate import LETTERS, Skip, _candidate, _contains, _sections, _seed, render, stem_of
from climedbench.build.keys import EXTRACTORS, Extracted
from climedbench.build.preprocess import Kept
from climedbench.build.scenarios import FactSpec, LangSpec, Scenario
from climedbench.build.segments import Guideline

_END = "。.；;，, "


def fact_of(f: FactSpec, kept: Kept, g: Guideline) -> Extracted:
    limit = {} if f.max_chars is None else {"max_chars": f.max_chars}
    return EXTRACTORS[f.extract](_sections(kept, [f.from_]), g, **limit)


def fact_pool(sc: Scenario, notes: list[Kept], guidelines: dict[str, Guideline], lang: str) -> list[PoolEntry]:
    """Every note's value of each fact (kind '0', '1'): where the replacements come from."""
    pool = []
    for k in notes:
        if k.note.lang != lang:
            continue
        for i, f in enumerate(sc.facts):
            got = fact_of(f, k, guidelines[lang])
            if got is not None:
                pool.append(PoolEntry(got[0], k.note.record, k.note.patient, got[1], kind=str(i)))
    return pool


def compose(phrase: str, a: str, b: str) -> str:
    return phrase.format(a.rstrip(_END), b.rstrip(_END))


def options_2x2(own: tuple[str, str], other: tuple[str, str], phrase: str, at: int, rng: random.Random
                ) -> list[str]:
    """The key (own facts) at `at`, the three mixes of own and replaced facts around it in a shuffled order."""
    distractors = [compose(phrase, other[0], own[1]), compose(phrase, own[0], other[1]),
                   compose(phrase, other[0], other[1])]
    rng.shuffle(distractors)
    distractors.insert(at, compose(phrase, own[0], own[1]))
    return distractors


def summary_item(sc: Scenario, spec: LangSpec, kept: Kept, g: Guideline, pool: list[PoolEntry],
                 store: EmbeddingStore, position: int) -> Candidate | Skip:
    facts = [fact_of(f, kept, g) for f in sc.facts]
    if any(f is None for f in facts):
        missing = [f.from_ for f, got in zip(sc.facts, facts, strict=True) if got is None]
        return Skip(f"no fact for the summary in {', '.join(missing)}")
    own = [f for f in facts if f is not None]
    stem, used, _ = stem_of(spec, kept, g, None, False)
    if not stem:
        return Skip("no stem: none of the stem's sections has content")
    shown = " ".join(t for _, t in stem)
    b = sc.distractors
    band = Band(b.lo, b.hi, b.floor, b.step, b.max_overlap, 1)
    picked: list[Distractor] = []
    los: list[float] = []
    for i, (text, _seg) in enumerate(own):
        cands = [e for e in pool if e.kind == str(i) and not _contains(shown, e.text)
                 and not gender_clash(e.text, shown)]
        got = pick(text, kept.note.patient, cands, store, band)
        if got is None:
            return Skip(f"no replacement for fact {i + 1} ({sc.facts[i].from_}) from another patient in the band "
                        f"(≥ {b.floor}, ≤ {b.hi}) that the stem does not name")
        picked.append(got[0][0])
        los.append(got[1][0])
    phrase = spec.phrases.get("summary", "{0}；{1}")
    at = (position + _seed(sc.scenario)) % 4
    options = options_2x2((own[0][0], own[1][0]), (picked[0].text, picked[1].text), phrase, at,
                          random.Random(_seed(kept.note.record, sc.scenario)))
    notes = [f"summary of {sc.facts[0].from_} and {sc.facts[1].from_}; the distractors swap one or both for another "
             "patient's"]
    return _candidate(sc, spec, kept, render(stem, spec.options_header, options), LETTERS[at],
                      Provenance(record=kept.note.record, patient=kept.note.patient,
                                 segments=[*used, own[0][1], own[1][1]], key_segment=own[0][1],
                                 template=sc.template_id, generator="none", prompt_hash=None,
                                 embedder=store.embedder.name, band=[min(los), b.hi], distractors=picked,
                                 notes=notes))
