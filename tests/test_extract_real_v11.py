"""The classes of miss that the real-response set bench/data/extraction_real_v11.jsonl showed (issue 19 part 4),
written anew here, each beside controls that must keep their reading. The expected answers are what a careful reader
takes; None where the response commits to no single option (an abstention, never a guess)."""

from __future__ import annotations

import pytest

from climedbench.extract import extract_choice

DRUGS = {"A": "Heroin", "B": "Cocaine", "C": "Cannabis", "D": "Ecstasy"}
COT = "Let's think step by step. The pupils are dilated and the patient is sweating.\n\n" \
      "Therefore, among A through D, the answer is "


@pytest.mark.parametrize("response, expected", [
    # Pseudo-sub-questions, each with its own answer slot: several answers, so none.
    ("（1）【解析】A项搭配不当。<eoe>\n【答案】: A <eoa>\n（2）【解析】C项成分残缺。<eoe>\n【答案】: C <eoa>", None),
    ("(1)【解析】①②⑤项正确。\n【答案】A <eoa>\n(2)【解析】③④⑥项正确。\n【答案】D <eoa>", None),
    # Controls: the same slot twice, and a slot corrected in between.
    ("（1）【解析】……<eoe>\n【答案】: B <eoa>\n（2）【解析】……<eoe>\n【答案】: B <eoa>", "B"),
    ("【解析】初看【答案】A，但仔细分析，应选C。\n【答案】C <eoa>", "C"),
    # Control: an answer in the analysis, then the answer slot: the slot is the commitment.
    ("【解析】……因此答案为A。\n【答案】B <eoa>", "B"),
])
def test_several_answer_slots_disagreeing_are_no_answer(response, expected):
    assert extract_choice(response, "ABCD").answer == expected


@pytest.mark.parametrize("response, multi, expected", [
    # Letters inside a LaTeX font command.
    ("【解析】……因此，答案为 $\\mathrm{(A, D)}$。\n\n【答案】 $\\mathrm{(A, D)}$ <eoa>", True, "AD"),
    ("【解析】……\n【答案】 $\\mathbf{B}$ <eoa>", False, "B"),
    ("The answer is $\\textrm{C}$.", False, "C"),
])
def test_letters_in_latex_font_commands(response, multi, expected):
    assert extract_choice(response, "ABCD", multi=multi).answer == expected


@pytest.mark.parametrize("response, expected", [
    # "most likely" / "probably" between the answer phrase and the letter: the letter is the answer.
    (COT + "most likely C.", "C"),
    (COT + "probably D.", "D"),
    (COT + "most likely to be A.", "A"),
    # ... but not when two letters follow it, or a second one is left open.
    (COT + "most likely B or C.", None),
    (COT + "most likely B, but it could also be D.", None),
    (COT + "B, but D is also possible.", None),
    (COT + "B. D is also a possibility.", None),
    ("答案是B，也可能是D。", None),
    (COT + "B) Cocaine. However, D) Ecstasy could also cause these symptoms.", None),
    (COT + "B) Cocaine\n\nD) Ecstasy is also a possibility.", None),
    (COT + "B, or possibly D.", None),
    (COT + "B) Cocaine (or possibly D) Ecstasy).", None),
    # Controls: a second option named and rejected, or said to be reasonable but set aside.
    (COT + "most likely B, not D.", "B"),
    ("I'd go with B, though C is also a reasonable thought, it is not first-line.", "B"),
    ("The answer is B) Cocaine. A) Heroin could also cause mydriasis in withdrawal, but not here.", "B"),
    ("答案是B。A项也可能引起瞳孔散大，但本例为急性中毒。", "B"),
    ("Answer: B\n\nWhy not the others:\n- D) Ecstasy could also cause these symptoms, but diarrhoea is rare.", "B"),
    ("答案是B，D也有可能，但可能性较小。", "B"),
])
def test_hedging_adverbs_and_second_options_left_open(response, expected):
    assert extract_choice(response, "ABCD", option_texts=DRUGS).answer == expected


@pytest.mark.parametrize("response, expected", [
    # Two options written out with their labels and joined as the answer of a single-answer item.
    (COT + "C) Cannabis and D) Ecstasy.", None),
    (COT + "B) Cocaine or D) Ecstasy.", None),
    (COT + "(B) Cocaine or (D) Ecstasy.", None),
    ("答案：A. 海洛因和C. 大麻", None),
    (COT + "A) and B).", None),
    (COT + "A), B), C), and D).", None),
    (COT + ":\n\nB) Cocaine\nD) Ecstasy", None),
    # The options echoed instead of an answer, on one line or one per line, or a range of them.
    (COT + "A) Heroin B) Cocaine C) Cannabis D) Ecstasy", None),
    (COT + "A) Heroin\nB) Cocaine\nC) Cannabis\nD) Ecstasy", None),
    (COT + "A through D.", None),
    # Two option texts joined, with no letters.
    (COT + "Cocaine and Ecstasy.", None),
    (COT + "Cocaine or Ecstasy.", None),
    (COT + "Cocaine, Ecstasy.", None),
    # Controls: one labelled option, then others rejected or discussed.
    (COT + "B) Cocaine, not D) Ecstasy.", "B"),
    (COT + "C. A) is wrong and B) is not ideal.", "C"),
    (COT + "D) Ecstasy.", "D"),
    (COT + ":\n\nB) Cocaine", "B"),
    (COT + "B) Cocaine and amphetamines.", "B"),
    (COT + "Ecstasy.", "D"),
])
def test_two_options_joined_as_one_answer(response, expected):
    assert extract_choice(response, "ABCD", option_texts=DRUGS).answer == expected


