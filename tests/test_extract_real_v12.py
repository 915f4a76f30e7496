"""The classes of miss that the real-response set bench/data/extraction_real_v12_labels.jsonl showed (weak
medical-exam models that echo, ramble, write code or walk through the options; exam-style explanations that name the
answer first and then rebut the others), written anew here, each beside controls that must keep their reading. The
expected answers are what a careful reader takes; None where the response commits to no single option (an
abstention, never a guess)."""

from __future__ import annotations

import pytest

from climedbench.extract import extract_choice

BLEED = {"A": "Factor VIII deficiency", "B": "Factor IX deficiency", "C": "Factor VIII inhibitors",
         "D": "GP1b deficiency", "E": "Anti-platelet antibodies"}
HEAT = {"A": "辐射散热", "B": "传导散热", "C": "对流散热", "D": "蒸发散热", "E": "直接散热"}
SYMPTOMS = {"A": "心悸失眠", "B": "干咳少痰", "C": "纳差腹胀", "D": "头晕眼花", "E": "口干舌燥"}


@pytest.mark.parametrize("response, expected", [
    # The answer labelled first, then each other option rebutted by its label, no "the answer is".
    ("Easy bleeding after minor trauma with a long aPTT points to hemophilia B, a lack of factor IX (choice B). "
     "It is X-linked.\n\nHemophilia A (choice A) looks the same clinically.\n\nInhibitors (choice C) follow "
     "treatment.\n\nITP (choice E) lowers the platelet count.\n\nBernard-Soulier syndrome (choice D) prolongs "
     "the bleeding time.", "B"),
    ("The likeliest cause is a lack of factor IX (option B). Factor VIII deficiency (option A) is hemophilia A, "
     "inhibitors (option C) follow treatment, and GP1b deficiency (option D) is a platelet defect.", "B"),
    ("The most likely diagnosis for this boy is B: Factor IX deficiency.\n\nThe others do not fit:\n\n"
     "A: Factor VIII deficiency gives the same picture but is rarer here.\nC: Inhibitors follow treatment.\n"
     "D: GP1b deficiency is a platelet defect.", "B"),
    # No label before the rebuttal: the option it leaves out, which the text before it names.
    ("Hemophilia B is the diagnosis; this is factor IX deficiency.\n\nFactor VIII deficiency (option A), "
     "inhibitors (option C), GP1b deficiency (option D) and antibodies (option E) do not fit.", "B"),
    # Controls: every option taken in turn and none chosen; options eliminated one by one.
    ("Option A is not likely here.\nOption B is possible.\nOption C is possible.\nOption D is unlikely.", None),
    ("Factor VIII deficiency does not fit, so we eliminate answer choice A.\n\nGP1b deficiency is a platelet "
     "defect, so eliminate choice D.\n\nInhibitors need prior treatment, so eliminate choice C.", None),
])
def test_answer_labelled_first_then_the_others_rebutted(response, expected):
    assert extract_choice(response, "ABCDE", option_texts=BLEED).answer == expected


def test_an_option_labelled_first_in_passing_is_no_answer_when_another_is_praised_later():
    response = ("Steroids (option A) are used in many vasculitides.\n\nAzithromycin (option B) treats pneumonia.\n\n"
                "Collagen antibodies (option C) point to Goodpasture syndrome.\n\nA p-ANCA test (option D) is "
                "preferred as the first test here.")
    assert extract_choice(response, "ABCDE").answer is None


@pytest.mark.parametrize("response, expected", [
    # Chinese rebuttals by "X选项", the answer named only by its text before them.
    ("环境温度高于皮肤温度时，唯一有效的散热形式是蒸发散热。而其他选项A、B、C、E都不符合。A选项辐射散热需要皮肤温度高于环境。"
     "B选项传导散热同理。C选项对流散热同理。E选项直接散热不是生理学术语。", "D"),
    ("此时只能靠蒸发散热。A选项的辐射散热此时无效。B选项的传导散热此时无效。C选项的对流散热此时无效。E选项不是术语。", "D"),
    # Control: the same rebuttals, but the text before them names no option.
    ("这个问题需要考虑环境温度。A选项的辐射散热此时无效。B选项的传导散热此时无效。C选项的对流散热此时无效。E选项不是术语。", None),
])
def test_chinese_rebuttals_by_label(response, expected):
    assert extract_choice(response, "ABCDE", option_texts=HEAT).answer == expected


