"""Options named by their text rather than their letter, and answers explained before a rebuttal of the others."""

from __future__ import annotations

import html
import re

from climedbench.extract.choice_patterns import (
    _ANSWER_VERB,
    _CHOOSING_VERB,
    _CLOSE,
    _LETTER,
    _MARKED_LINE,
    _NEGATED_CLAUSE,
    _OPEN,
    _OPTION_LINE,
    _labels_of,
)
from climedbench.extract.clean import _FULLWIDTH_TABLE

_STOPWORDS = frozenset({
    "a", "an", "the", "of", "and", "or", "in", "on", "at", "to", "for", "with", "by", "from", "is", "are", "be",
    "as", "its", "it", "this", "that", "which", "most", "least", "best", "first", "initial", "next", "step",
    "management", "treatment", "diagnosis", "likely", "appropriate", "patient",
})


def _fold(text: str) -> str:
    """Lower case; apostrophes, spaces and punctuation other than CJK and alphanumerics removed."""
    return re.sub(r"[^0-9a-z\u4e00-\u9fff]+", "", text.lower().replace("'s", ""))


def _words(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z0-9]+", text.lower().replace("'s", "")) if w not in _STOPWORDS]


def _same_stem(a: str, b: str) -> bool:
    """Two words of one stem: a shared beginning of ≥ 5 letters and ≥ 70% of the shorter word ('ampulla' ~
    'ampullary'; not 'hyperthyroidism' ~ 'hypertension')."""
    n = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return n >= 5 and n >= 0.7 * min(len(a), len(b))


def _coverage(option: str, sentence: str) -> float:
    """How much of an option's text a sentence says: for English, the share of the option's content words the
    sentence has (a word of the same stem counts, see `_same_stem`); for Chinese, the share of the
    option's characters in runs of ≥ 2 characters the sentence shares with it."""
    from difflib import SequenceMatcher

    if re.search(r"[a-z]{3}", option.lower()):
        ow, sw = _words(option), set(_words(sentence))
        if not ow:
            return 0.0
        hit = sum(1 for w in ow if w in sw or (len(w) >= 5 and any(_same_stem(w, x) for x in sw)))
        return hit / len(ow)
    a, b = _fold(option), _fold(sentence)
    if not a:
        return 0.0
    # Runs in any order ("舌下含服硝酸甘油" covers all of "硝酸甘油舌下含服"): take the longest shared run, blank it out
    # on both sides, repeat while runs of 2+ remain.
    covered = 0
    while True:
        m = SequenceMatcher(None, a, b, autojunk=False).find_longest_match(0, len(a), 0, len(b))
        if m.size < 2:
            return covered / len(_fold(option))
        covered += m.size
        a = a[:m.a] + "\x00" + a[m.a + m.size:]
        b = b[:m.b] + "\x01" + b[m.b + m.size:]


def _option_forms(text: str) -> list[str]:
    """An option's text, the same without a bracketed gloss ('Croup (laryngotracheobronchitis)' → 'Croup'), and a
    bracketed abbreviation ('Intravenous immunoglobulin (IVIG)' → 'IVIG')."""
    t = re.sub(r"\s+", " ", text).strip().rstrip("。.;；")
    bare = re.sub(r"\s*(?:（[^（）]*）|\([^()]*\))\s*", " ", t).strip()
    abbr = re.fullmatch(r"[^()]+\(([A-Z][A-Za-z0-9-]{2,9})\)", t)  # "Intravenous immunoglobulin (IVIG)" → "IVIG"
    return [t] if not bare or bare == t else [t, bare] + ([abbr.group(1)] if abbr else [])


def _distinctive(text: str, others: list[str]) -> str:
    """An option's text without what it shares with the other options (runs of 2+ characters, for Chinese; words,
    for English): 'A群β溶血性链球菌' beside '肺炎链球菌' → 'A群β溶血性'."""
    if re.search(r"[a-z]{3}", text.lower()):
        common = {w for o in others for w in _words(o)}
        return " ".join(w for w in _words(text) if w not in common)
    from difflib import SequenceMatcher

    keep = [True] * len(text)
    for other in others:
        for bl in SequenceMatcher(None, text, other, autojunk=False).get_matching_blocks():
            if bl.size >= 2:
                keep[bl.a:bl.a + bl.size] = [False] * bl.size
    return "".join(ch for ch, k in zip(text, keep, strict=True) if k)


