"""Word classes that English name detectors ask about a word of a real note, whatever its case: a given name or a
surname of Faker's person providers (general resources, not any note's names), and a word that is an everyday,
nursing or clinical word (spaCy's English stop words, climedbench's clinical terms and the words below). Real
nursing notes are written all in upper case or all in lower case as often as in sentence case, so a capital
letter tells nothing there: the word itself must.
"""

from __future__ import annotations

import re
from functools import cache

from climedbench.deid import lexicon

_LOCALES = ("en_US", "en_GB", "en_IE", "en_IN", "en_NG", "en_KE", "es_MX", "es_ES", "fr_FR", "it_IT", "pt_BR",
            "pl_PL", "nl_NL", "de_DE")

# Everyday words of nursing notes that follow a cue word (dr aware, son called, per protocol) or stand in an
# upper-case sentence, and that no Faker list may turn into a name.
NOTE_WORDS = frozenset(re.findall(r"\S+", """
aware notified notify called call calls paged page paging updated update informed inform ordered order orders
made make spoke speak speaking said says stated states reports reported visited visit visiting in into at to on
of off for from with w/ by via and or but nor not no yes here there today tonight tomorrow yesterday now then
also will would should could can may might must shall did does done do doing had has have having was were is
are be been being am pm noc eve evening morning night day days afternoon overnight shift hour hours time times
this that these those it its he she him her his hers they them their we us our you your who whom which what
when where while why how all any each every some many much more most less least few other others another such
same own just only very too so than as if because since until till unless though although after before during
above below up down out over under again further once both either neither about around between through across
per plan plans planned consult consulted consulting contacted contact contacts discussed discussing discuss
team staff md mds rn rns np pa nurse nurses resident residents intern interns fellow attending house office
new old left right bilateral good well better worse stable unstable ok okay fine poor fair same low high
continue continues continued cont remains remain remained started start stopped stop given give gave
increase increased decrease decreased wean weaned weaning titrate titrated hold held changed change
alert awake oriented asleep sleeping resting rest comfortable calm anxious agitated restless confused lethargic
responsive unresponsive sedated intubated extubated following follows commands moving moves purposefully
tolerated tolerating tolerate denies denied complains complaint c/o noted note notes see seen flowsheet
careview carevue chart charted documented report write wrote written family pt patient patients pts
son daughter wife husband sister brother mother father dtr mom dad friend friends proxy children child
care case manager management worker social work services service floor unit room bed icu ccu micu sicu ew er
ed or pacu cath lab rehab home hospital clinic step down transfer transferred admitted admission discharge
again first second third last next other prior previous previously recent recently early late later soon
already still yet ever never always usually often sometimes occasionally intermittent intermittently
in-law inlaw ho spokesperson came went died lives lived phone cough stool verbal multiple evaluate eval amber
comfort max min fem aline dev frank senna urine sputum blood bloody site sites intact assist assistance dose
measures color colour level clear cloudy fluid sheath sheaths line lines introducer sandwich art tabs tab
coli diff difficile aureus pylori pneumoniae influenzae outside osh local another prev
met meet meets meeting request requests requested appear appears appeared amt amts sxn ceo in-law in-laws inlaws
granddaughter grandaughter grandson drove drives driving brought brings took takes taking
"""))


# A label that names a person (Patient: OKAFOR, CHIDINMA): any given name may follow it.
NAME_LABEL = re.compile(r"(?<![A-Za-z])(?i:patient|pt|name|member|insured|subscriber|guarantor|client|resident)"
                        r"(?:[ \t]+(?i:name))?[ \t]*:[ \t]*$")


@cache
def _faker_names(attrs: tuple[str, ...]) -> frozenset[str]:
    import importlib

    names: set[str] = set()
    for loc in _LOCALES:
        try:
            provider = importlib.import_module(f"faker.providers.person.{loc}").Provider
        except ImportError:
            continue
        for attr in attrs:
            names.update(n.lower() for n in getattr(provider, attr, ()) if n.isascii() and n.isalpha() and len(n) > 1)
    return frozenset(names)


def given_names() -> frozenset[str]:
    """Lower-cased given names of Faker's providers (all of them: Will and Mark included)."""
    return _faker_names(("first_names", "first_names_male", "first_names_female"))


def surnames() -> frozenset[str]:
    """Lower-cased surnames of Faker's providers."""
    return _faker_names(("last_names",))


@cache
def _stop_words() -> frozenset[str]:
    from spacy.lang.en.stop_words import STOP_WORDS

    return frozenset(STOP_WORDS) | NOTE_WORDS | lexicon.EN_COMMON_WORDS


def function_word(word: str) -> bool:
    """A stop word or an everyday nursing word (and, aware, called, today): never a name after a cue."""
    return word.strip(".,;:()'\"").lower() in _stop_words()