@pytest.mark.parametrize("response, expected", [
    # A walk through the options by their texts, each opening its own line, and nothing chosen after it.
    ("散热有以下几种形式：\n\n1.辐射散热\n\n辐射散热是以热射线的形式散热。\n\n2.传导散热\n\n传导散热是直接传给接触物。\n\n"
     "3.对流散热\n\n对流散热靠空气流动。\n\n4.蒸发散热\n\n蒸发散热靠水分蒸发。\n\n5.直接散热\n\n直接散热是热量直接散失。", None),
    # The options glossed in order under their labels, nothing chosen (a weak model's echo).
    ("A.\n\n辐射散热\n\n辐射散热是热射线。\n\nB.\n\n传导散热\n\n传导散热靠接触。\n\nC.\n\n对流散热\n\n"
     "D.\n\n蒸发散热\n\nE.\n\n直接散热\n\n直接散热是热量直接散失。", None),
    ("参考答案\n\nA．辐射散热\n\nB．传导散热\n\nC．对流散热\n\nD．蒸发散热\n\nE．直接散热", None),
    # Controls: the answer stated before the walk, after it, or by letter under an answer heading.
    ("当环境温度接近皮肤温度时，唯一有效的散热形式是蒸发散热。\n\n1.辐射散热：需要温差。\n2.传导散热：需要温差。\n"
     "3.对流散热：需要温差。\n4.蒸发散热：不需要温差。\n5.直接散热：不是术语。", "D"),
    ("1.辐射散热：需要温差。\n2.传导散热：需要温差。\n3.对流散热：需要温差。\n4.蒸发散热：不需要温差。\n\n"
     "所以唯一有效的是蒸发散热。", "D"),
    ("## 答案\n\n**D**\n\n## 解析\n\n- **A**：辐射散热需要温差\n- **B**：传导散热需要温差\n- **C**：对流散热需要温差\n"
     "- **D**：蒸发散热不需要温差 ✅\n- **E**：直接散热不是术语", "D"),
])
def test_walk_through_the_options_is_no_answer(response, expected):
    assert extract_choice(response, "ABCDE", option_texts=HEAT).answer == expected


@pytest.mark.parametrize("response, expected", [
    # A program instead of an answer: its strings and calls name no choice.
    ("A small program:\n```python\ndef pick(x):\n    if x:\n        return '蒸发散热'\n    return '辐射散热'\n```", None),
    ("Some code:\ndef choose(d):\n    return sorted(d)\n\nimport random\n\ndef pick(d):\n"
     "    return random.choice('ABCD')\n", None),
    # Control: code, then the prose answers.
    ("函数示例：\n```python\ndef foo(n):\n    return n\n```\n\n因此，选择D是正确的。", "D"),
    # Control: the answer itself in a fenced block.
    ('```json\n{"answer": "D"}\n```', "D"),
    ("```\nAnswer: D\n```", "D"),
])
def test_code_is_no_answer(response, expected):
    assert extract_choice(response, "ABCDE", option_texts=HEAT).answer == expected


@pytest.mark.parametrize("response, expected", [
    # Two option lines with "或者" between them after the answer phrase: a hedge.
    ("我的答案是：\n\nA：辐射散热\n\n或者\n\nC：对流散热", None),
    ("The best answer is:\n\nA: Factor VIII deficiency\n\nor\n\nB: Factor IX deficiency", None),
    # Control: one option line, then its reason.
    ("我的答案是：\n\nA：辐射散热\n\n因为其他方式都需要温差。", "A"),
])
def test_or_between_two_option_lines_is_a_hedge(response, expected):
    assert extract_choice(response, "ABCDE").answer == expected


@pytest.mark.parametrize("response, expected", [
    ("收到。请把第二个问题也发给我吧。", None),
    ("请告诉我第三题的内容。", None),
    # Control: an ordinal of an option.
    ("第二个选项正确。", "B"),
])
def test_ordinal_of_a_question_is_no_option(response, expected):
    assert extract_choice(response, "ABCDE").answer == expected


@pytest.mark.parametrize("response, expected", [
    # Letters in braces, a curly quote after the answer phrase, "making answer B the correct answer".
    ("正确答案是：{B}", "B"),
    ("根据分析，正确的答案是“B：传导散热”。", "B"),
    ("Both parents carry it silently, making answer B the correct answer.", "B"),
    ("So overall the answer is 'C: Factor VIII inhibitors' here.", "C"),
    # Controls: an apostrophe is no quote; a word in braces is no letter.
    ("The answer isn't clear from the vignette.", None),
])
def test_answer_letters_in_braces_and_quotes(response, expected):
    assert extract_choice(response, "ABCDE").answer == expected


@pytest.mark.parametrize("response, expected", [
    # Three or more options listed after the answer verb in a single-answer item: no single answer.
    ("几脏阴虚都可见的是心悸失眠、干咳少痰、头晕眼花、口干舌燥。纳差腹胀则属脾虚。", None),
    # Controls: one option after the verb; a list rejected as unrelated beside one chosen.
    ("阴虚的共同症状是口干舌燥，其余都只是某一脏的表现。", "E"),
    ("可继续服用心悸失眠方；干咳少痰、纳差腹胀、头晕眼花与本病无关。", "A"),
])
def test_several_options_listed_as_the_answer(response, expected):
    assert extract_choice(response, "ABCDE", option_texts=SYMPTOMS).answer == expected