def _fuzzy_named(sentence: str, option_texts: dict[str, str]) -> str | None:
    """The one option a sentence names in other words. An option is a candidate when the sentence covers ≥ 0.6 of
    its text (or of its distinctive part, what no other option shares) and says something of that distinctive
    part; one candidate wins, or the best by 0.25."""
    cands: list[tuple[float, str]] = []
    for k, v in option_texts.items():
        if not v or not v.strip():
            continue
        others = [o for j, o in option_texts.items() if j != k and o]
        best = 0.0
        for form in _option_forms(v):
            own = _distinctive(form, others)
            if re.fullmatch(r"[a-z0-9]", _fold(own)) and _fold(own) not in _fold(sentence):
                continue  # "这一类青霉素类抗生素" says nothing of the "G" of "青霉素G" beside "广谱青霉素"
            mine = _coverage(own, sentence) if len(_fold(own)) >= 2 else None
            if mine == 0.0:
                continue  # nothing of what sets this option apart is said
            best = max(best, _coverage(form, sentence), mine or 0.0)
        if best >= 0.6:
            cands.append((best, k))
    cands.sort(reverse=True)
    if not cands or (len(cands) > 1 and cands[0][0] - cands[1][0] < 0.25):
        return None
    return cands[0][1]


_EXCEPTION_CLAUSE = re.compile(r"不包括|不属于|不包含|除外|例外|(?i:\bexcept\b|\bnot (?:a|an|one of)\b)")
_JOINED = re.compile(r"(?:andalso|aswellas|and|or|和|或|或者|及|以及|与|/|、|&|\+)?")


def _joined_option(rest: str, others: dict[str, str]) -> bool:
    """`rest` (folded text right after a chosen option's text) joins another option's text to it ("…andraekosealer",
    "…ecstasy" from "Cocaine, Ecstasy")."""
    m = _JOINED.match(rest)
    return m is not None and any(rest[m.end():].startswith(v) for v in others.values())


def _by_option_text(text: str, option_texts: dict[str, str], multi: bool = False) -> str | None:
    """The option(s) whose text the conclusion names: the last sentence naming any option, read clause
    by clause, skipping clauses that reject what they name; an option named in other words counts when it is
    the only one the sentence covers well (see `_fuzzy_named`)."""
    norm = {k: re.sub(r"[\s,，\"'“”]+", "", v.translate(_FULLWIDTH_TABLE)).rstrip("。.;；").lower()
            for k, v in option_texts.items() if v and v.strip()}
    norm = {k: v for k, v in norm.items() if len(v) >= 2 and "…" not in v and "..." not in v}
    if not norm:
        return None
    sentences = re.split(r"[。！？!?\n]|\.(?=\s|$)", text)
    if not multi:
        # An option named right after an answer verb ("因此选择对乙酰氨基酚") outranks later mentions in passing.
        for sentence in reversed(sentences):
            flat = re.sub(r"[\s,，\"'“”]+", "", sentence).lower()
            chosen = {k for k, v in norm.items() if v in flat and _CHOOSING_VERB.search(flat[: flat.rindex(v)][-12:])}
            chosen = {k for k in chosen if not any(k != o and norm[k] in norm[o] for o in chosen)}
            if len(chosen) == 1 and not _NEGATED_CLAUSE.search(sentence):
                k = chosen.pop()
                rest = flat[flat.rindex(norm[k]) + len(norm[k]):]
                if _joined_option(rest, {o: v for o, v in norm.items() if o != k}):
                    return None  # "the answer is Real seal and Raeko sealer": two options chosen, so none
                return k
        if any(_lists_after_verb(re.sub(r"[\s\"'“”]+", "", c).lower(), list(norm.values()))
               for sentence in sentences if not _EXCEPTION_CLAUSE.search(sentence)  # "…，不包括短程冲击": read below
               for c in re.split(r"[，,；;]", sentence) if not _NEGATED_CLAUSE.search(c)):
            return None  # "都可见的是心悸失眠、干咳少痰、头晕眼花": three or more options listed, none chosen
    for sentence in reversed(sentences):
        if not sentence.strip():
            continue
        if not multi and (_REJECTED_AFTER.search(sentence) or _OTHERS_SENTENCE.match(sentence)):
            continue  # "Gabapentin eases nerve pain, but it does not help in GBS"; "其他选项例如…与本例不合"
        raw_clauses = re.split(r"[，,；;]", sentence)
        clauses = [c for c in raw_clauses if not _NEGATED_CLAUSE.search(c)
                   and (multi or not _enumeration(c, option_texts))]
        flat = re.sub(r"[\s\"'“”]+", "", "，".join(clauses)).lower()
        bare = flat.replace("，", "").replace(",", "")
        named = {k for k, v in norm.items() if v in bare}
        # A longer option text that contains a shorter one wins ("急性肾小球肾炎" over "肾炎").
        named = {k for k in named if not any(k != o and norm[k] in norm[o] for o in named)}
        if not named:
            if multi:
                continue
            fuzzy = _fuzzy_named("，".join(clauses), {k: option_texts[k] for k in norm})
            if fuzzy:
                return None if _named_elsewhere(sentences, norm, fuzzy) else fuzzy
            continue
        if multi:
            return "".join(sorted(named))
        if len(named) == 1:
            k = named.pop()
            return k
        # Several named: the one in an exception clause ("……，不包括短程冲击"), or the one whose last mention
        # follows an answer verb ("首选二甲双胍……胰岛素抵抗").
        excepted = {k for k in named for c in raw_clauses
                    if _EXCEPTION_CLAUSE.search(c) and norm[k] in re.sub(r"\s+", "", c).lower()}
        if len(excepted) == 1:
            return excepted.pop()
        chosen = {k for k in named if _ANSWER_VERB.search(bare[: bare.rindex(norm[k])][-6:])}
        return chosen.pop() if len(chosen) == 1 else None
    return None if multi else _misspelt_answer(sentences, norm)


