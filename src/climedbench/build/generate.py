"""One candidate item from one note and one scenario template, with no model: the stem from the note's sections,
the key from the note's own section, distractors from other patients (distractors.py), the key's letter cycling over A–D
with the note's rank (balanced, reproducible)."""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass

from climedbench.build.candidates import Candidate, Provenance
from climedbench.build.clip import clip
from climedbench.build.distractors import Band, EmbeddingStore, PoolEntry, pick
from climedbench.build.keys import EXTRACTORS, Extracted
from climedbench.build.preprocess import Kept
from climedbench.build.scenarios import LangSpec, Scenario
from climedbench.build.segments import Guideline, Section, is_placeholder
from climedbench.build.timeline import days

LETTERS = "ABCD"


@dataclass
class Skip:
    reason: str


def _sections(kept: Kept, ctypes: list[str]) -> list[Section]:
    return [s for s in kept.sections if s.ctype in ctypes]


def key_of(sc: Scenario, kept: Kept, g: Guideline) -> Extracted:
    assert sc.key is not None
    return EXTRACTORS[sc.key.extract](_sections(kept, [sc.key.from_]), g)


def build_pool(sc: Scenario, notes: list[Kept], guidelines: dict[str, Guideline], lang: str) -> list[PoolEntry]:
    """Every note's key of this scenario (same content type, same extractor): where distractors come from."""
    pool = []
    for k in notes:
        if k.note.lang != lang:
            continue
        got = key_of(sc, k, guidelines[lang])
        if got is not None:
            pool.append(PoolEntry(got[0], k.note.record, k.note.patient, got[1]))
    return pool


def _contains(sentence: str, key: str) -> bool:
    """The sentence names the key, or its core without qualifiers in brackets ('心房颤动（持续性）' → '心房颤动')."""
    norm = lambda s: re.sub(r"[\s\W_]+", "", s.lower())  # noqa: E731
    core = norm(re.sub(r"[（(][^）)]*[）)]", "", key))
    return any(len(k) >= 2 and k in norm(sentence) for k in {norm(key), core})


def stem_of(spec: LangSpec, kept: Kept, g: Guideline, key: str | None, leak: bool
            ) -> tuple[list[tuple[str, str]], list[str], int]:
    """(header, text) parts of the stem, the segment ids used, and how many sentences were removed as leaks."""
    parts, used, removed = [], [], 0
    sep = " " if g.lang == "en" else ""
    for part in spec.stem:
        texts = []
        for sec in _sections(kept, part.from_):
            if is_placeholder(sec.text, g):
                continue
            sents = sec.sentences
            if leak and key:
                kept_sents = [s for s in sents if not _contains(s, key)]
                removed += len(sents) - len(kept_sents)
                sents = kept_sents
            if sents:
                texts.append(sep.join(sents))
                used.append(sec.segment_id)
        if texts:
            parts.append((part.header, sep.join(texts)))
    return parts, used, removed


def _seed(*parts: str) -> int:
    return int(hashlib.sha256("\n".join(parts).encode()).hexdigest()[:12], 16)


def render(stem: list[tuple[str, str]], options_header: str, options: list[str], sep: str = ": ") -> str:
    lines = [f"## {h}{sep}{t}" for h, t in stem]
    body = "\n".join(f"{LETTERS[i]}: {o}" for i, o in enumerate(options))
    return "\n".join([*lines, f"## {options_header}{sep}{body}"])


def single_choice(sc: Scenario, spec: LangSpec, kept: Kept, g: Guideline, pool: list[PoolEntry],
                  store: EmbeddingStore, position: int) -> Candidate | Skip:
    got = key_of(sc, kept, g)
    if got is None:
        return Skip(f"no {sc.key.from_ if sc.key else '?'} section with content for the key (or none that ends at a "
                    "sentence or clause boundary within the key's length limit)")
    key, key_seg = got
    stem, used, removed = stem_of(spec, kept, g, key, sc.leak == "remove_key_sentences")
    if not stem:
        return Skip("no stem: none of the stem's sections has content")
    b = sc.distractors
    picked = pick(key, kept.note.patient, pool, store, Band(b.lo, b.hi, b.floor, b.step, b.max_overlap, b.n))
    if picked is None:
        return Skip(f"fewer than {b.n} distractors from other patients with similarity ≥ {b.floor} (floor) and "
                    f"≤ {b.hi}")
    distractors, band = picked
    at = (position + _seed(sc.scenario)) % (b.n + 1)
    options = [d.text for d in distractors]
    options.insert(at, key)
    notes = [f"removed {removed} stem sentence(s) that name the key"] if removed else []
    return _candidate(sc, spec, kept, render(stem, spec.options_header, options), LETTERS[at],
                      Provenance(record=kept.note.record, patient=kept.note.patient, segments=[*used, key_seg],
                                 key_segment=key_seg, template=sc.template_id, generator="none", prompt_hash=None,
                                 embedder=store.embedder.name, band=list(band), distractors=distractors, notes=notes))


