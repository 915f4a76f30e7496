"""The bundled demo set: counts, balance, uniqueness, and agreement of data, prompts, extraction and metrics."""

import re
from collections import Counter
from itertools import combinations

import pytest

from climedbench.data.loaders import load_items
from climedbench.prompts import PromptSettings, build_messages, demonstration
from climedbench.scoring import Scorer

MIN_TEST, MIN_DEV = 25, 5
FIXED_LETTER = {"FTT"}  # FTT's gold is by construction the last option, 以上均不对 (E)


@pytest.fixture(scope="module")
def demo(suite):
    report = load_items(None, suite)
    return report


def test_every_record_is_valid_and_counts_reach_the_minimum(demo, suite):
    assert demo.problems == []
    tests, devs = demo.valid_counts("test"), demo.valid_counts("dev")
    for sc in suite.tasks:
        assert tests.get(sc.code, 0) >= MIN_TEST, sc.code
        assert devs.get(sc.code, 0) >= MIN_DEV, sc.code
    assert sum(tests.values()) >= 350


def test_records_carry_provenance_and_a_rationale(demo, suite):
    for it in demo.items:
        assert it.rationale and len(it.rationale) >= 20, it.uid
        assert it.specialty and it.source and it.synthetic is not None, it.uid
        assert it.rationale not in it.input, it.uid  # never shown to the model
        assert not re.search(r"（注[：:]|原页面|climedbench", it.input), it.uid  # no text meant for editors
    official = [i for i in demo.items if i.synthetic is False]
    assert sorted(i.task for i in official) == sorted(suite.codes)  # one official example each
    assert all("CliMedBench" in (i.source or "") for i in official)
    assert len({i.specialty for i in demo.items}) >= 10


def test_gold_letters_are_balanced(demo, suite):
    for sc in suite.tasks:
        items = [i for i in demo.items if i.task == sc.code and i.split == "test"]
        if sc.is_choice and sc.code not in FIXED_LETTER:
            counts = Counter(i.answer for i in items)
            assert max(counts.values()) / len(items) <= 0.35, (sc.code, counts)
            for i in items:
                assert i.answer in i.options, i.uid
        if sc.loader_options.get("misleading_reference"):
            counts = Counter(i.meta.get("misleading_answer") for i in items)
            assert max(counts.values()) / len(items) <= 0.35, (sc.code, counts)
        if sc.shape == "order":
            firsts = Counter(i.answer[0] for i in items)
            assert max(firsts.values()) / len(items) <= 0.35, (sc.code, firsts)
            identity = [i.uid for i in items if i.answer == "".join(sorted(i.answer))]
            assert len(identity) <= 3, identity
    ftt = [i for i in demo.items if i.task == "FTT"]
    assert all(i.options[i.answer] == "以上均不对" and i.answer == i.letters[-1] for i in ftt)


def _norm(text: str) -> str:
    return re.sub(r"[\W_]+", "", text)


def _shingles(text: str, k: int = 8) -> set[str]:
    t = _norm(text)
    return {t[i:i + k] for i in range(max(1, len(t) - k + 1))}


def test_no_exact_or_near_duplicate_inputs(demo, suite):
    for sc in suite.tasks:
        items = [i for i in demo.items if i.task == sc.code]
        norms = Counter(_norm(i.input) for i in items)
        assert max(norms.values()) == 1, sc.code
        sh = {i.uid: _shingles(i.input) for i in items}
        for a, b in combinations(items, 2):
            inter = len(sh[a.uid] & sh[b.uid])
            jaccard = inter / max(1, len(sh[a.uid] | sh[b.uid]))
            assert jaccard < 0.5, (a.uid, b.uid, round(jaccard, 2))