def common_word(word: str) -> bool:
    """A word that is more likely a word than a name: a stop or nursing word, a clinical term, a section word, a
    month, or an English form by its ending (…ed, …ing, …ly, …tion)."""
    w = word.strip(".,;:()'\"").lower()
    return not w or w in _stop_words() or w in lexicon.EN_NOT_NAMES or lexicon.clinical_word(w) or \
        bool(re.search(r"\d", w)) or (len(w) > 4 and w.endswith(("ed", "ing", "ly", "tion", "sion", "ment", "ness",
                                                                 "ity", "ous", "ive", "able", "ible", "ful")))


def known_name(word: str) -> bool:
    """A Faker given name or surname that is not a function word."""
    w = word.strip(".,;:()'\"").lower()
    return (w in given_names() or w in surnames()) and not function_word(w)


def name_word(word: str) -> bool:
    """After a cue word: a known name, or any word that is not a common word (dr healey, son bill)."""
    w = word.strip(".,;:()'\"")
    return known_name(w) or (len(w) >= 2 and not common_word(w) and not re.search(r"[eynmlrtkpdg]s$", w.lower()))


def upper_name(words: list[str]) -> bool:
    """Upper-case words that may be a name: none is a common word, unless a known name (WHITE, KING), and one at least
    is a known name (SMITH, JOHN; not ALERT, ORIENTED)."""
    words = [w for w in words if len(w.strip(".")) > 1]
    return bool(words) and any(known_name(w) for w in words) and \
        all(known_name(w) or not common_word(w) for w in words)


def upper_note(text: str) -> bool:
    """A note written (nearly) all in upper case, where a capital letter marks no name."""
    upper, letters = len(_UPPER.findall(text)), len(_LETTER.findall(text))
    return letters >= 20 and upper >= 0.8 * letters


def lower_note(text: str) -> bool:
    """A note written (nearly) all in lower case."""
    return len(_LOWER.findall(text)) >= 0.95 * max(1, len(_LETTER.findall(text)))


_UPPER, _LOWER, _LETTER = re.compile(r"[^\W\d_a-z]", re.A), re.compile(r"[a-z]"), re.compile(r"[^\W\d_]", re.A)


def leading_names(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The words of text[start:end] from its first while each may be a name (DR KOWALSKI RECOMMENDED → KOWALSKI);
    None when the first may not."""
    last = None
    for m in re.finditer(r"[A-Za-z][A-Za-z'’-]*", text[start:end]):
        if not name_word(m.group()):
            break
        last = m.end()
    return (start, start + last) if last is not None else None


def trim_common(text: str, start: int, end: int, last: str = "") -> tuple[int, int]:
    """text[start:end] without leading and trailing common words that are not known names; with a word that matches
    `last` (a hospital's suffix), that word and the words before it back to a function word (MERCY GENERAL HOSPITAL
    of … FROM MERCY GENERAL HOSPITAL REQUIRING …)."""
    words = [(m.start(), m.end()) for m in re.finditer(r"[A-Za-z][A-Za-z'’-]*", text[start:end])]
    ok = [known_name(text[start + a:start + b]) or not common_word(text[start + a:start + b]) for a, b in words]
    ends = [i for i, (a, b) in enumerate(words) if last and re.fullmatch(last, text[start + a:start + b])]
    if ends:  # the suffix and the words before it back to the first common one
        first = ends[-1]
        while first > 0 and not function_word(text[start + words[first - 1][0]:start + words[first - 1][1]]):
            first -= 1
        return start + words[first][0], start + words[ends[-1]][1]
    while words and not ok[0]:
        words, ok = words[1:], ok[1:]
    while words and not ok[-1]:
        words, ok = words[:-1], ok[:-1]
    return (start + words[0][0], start + words[-1][1]) if words else (start, start)


def last_first(value: str) -> bool:
    """An upper-case LAST, FIRST [M] that may be a name: a known given name after the comma and no common word before
    it unless a known name (SMITH, JOHN; not SECRETIONS, SMALL AMOUNTS)."""
    last, _, first = value.partition(",")
    given = re.findall(r"[A-Za-z'-]+", first)
    return bool(given) and given[0].lower() in given_names() and not function_word(given[0]) and \
        all(known_name(w) or not common_word(w) for w in re.findall(r"[A-Za-z'-]+", last))


def person_words(words: list[str]) -> bool:
    """The words of a statistical model's PERSON that may be a name: one word is a known name (not Carevue, Alert,
    Fentanyl); two or more hold no common word unless a known name (not Repeat Hct, Neuro - Alert)."""
    words = [w for w in words if re.search(r"[A-Za-z]{2}", w)]
    if len(words) == 1:
        return known_name(words[0])
    return bool(words) and all(known_name(w) or not common_word(w) for w in words)


@cache
def _countries() -> frozenset[str]:
    from faker.providers.address.en_US import Provider

    return frozenset(c.lower() for c in Provider.countries)


def country(value: str) -> bool:
    """A country's name (Faker's list): no PHI under Safe Harbor, as a state is not."""
    return re.sub(r"[ \t]+", " ", value).lower() in _countries()