# A sentence that concludes: what it names is the answer even when other options were discussed before.
_CONCLUDING = re.compile(
    r"所以|因此|故|综上|总之|最可能|最常见|首先考虑|首选|考虑为|诊断为|应为|应选|即|唯一|"
    r"(?i:\b(?:therefore|thus|hence|so|most likely|most appropriate|best|first-line|diagnosis is)\b)")
# What may precede an option's text at the start of a line that discusses it: numbering, bullets, its label.
_LINE_LEAD = re.compile(rf"^[\s\W\d_]*(?:(?:选项|(?i:option)\s*)?{_LETTER}\s*[.、:：)）]\s*)?")


def _exactly_named(text: str, option_texts: dict[str, str]) -> set[str]:
    """The options whose whole text the text contains (a longer option text containing a shorter one wins)."""
    norm = {k: _fold(html.unescape(v)) for k, v in option_texts.items() if len(_fold(v)) >= 2}
    flat = _fold(html.unescape(text))
    named = {k for k, v in norm.items() if v in flat}
    return {k for k in named if not any(k != o and norm[k] in norm[o] for o in named)}


# A line that concludes rather than continues the item before it: "所以唯一有效的是蒸发散热。"
_CONCLUSION_START = re.compile(
    r"^\W*(?:所以|因此|综上|总之|故|答案|(?i:therefore|thus|hence|so\b|in conclusion|the answer))")


def _in_own_rebuttal(text: str, letter: str, option_texts: dict[str, str], valid: str) -> bool:
    """The last sentence naming `letter`'s option by its text opens with that option's own label ("C选项的对流散热此时
    无效。") and concludes nothing: it discusses the option in a rebuttal of the options one by one."""
    own = _fold(option_texts.get(letter, ""))
    sentences = [x for x in re.split(r"(?<=[。！？!?])|\n|(?<=\.)\s+", text) if own and own in _fold(x)]
    if not sentences or _CONCLUSION_START.match(sentences[-1]):
        return False
    labels = _labels_of(sentences[-1], valid)
    return bool(labels) and labels[0][1] == letter and labels[0][0] <= len(sentences[-1]) - len(
        sentences[-1].lstrip()) + 3


def _text_walk(text: str, option_texts: dict[str, str]) -> tuple[int, int] | None:
    """Where the response walks through the options one after another, each opening its own line by its text or
    label (a line naming only the option before it, and concluding nothing, continues that option's item): the span
    from the first to the last line of the walk that ends with the last line naming one option, when it takes in
    at least three options."""
    norm = {k: _fold(html.unescape(v)) for k, v in option_texts.items() if len(_fold(v)) >= 2}
    items: list[tuple[int, int, str]] = []
    for m in re.finditer(r"[^\n]+", text):
        label = re.match(rf"{_OPTION_LINE}", m.group(0))
        named = _exactly_named(m.group(0), option_texts) if not label else {label.group(1)}
        if len(named) != 1:
            continue
        k = named.pop()
        if label:
            items.append((m.start(), m.end(), k))  # "A．辐射散热": the option's own line, by its label
        elif items and items[-1][2] == k and not _CONCLUSION_START.match(m.group(0)):
            items[-1] = (items[-1][0], m.end(), k)
        elif _fold(_LINE_LEAD.sub("", html.unescape(m.group(0))))[:len(norm[k]) + 2].startswith(norm[k]):
            items.append((m.start(), m.end(), k))
    run: list[tuple[int, int, str]] = []
    for item in reversed(items):
        if any(item[2] == r[2] for r in run):
            break
        run.append(item)
    if len(run) < 3:
        return None
    start = run[-1][0]
    # Numbered lines just before it belong to the same list ("(1) 四肢可见紫癜。" for an option "紫癜多见于四肢").
    while (prev := re.search(r"(?m)^[ \t]*(?:[(（]\d+[)）]|\d+[.、)）])[^\n]*\n\s*\Z", text[:start])) is not None:
        start = prev.start()
    return start, run[0][1]