def _by_day(sents: list[str], lang: str) -> list[str]:
    """One event per day the note fixes (timeline.py), the day's sentences merged (the caller cuts each event to
    its length limit at a clause boundary), in the order of the days; sentences with no day are left out."""
    groups: dict[int, list[str]] = {}
    for s, day in zip(sents, days(sents, lang), strict=True):
        if day is not None:
            groups.setdefault(day, []).append(s)
    sep = "; " if lang == "en" else "；"
    merged = [sep.join(t.rstrip("。.；;，, ") for t in groups[d]) if len(groups[d]) > 1 else groups[d][0]
              for d in sorted(groups)]
    return merged


def _events(sc: Scenario, kept: Kept, g: Guideline) -> tuple[list[str], list[str]]:
    """(event sentences in the order of the stay, their section ids)."""
    ev = sc.events
    assert ev is not None
    sents: list[str] = []
    used: list[str] = []
    for sec in kept.sections:
        if sec.ctype not in ev.from_ or is_placeholder(sec.text, g):
            continue
        got = [re.sub(r"^\s*\d{1,2}\s*[.、．)）]\s*", "", s) for s in sec.sentences]
        got = [s for s in got if len(s) >= 4 and not is_placeholder(s, g)]
        if sec.ctype in ev.first_only:
            got = got[:1]
        if sec.ctype in ev.timed:
            got = _by_day(got, g.lang)
        if got:
            sents += got
            used.append(sec.segment_id)
    if len(sents) > ev.max:  # keep the first and the last (admission, discharge), the middle from the start
        sents = [*sents[: ev.max - 1], sents[-1]]
    clipped = [clip(s, ev.max_chars) for s in sents]  # an event with no clause boundary within the limit: left out
    return [s for s in clipped if s is not None], used


def order_events(sc: Scenario, spec: LangSpec, kept: Kept, g: Guideline) -> Candidate | Skip:
    ev = sc.events
    assert ev is not None
    sents, used = _events(sc, kept, g)
    if len(sents) < ev.min:
        return Skip(f"fewer than {ev.min} events in {', '.join(ev.from_)}"
                    + (f" ({', '.join(ev.timed)}: only sentences on distinct days the note gives)" if ev.timed else ""))
    rng = random.Random(_seed(kept.note.record, sc.scenario))
    perm = list(range(len(sents)))
    while perm == sorted(perm):
        rng.shuffle(perm)
    shown = [sents[i] for i in perm]  # shown[j] is event perm[j]
    order = "".join(chr(65 + perm.index(i)) for i in range(len(sents)))  # the shown letters, in note order
    events = "\n".join(f"{chr(65 + j)}. {t}" for j, t in enumerate(shown))
    stem, stem_used, _ = stem_of(spec, kept, g, None, False)
    text = "\n".join([*(f"## {h}: {t}" for h, t in stem), f"## {spec.events_header or '住院经过'}: {events}"])
    return _candidate(sc, spec, kept, text, order,
                      Provenance(record=kept.note.record, patient=kept.note.patient, segments=[*stem_used, *used],
                                 key_segment=used[0], template=sc.template_id, generator="none", prompt_hash=None))


def _candidate(sc: Scenario, spec: LangSpec, kept: Kept, text: str, reference: str, prov: Provenance) -> Candidate:
    cid = f"{spec.file}-{kept.note.record[:12]}"
    item = {"id": cid, "scenario": spec.task, "input": text, "reference": reference,
            "specialty": kept.note.specialty, "source": f"climedbench build from record {kept.note.record}",
            "synthetic": False}
    return Candidate(candidate_id=cid, scenario=sc.scenario, task=spec.task, lang=kept.note.lang,
                     specialty=kept.note.specialty, item=item, provenance=prov)


def generate(sc: Scenario, kept: Kept, g: Guideline, pool: list[PoolEntry], store: EmbeddingStore,
             position: int = 0) -> Candidate | Skip:
    """The candidate of one note for one scenario, or why there is none. `position`: the note's rank among the
    notes of its language (by record hash); the key's letter cycles with it, so keys are balanced over A–D
    whatever was built before (a resumed build places every key as an uninterrupted one does)."""
    spec = sc.languages.get(kept.note.lang)
    if spec is None:
        return Skip(f"template {sc.id} has no {kept.note.lang} version")
    if sc.answer == "order":
        return order_events(sc, spec, kept, g)
    return single_choice(sc, spec, kept, g, pool, store, position)