@pytest.mark.parametrize("response, expected", [
    # An option read by its text while the response labels a different one: the reading cannot be trusted.
    ("该病的特点是干咳少痰；心悸失眠并不是它的特点，因此选项A不对。", None),
    # Control: the label agrees with the text.
    ("该病的特点是心悸失眠。所以，选项A是对的。", "A"),
])
def test_option_text_against_a_labelled_option(response, expected):
    assert extract_choice(response, "ABCDE", option_texts=SYMPTOMS).answer == expected


@pytest.mark.parametrize("response, expected", [
    # "答案为{无}" after a first answer: the response concludes no option fits.
    ("{A. 辐射散热}\n再想一想，五种散热形式都不满足题意。所以答案为{无}。", None),
    # Control: braces around a letter.
    ("分析……\n因此答案为{D}。", "D"),
])
def test_answer_none_in_braces(response, expected):
    assert extract_choice(response, "ABCDE", option_texts=HEAT).answer == expected


@pytest.mark.parametrize("response, expected", [
    # A genus initial after an answer phrase is no option letter.
    ("The most likely cause is either N. gonorrhoeae or C. trachomatis, and cultures will tell.", None),
    ("The most likely organism is E. coli, which fits the picture.", None),
    # Controls: an option letter with its text, and a letter before a capitalised word.
    ("The most likely organism is B. Escherichia coli.", "B"),
    ("The answer is C. Chlamydia trachomatis.", "C"),
])
def test_genus_initial_is_no_option_letter(response, expected):
    assert extract_choice(response, "ABCDE").answer == expected


DRUG_CLASSES = {"A": "二氮嗪、氢氯噻嗪", "B": "血管紧张素转化酶抑制剂", "C": "美托洛尔", "D": "哌唑嗪", "E": "以上均不能用"}
PENICILLINS = {"A": "耐酶青霉素类", "B": "青霉素G", "C": "广谱青霉素", "D": "第一代头孢菌素", "E": "第三代头孢菌素"}
GBS = {"A": "Intravenous immunoglobulin (IVIG)", "B": "Prednisone", "C": "Botulism antitoxin",
       "D": "Intravenous acyclovir", "E": "Gabapentin"}


@pytest.mark.parametrize("response, options, expected", [
    # An option among the examples of an enumeration ("如…、…、…等") is no choice of it.
    ("应避免的药物有：\n1. β受体阻滞剂，例如阿替洛尔、美托洛尔、比索洛尔等。", DRUG_CLASSES, None),
    # Control: the option alone after the answer verb (its own "、" is part of its text).
    ("答案是二氮嗪、氢氯噻嗪，因为它们升高血糖。", DRUG_CLASSES, "A"),
    # A drug class that covers several options says nothing of what sets one apart.
    ("这一类青霉素类抗生素，肾功能差时都要避免。", PENICILLINS, None),
    ("青霉素G对肾功能不良者应慎用。", PENICILLINS, "B"),
    # An option named and then rejected by a pronoun; the answer named by its bracketed abbreviation.
    ("For GBS the best treatment here is IVIG. Gabapentin eases nerve pain, but it does not help "
     "in GBS.", GBS, "A"),
    ("Gabapentin eases nerve pain, but it does not help in GBS.", GBS, None),
    # A numbered list of the options (its first item in other words) with nothing chosen after it.
    ("相关的几项是：\n\n(1) 四肢可见紫癜。\n(2) 青霉素G\n(3) 广谱青霉素\n(4) 第一代头孢菌素\n"
     "(5) 第三代头孢菌素\n\n这些都要考虑。", PENICILLINS, None),
])
def test_examples_classes_and_rejections_are_no_choice(response, options, expected):
    assert extract_choice(response, "ABCDE", option_texts=options).answer == expected


SPERM = {"A": "Primary spermatocyte", "B": "Secondary spermatocyte", "C": "Spermatid", "D": "Spermatogonium"}
SYNDROMES = {"A": "小肠实热证", "B": "膀胱湿热证", "C": "热结膀胱证", "D": "肝胆湿热证"}


@pytest.mark.parametrize("response, options, expected", [
    # A letter after "is" with its own option's text, where no answer phrase stands before it.
    ("Given the karyotype, the division that failed here is B: Secondary spermatocyte.\n\nMeiosis II "
     "separates sister chromatids.", SPERM, "B"),
    # Controls: the letter with another option's text; the letter negated.
    ("The stage at which the error occurred is B: Spermatid.\n\nSpermatogenesis proceeds in order.", SPERM, None),
    ("It is not B: Secondary spermatocyte.", SPERM, None),
    # A sentence about the other options names no answer; the sentence before it does.
    ("尿频尿急、小便灼热，辨为膀胱湿热证。其他选项例如小肠实热证，热结膀胱证，肝胆湿热证等与本例不合。", SYNDROMES, "B"),
    # Control: only the other options are discussed.
    ("病人有发热。其他选项例如小肠实热证，热结膀胱证，肝胆湿热证等与本例不合。", SYNDROMES, None),
])
def test_letter_with_its_text_and_the_other_options(response, options, expected):
    assert extract_choice(response, "ABCD", option_texts=options).answer == expected