# A sentence that names an option and then rejects it by a pronoun: "X eases …, but it does not help here".
_REJECTED_AFTER = re.compile(
    r"(?i:\b(?:but|however|although|though)\b,?\s+(?:it|this|they|these)\b[^.;]*\b(?:not|no)\b)|"
    r"(?:但|但是|然而)(?:它|其|该药|此药)[^。；]*?(?:不|无)")
# A sentence about the other options: "其他选项例如小肠实热证，…等与本例不合", "The other options are less likely".
_OTHERS_SENTENCE = re.compile(
    r"^\W*(?:而|但)?(?:其他|其余|其它|剩下的?|另外几?个?)(?:的)?(?:选项|答案|几项|各项)|"
    r"(?i:^\W*(?:all\s+)?(?:the\s+)?(?:other|remaining)\s+(?:options|choices|answers|answer choices)\b)")


def _enumeration(clause: str, option_texts: dict[str, str]) -> bool:
    """A clause that enumerates three or more items with "、" (its options' own "、" aside): "例如阿替洛尔、美托洛尔、
    比索洛尔等" — an option among them is an example, not a choice."""
    for v in option_texts.values():
        if v and "、" in v:
            clause = clause.replace(v, "")
    return clause.count("、") >= 2


def _lists_after_verb(clause: str, texts: list[str]) -> bool:
    """A folded clause gives three or more of the option `texts` as a list right after an answer verb."""
    at = sorted(clause.index(t) for t in texts if t in clause)
    return len(at) >= 3 and bool(_ANSWER_VERB.search(clause[:at[0]][-6:]))


def _named_elsewhere(sentences: list[str], norm: dict[str, str], k: str) -> bool:
    """Another option than `k` is named by its text, in a clause that does not reject it, in some sentence: the
    response discusses several options by their texts, so the last one it names is no choice of it."""
    for sentence in sentences:
        if _REJECTED_AFTER.search(sentence) or _OTHERS_SENTENCE.match(sentence):
            continue
        for clause in re.split(r"[，,；;]", sentence):
            if _NEGATED_CLAUSE.search(clause):
                continue
            flat = re.sub(r"[\s\"'“”]+", "", clause).lower()
            named = {o for o, v in norm.items() if v in flat}
            named = {o for o in named if not any(o != x and norm[o] in norm[x] for x in named)}
            if named - {k}:
                return True
    return False


# What a closing answer phrase names, in folded text: "answeris", "答案是".
_ANSWER_PHRASE = re.compile(r"(?:答案是|答案为|答案[:：]|首选|应选|(?i:answeris|answer:|answerwouldbe))")


def _misspelt_answer(sentences: list[str], norm: dict[str, str]) -> str | None:
    """The option a closing "the answer is …" names with a slip of spelling ("chloroform" for the option
    "Choloroform"): the whole phrase after the answer verb, in the last sentence, matches one option's folded text
    with a similarity ratio of at least 0.85 and no other option's within 0.25 of it."""
    from difflib import SequenceMatcher

    last = next((x for x in reversed(sentences) if x.strip()), "")
    flat = re.sub(r"[\s,，\"'“”]+", "", last).lower()
    verbs = list(_ANSWER_PHRASE.finditer(flat))
    phrase = flat[verbs[-1].end():].strip(".。;；:：") if verbs else ""
    if not 4 <= len(phrase) <= 60 or _NEGATED_CLAUSE.search(last):
        return None
    ratios = sorted(((SequenceMatcher(None, phrase, v, autojunk=False).ratio(), k) for k, v in norm.items()),
                    reverse=True)
    if ratios[0][0] >= 0.85 and (len(ratios) < 2 or ratios[0][0] - ratios[1][0] >= 0.25):
        return ratios[0][1]
    return None