def test_inputs_have_realistic_lengths(demo):
    for code in ("ID#1", "ID#2", "ID#3", "ID#4"):
        lengths = sorted(len(i.input) for i in demo.items if i.task == code and i.split == "test")
        assert lengths[len(lengths) // 2] >= 300, (code, lengths)  # median: several hundred characters
        assert sum(n > 1500 for n in lengths) >= 2, (code, lengths)  # a spread for input-length analysis
    for code, lo, hi in (("CPR", 4, 7), ("SSO", 4, 7)):
        sizes = {len(i.options) for i in demo.items if i.task == code}
        assert min(sizes) >= 2 and max(sizes) <= hi and len(sizes) >= 2, (code, sizes)
        assert max(sizes) >= lo + 2, (code, sizes)
    ke = [len(i.targets or []) for i in demo.items if i.task == "KE" and i.synthetic]
    assert min(ke) >= 3 and max(ke) <= 6


def test_gold_answers_score_full_marks_through_prompts_extraction_and_metrics(demo, suite):
    """A scripted response that states the gold answer and then explains it with the item's own rationale
    (which names the distractors' letters) must extract to the gold and score 1 in every scenario."""
    scorer = Scorer()
    by_code = {s.code: s for s in suite.tasks}
    failures = []
    for it in demo.items:
        sc = by_code[it.task]
        if sc.answer == "text":
            continue  # a copy of the reference is similar to itself by construction: nothing to check
        for variant in ("vanilla", "cot"):
            messages = build_messages(sc, it, [], PromptSettings(variant=variant), suite)
            assert it.input in messages[-1]["content"] and it.rationale not in messages[-1]["content"]
        gold = demonstration(sc, it)
        response = f"{gold}\n\n理由：{it.rationale}"
        scored = scorer.score(sc, it, response)
        target = 0.999 if sc.metric == "similarity" else 1.0 - 1e-9
        if scored.score < target:
            failures.append((it.uid, scored.extracted, it.answer or it.targets, round(scored.score, 3)))
    assert failures == []


def test_data_card_matches_the_data():
    """docs/DATA.md's generated tables are what scripts/data_card.py prints for the bundled data."""
    import importlib.util

    from .conftest import ROOT

    spec = importlib.util.spec_from_file_location("data_card", ROOT / "scripts" / "data_card.py")
    assert spec and spec.loader
    card = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(card)
    text = (ROOT / "docs" / "DATA.md").read_text("utf-8")
    generated = text.split(card.BEGIN, 1)[1].split(card.END, 1)[0].strip()
    assert generated == card.tables().strip(), "run: python scripts/data_card.py --write"


NEW_RULES = {"longest option other than the shown reference", "the one option with dosing instructions",
             "the one option with a number", "the one option with parentheses", "the one option with a negation",
             "the one option with absolute wording"}


def test_no_option_only_rule_beats_chance_by_more_than_15_points(demo, suite):
    """Rules that never read the case (longest option, agreement with the other options, wording shared with the
    question, FIT's longest option other than the shown reference, the one option with dosing instructions / a number /
    parentheses / a negation / absolute wording, key position, always-X) find the key at most 15 points above chance in
    every choice scenario of the bundled demo set, test and dev split. The one exception is by design: FTT's key is the
    none-of-the-above option, always the last letter."""
    from climedbench.audit import audit_items

    choice_codes = {sc.code for sc in suite.tasks if sc.answer == "single"}
    over = []
    for split in ("test", "dev"):
        audits = audit_items(demo.items, suite, split)
        assert {a.task for a in audits} == choice_codes, split  # every single-answer scenario was audited
        for a in audits:
            assert a.n >= MIN_DEV and {r.rule for r in a.rules} >= {
                "longest option", "agrees with the other options", "shares wording with the question"}, a.task
            assert {r.rule for r in a.rules} >= NEW_RULES - {"longest option other than the shown reference"}, a.task
            if a.task == "FIT":
                assert a.rule("longest option other than the shown reference").n == a.n  # every FIT item shows one
            for r in a.rules:
                by_design = a.task in FIXED_LETTER and r.rule in ("always E", "most frequent key position",
                                                                  "always none of the above")
                if not by_design and 100 * (r.accuracy - r.chance) > 15:
                    over.append((a.task, split, r.rule, round(100 * r.accuracy), round(100 * r.chance)))
        ftt = next(a for a in audits if a.task == "FTT")
        assert next(r for r in ftt.rules if r.rule == "always E").accuracy == 1.0  # the by-design exception holds
        assert ftt.rule("always none of the above").accuracy == 1.0
        mc = next(a for a in audits if a.task == "MC")
        assert mc.rule("the one option with dosing instructions").n <= 2, split  # doses on the key and distractors
    assert over == []


def _blatchford(urea_mmol_l: float, hb_g_dl: float, male: bool, sbp: int, pulse: int, melena: bool, syncope: bool,
                hepatic: bool, cardiac_failure: bool) -> int:
    """Glasgow-Blatchford score (Blatchford et al., Lancet 2000;356:1318), from its published table."""
    score = next((p for lo, p in ((25, 6), (10, 4), (8, 3), (6.5, 2)) if urea_mmol_l >= lo), 0)
    hb_bands = ((12, 1), (10, 3), (0, 6)) if male else ((10, 1), (0, 6))
    top = 13 if male else 12
    score += 0 if hb_g_dl >= top else next(p for lo, p in hb_bands if hb_g_dl >= lo)
    score += 0 if sbp >= 110 else 1 if sbp >= 100 else 2 if sbp >= 90 else 3
    return score + (pulse >= 100) + melena + 2 * (syncope + hepatic + cardiac_failure)


def test_clinicbench_hospsumm_gi_bleed_states_the_blatchford_score_its_own_values_give():
    """HospSumm test item 4 (test.json:20): the score stated in the note and in the reference summary is the one the
    note's admission values give (BUN in mg/dL x 0.357 = urea in mmol/L)."""
    from climedbench.core.suite import load_suite

    items = load_items(None, load_suite("clinicbench"), tasks=["HospSumm"]).items
    it = next(i for i in items if i.split == "test" and "Glasgow-Blatchford" in i.input)
    note = it.input
    num = lambda pattern: float(re.search(pattern, note).group(1))  # noqa: E731
    computed = _blatchford(urea_mmol_l=num(r"BUN (\d+)") * 0.357, hb_g_dl=num(r"Hemoglobin (\d+\.\d)"),
                           male="Mr. ___" in note, sbp=int(num(r"BP (\d+)/")), pulse=int(num(r"HR (\d+)")),
                           melena="Melena" in note, syncope=bool(re.search(r"(?<!and )syncope", note)),
                           hepatic="No stigmata of chronic liver disease" not in note,
                           cardiac_failure="heart failure" in note.lower())
    assert _blatchford(20.7, 7.9, True, 94, 118, True, False, False, False) == 14  # by hand: 4 + 6 + 2 + 1 + 1
    stated = int(re.search(r"Glasgow-Blatchford score (\d+)", note).group(1))
    assert stated == computed
    assert f"Glasgow-Blatchford score of {computed}" in it.reference
