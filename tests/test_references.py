"""Gold references are parsed strictly: a reference that does not state one answer is an error, not a guess."""

import pytest

from climedbench.data.references import ReferenceError, reference_letter, reference_letters, reference_order


@pytest.mark.parametrize("text, letter", [
    ("B", "B"), (" (C) ", "C"), ("Ｄ．", "D"), ("B. 急性心力衰竭", "B"), ("A、甲状腺功能亢进", "A"),
    ("答案：C", "C"), ("正确答案是 B，保和丸消食导滞……", "B"), ("参考答案为E", "E"),
    ("我认为答案 C 并不正确……因此答案应为 E 而不是 C。", "E"),
    ("答案 A 并不正确，前囟一般在1～1.5岁闭合，故正确答案为C。", "C"),
    ("The correct answer is D because ...", "D"), ("Answer: A", "A"),
])
def test_stated_letters(text, letter):
    assert reference_letter(text, "ABCDE") == letter


@pytest.mark.parametrize("text, why", [
    ("安神补脑液最合适", "states no option letter"),          # an option's text is not a key
    ("可能是A，也可能是C", "states no option letter"),           # a hedge states nothing
    ("答案是A。不对，答案是C。", "states several answers"),     # two statements: refuse, do not guess the last
    ("F", "states no option letter"),                           # not an option of this item
    ("维生素B缺乏", "states no option letter"),                  # a letter inside a word
])
def test_unclear_references_are_errors(text, why):
    with pytest.raises(ReferenceError, match=why):
        reference_letter(text, "ABCDE")


def test_orders_and_letter_sets():
    for text in ("ABDC", "A→B→D→C", "A, B, D, C", "答案：A B D C", "正确顺序为 A-B-D-C"):
        assert reference_order(text, "ABCD") == "ABDC"
    for bad in ("ABD", "ABDCC", "先A后B再D最后C", "ABDE"):
        with pytest.raises(ReferenceError):
            reference_order(bad, "ABCD")
    assert reference_letters("答案：C、A、D", "ABCDE") == "ACD"
    with pytest.raises(ReferenceError):
        reference_letters("A 和 C 都对，D 也可能", "ABCDE")