def _marked_options(text: str, option_texts: dict[str, str]) -> str | None:
    """Options judged line by line by their text ("✅ 血容量增加……\n❌ 血红蛋白浓度升高……"): the ticked ones, when
    every marked line names one option and at least two lines are marked."""
    lines = _MARKED_LINE.findall(text)
    if len(lines) < 2 or not option_texts:
        return None
    ticked: set[str] = set()
    seen: set[str] = set()
    for mark, body in lines:
        flat = _fold(body)
        exact = [k for k, v in option_texts.items() if _fold(v) and _fold(v) in flat]
        k = exact[0] if len(exact) == 1 else _fuzzy_named(re.split(r"[—–(（:：]", body)[0], option_texts)
        if k is None or k in seen:
            return None
        seen.add(k)
        if mark not in ("❌", "✘", "✗", "×"):
            ticked.add(k)
    return "".join(sorted(ticked)) if ticked else None


def _walks_through_options(text: str, valid: str) -> bool:
    """Three or more of the options open a line of the response ("A. … \nB. … \nC. …"): it discusses them one by one."""
    return len({m.group(1) for m in re.finditer(rf"(?m)^{_OPTION_LINE}", text)} & set(valid)) >= 3


def _echo_end(text: str) -> int:
    """Where the last line that starts with an option label ends."""
    ends = [m.end() for m in re.finditer(rf"(?m)^[ \t]*{_OPEN}?{_LETTER}{_CLOSE}?\s*[.、:：)][^\n]*$", text)]
    return ends[-1] if ends else 0


# Praise of an option: what a rebuttal line never says of the option it rebuts.
_PRAISED = re.compile(r"(?i:\b(?:best|most (?:likely|appropriate)|correct|right answer|the answer|first[- ]line|"
                      r"treatment of choice|preferred)\b)|最|正确|首选")


def _explained_first(text: str, valid: str, option_texts: dict[str, str] | None) -> str | None:
    """An explanation that names its answer first and then rebuts the other options, each by its label (the
    'answer, then why not the others' style of exam explanations): "… points to hemophilia B, a lack of factor IX
    (choice B). …\n\nHemophilia A (choice A) looks the same …". The answer is the one option labelled in the first
    line that labels any, when that label does not open its line (an option-by-option walk-through opens each line
    with one), the lines after it label at least two other options, none of those lines opens with the answer's
    label, and none praises another option.
    With no label before the rebuttal, the answer is the one option the rebuttal leaves out, when the text before
    the rebuttal names that option (and no other) by its text. A text of one paragraph is read sentence by sentence.
    """
    for units in (r"\n", r"\n|(?<=[.!?])\s+|(?<=[。！？])"):  # lines, or sentences when the text is one paragraph
        lines = [x for x in re.split(units, text) if x.strip()]
        labelled = [(i, found) for i, x in enumerate(lines) if (found := _labels_of(x, valid))]
        if len(labelled) >= 2:
            break
    else:
        return None
    i, found = labelled[0]
    if found[0][0] <= len(lines[i]) - len(lines[i].lstrip()) + 3:
        found = []  # the first label opens its line: the rebuttal starts there, nothing labelled before it
    rest = [found for _, found in labelled[1:]] if found else [found for _, found in labelled]
    later = {L for found in rest for _, L in found}
    openers = {found[0][1] for found in rest}
    head_letters = {L for _, L in found}
    if len(head_letters) == 1 and found:
        answer = found[0][1]
        line = lines[i]
        at = found[0][0]
        clause = re.split(r"[,，;；。]|\.(?=\s|$)", line[:at])[-1] + re.split(r"[,，;；。]|\.(?=\s|$)", line[at:])[0]
        if at <= len(line) - len(line.lstrip()) + 3 or answer in openers or _NEGATED_CLAUSE.search(clause) or \
                re.search(r"(?i)eliminat|rule[sd]? out|exclude", clause):
            return None
        if len(later - {answer}) < 2:
            return None
        if any(_PRAISED.search(lines[j]) and not _NEGATED_CLAUSE.search(lines[j])
               for j, found in labelled[1:] if {x for _, x in found} - {answer}):
            return None  # a later line praises another option ("p-ANCA (option D) is the best next step")
        return answer
    # No label before the rebuttal: the option it leaves out, if the text before it names that one.
    left_out = set(valid) - head_letters - later
    if len(left_out) != 1 or not option_texts or i == 0:
        return None
    head = "\n".join(lines[:i])
    named = _by_option_text(head, {k: v for k, v in option_texts.items() if k in valid})
    return named if named == next(iter(left_out)) else None