SOLVENTS = {"A": "Terpentine", "B": "Choloroform", "C": "Methylchioroform", "D": "Halothane"}


@pytest.mark.parametrize("response, expected", [
    # An option named after "the answer is" with a slip of spelling (in the answer or in the option).
    ("The safest solvent is chloroform.\n\nTherefore, among A through D, the answer is chloroform.", "B"),
    ("Therefore, among A through D, the answer is halothan.", "D"),
    # Controls: a phrase like no option, and two options joined.
    ("Therefore, among A through D, the answer is a fracture.", None),
    ("Therefore, among A through D, the answer is Methylchioroform or Choloroform.", None),
])
def test_misspelt_option_text_after_the_answer_phrase(response, expected):
    assert extract_choice(response, "ABCD", option_texts=SOLVENTS).answer == expected


DRUGS_ZH = {"A": "海洛因", "B": "可卡因", "C": "大麻", "D": "摇头丸"}
# Each option analysed at length (an opening list of options would be skipped anyway).
WALK = ("【解析】\nA. 海洛因：" + "阿片类中毒时瞳孔缩小，呼吸抑制，与本例瞳孔散大、出汗不符；戒断时可见瞳孔散大，但本例为急性中毒。" * 8
        + "\nB. 可卡因：" + "可卡因为中枢兴奋剂，可致瞳孔散大、激越、失眠与出汗，但腹泻少见。" * 4
        + "\nC. 大麻：" + "大麻中毒常见结膜充血、心动过速与食欲增加，瞳孔多无明显散大。" * 4 + "\n")


@pytest.mark.parametrize("response, expected", [
    # A walk through the options, one line each, that stops before any conclusion: an option's own line is no choice.
    (WALK + "D. 摇头丸：可致瞳孔散大、出汗、腹泻和失眠，净", None),
    (WALK + "D. 摇头丸：可致瞳孔散大、出汗、腹泻和失眠", None),
    # Controls: the same walk with a conclusion naming an option by its text.
    (WALK + "D. 摇头丸：可致瞳孔散大、出汗。\n\n综上，应选择摇头丸。", "D"),
    (WALK + "D. 摇头丸：可致瞳孔散大、出汗。\n\n故答案为：可卡因。", "B"),
])
def test_option_lines_of_a_walk_through_are_not_a_choice(response, expected):
    assert extract_choice(response, "ABCD", option_texts=DRUGS_ZH).answer == expected


def test_a_further_question_the_model_invents_is_not_read():
    # A completion model that goes on with a new "Q: … A) …" of its own: only its answer to this question counts.
    response = (COT + "B.\n\nQ: A 45-year-old man has chest pain. What is the diagnosis?\nA) Angina\nB) Reflux\n"
                "C) Pericarditis\nD) Infarction\n\nA: Let's think step by step. The answer is C.")
    assert extract_choice(response, "ABCD").answer == "B"


NOTA = {"A": "Heroin", "B": "Cocaine", "C": "Cannabis", "D": "None of the above"}


@pytest.mark.parametrize("response, texts, expected", [
    # The letter given with another option's text, or with "none of the above" that is not its text: the model's
    # options are not the item's, so the letter is not trusted.
    (COT + "B) Ecstasy.", DRUGS, None),
    (COT + "D) None of the above.", DRUGS, None),
    # Controls: the letter with its own text, and a letter that does not exist quoting an option's text.
    (COT + "D) Ecstasy.", DRUGS, "D"),
    (COT + "D) None of the above.", NOTA, "D"),
    (COT + "E, 'None of the Above'.", NOTA, "D"),
])
def test_letter_whose_text_is_another_options(response, texts, expected):
    assert extract_choice(response, "ABCD", option_texts=texts).answer == expected


@pytest.mark.parametrize("response, multi, expected", [
    # Bracketed letters joined by a comma or 和 are one run, not the first letter alone.
    ("【解析】……\n【答案】 $\\textbf{(A)}$ 和 $\\textbf{(C)}$ <eoa>", True, "AC"),
    ("答案：(A), (C)", True, "AC"),
    ("答案：(A), (C)", False, None),
    # A multi answer, then one of its letters explained: the explanation does not replace the answer.
    ("【解析】……\n【答案】 AD，其中A正确是因为电流减半 <eoa>", True, "AD"),
    # Two labelled options joined as a multi answer.
    ("The answer is A) Heroin and C) Cannabis.", True, "AC"),
    ("The answer is A) and C).", True, "AC"),
    # Controls: "only" and a correction do replace it; a lone bracketed letter after a diagnosis is read.
    ("答案：ABC。\n解析：……只有A正确。", True, "A"),
    ("答案：ABD。……经检查，D错误，应为AB。", True, "AB"),
    ("诊断为急性胰腺炎（A）。", False, "A"),
])
def test_multi_runs_in_brackets_and_explanations_after_the_answer(response, multi, expected):
    assert extract_choice(response, "ABCD", multi=multi).answer == expected
