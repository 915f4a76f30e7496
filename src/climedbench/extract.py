"""Answer extraction: the model's final answer from free text, for choice, order and keyword items.

Rules are tried from the most explicit to the least; the *last* explicit answer statement wins, so
self-corrections ("最初选A……正确答案应为C") and answers given after a long discussion of every option
are read the way a human reader reads them. Reasoning blocks (<think>…</think>) are never searched.
Every result names the rule that produced it, so a wrong extraction can be traced in samples.jsonl.
"""

from __future__ import annotations

import html
import itertools
import re
import unicodedata
from dataclasses import dataclass
from functools import cache
from typing import Any

__all__ = [
    "Extraction",
    "clean_response",
    "extract",
    "extract_choice",
    "extract_keywords",
    "extract_order",
]


@dataclass(frozen=True)
class Extraction:
    """An extracted answer (None when the response gives none) and the rule that found it."""

    answer: str | list[str] | None
    method: str

    @property
    def failed(self) -> bool:
        return self.answer is None


# ---------------------------------------------------------------------------------------------
# Normalisation

_FULLWIDTH = {chr(c): chr(c - 0xFEE0) for c in range(0xFF21, 0xFF3B)}  # Ａ-Ｚ → A-Z
_FULLWIDTH.update({chr(c): chr(c - 0xFEE0) for c in range(0xFF10, 0xFF1A)})  # ０-９
_FULLWIDTH.update({"：": ":", "．": ".", "（": "(", "）": ")", "［": "[", "］": "]", "，": ",",
                   "；": ";", "　": " ", "＞": ">", "－": "-", "｜": "|"})
_FULLWIDTH_TABLE = str.maketrans(_FULLWIDTH)

_THINK_OPEN = re.compile(r"<(think|thinking|reasoning)>", re.I)
_THINK_BLOCK = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.I | re.S)
_THINK_CLOSE = re.compile(r"</(think|thinking|reasoning)>", re.I)


def strip_reasoning(text: str) -> str | None:
    """Remove reasoning blocks; None when a block is left open (the model was cut off mid-thought)."""
    text = _THINK_BLOCK.sub(" ", text)
    if _THINK_OPEN.search(text):
        return None
    # Some servers drop the opening tag: everything before a lone closing tag is reasoning.
    closes = list(_THINK_CLOSE.finditer(text))
    if closes:
        text = text[closes[-1].end():]
    return text


# End-of-turn and control tokens that some servers leave in the text.
_SPECIAL_TOKENS = re.compile(
    r"<\|[A-Za-z_]{1,24}\|>|</?s>|<eos>|<pad>|<unk>|\[/?INST\]|<end_of_turn>|<start_of_turn>(?:model|user)?|"
    r"<\|?endoftext\|?>|<eot>|<\|eot_id\|>"
)


@cache
def _t2s() -> Any:
    """OpenCC's traditional → simplified converter (選 → 选, 為 → 为)."""
    import opencc

    return opencc.OpenCC("t2s")


# Tokens that end a turn: text after one (once something was said) is the model writing a further turn of its own
# ("<|endoftext|>Human: …\nAssistant: 答案：D"), never part of its answer.
_END_OF_TURN = re.compile(r"<\|(?:endoftext|im_end|eot_id|end|eot)\|>|<endoftext>|</s>|<eos>|<end_of_turn>")


def normalize(text: str) -> str:
    """Special tokens removed, the text cut at an end-of-turn token that follows an answer; traditional characters
    simplified (OpenCC t2s)."""
    text = text or ""
    for m in _END_OF_TURN.finditer(text):
        said = strip_reasoning(text[:m.start()]) or ""  # reasoning alone is not an answer yet
        if _SPECIAL_TOKENS.sub("", said).strip():
            text = text[:m.start()]
            break
    text = _SPECIAL_TOKENS.sub(" ", text)
    if re.search(r"[\u4e00-\u9fff]", text):
        text = _t2s().convert(text)
    return text


def clean_response(text: str) -> str | None:
    """Special tokens removed, traditional characters simplified, reasoning removed, full-width letters and
    punctuation folded, markdown and LaTeX unwrapped.

    When a closed reasoning block is all there is, the reasoning itself is searched (the model put
    its answer there and stopped)."""
    text = normalize(text or "")
    stripped = strip_reasoning(text)
    if stripped is None:
        return None
    if not stripped.strip():
        stripped = re.sub(r"</?(?:think|thinking|reasoning)>", " ", text or "", flags=re.I)
    t = stripped.translate(_FULLWIDTH_TABLE)
    t = unicodedata.normalize("NFC", t)
    t = re.sub(r"\\boxed\s*\{\s*(?:\\text(?:bf)?\s*\{)?\s*([^{}]*?)\s*\}?\s*\}", r" 答案: \1 ", t)
    # "\\text{B}", "\\mathrm{(A, D)}": the letters inside a LaTeX font command.
    t = re.sub(r"\\(?:text(?:bf|rm|it)?|math(?:rm|bf|it|sf|tt)|operatorname)\s*\{([^{}]*)\}", r"\1", t)
    t = re.sub(r"\\(?:long)?(?:right|Right)arrow|\\to\b", "→", t)
    t = re.sub(r"\*\*|__|`+|~~|\$", "", t)
    t = re.sub(r"^\s{0,3}#{1,6}\s*", "", t, flags=re.M)
    return t


# ---------------------------------------------------------------------------------------------
# Choice answers

# The answer to a question that asks for the false statement or the exception: "the incorrect statement is",
# "the exception is", "the statement that is not true is", "错误的选项是", "不正确的说法为", "除外的是".
_ODD_MARKERS_EN = (
    r"the(?: [a-z\-]+){0,2} (?:incorrect|false|wrong|untrue|inaccurate) "
    r"(?:statement|option|choice|answer|one|assertion)(?: (?!is\b)[a-z\-]+){0,4}? (?:is|would be)|"
    r"the exception (?:is|would be)|"
    r"\b(?:that|which) (?:(?:is|are|does|do|should|would|can|could|will)(?: not|n't)\b[^.\n]{0,60}?\b|"
    r"(?:is|are) (?:incorrect|false|wrong|untrue|inaccurate) )(?:is|would be)"
)
_ODD_MARKERS_ZH = (r"(?:错误|不正确|不恰当|不妥|有误|除外)的(?:选项|说法|描述|叙述|表述|一项|项)?(?:是|为)|"
                   r"不(?:包括|属于|符合|是|应|宜|能)[^。\n，,A-Z]{0,16}?的(?:是|为)")
# Phrases that introduce an answer; the letter(s) follow within a few characters.
_MARKERS_ZH = (
    r"最终答案|最后答案|正确答案|参考答案|标准答案|本题答案|(?<![错误考])答案|正确选项|最佳选项|最佳答案|正确的选项|"
    r"正确的是|正确的为|正确的有|正确项|答(?=\s*[:：])|剩下的?|剩余的?|只剩|修正为|更正为|(?:修正|更正)(?=\s*[:：])|改选|对应选项|对应|我的回答|回答|我选的|"
    + _ODD_MARKERS_ZH + "|"
    r"最(?:恰当|合适|符合|相符|贴切|佳|准确|可能|正确)的[^。\n，,A-Z]{0,12}?(?:是|为)|"
    r"正确的[^。\n，,A-Z]{1,10}?(?:是|为|有|包括)|"
    r"故本题选|本题选|故选|应选|当选|可选|选择|选用|应用|宜用|选项应为|选项为|首选|应首选|维持|坚持|而是|即为|即|"
    r"(?:综上所述|综上|因此|所以|因而|故而|故)[^A-Z\n。]{0,14}?(?:选|是|为|在于)|"
    r"(?<![不未误])选(?!项)|应为|应该是|应是|结论|"
    # "选项C。" standing as its own sentence.
    r"(?:^|(?<=[。\n:：]))\s*选项(?=\s*[A-Z]\s*[。.!！]?\s*(?:\n|$))"
)
_MARKERS_EN = (
    r"final answers?|the(?: [a-z\-]+){0,3} answers?(?: choices?)? (?:is|are|would be|should be|includes?)|"
    r"(?<![a-z] )\banswer is|"
    r"\bso\s*[:：]|"
    r"the (?:best|most (?:likely|appropriate)|correct|right|first)(?: [a-z\-]+){0,3} (?:is|would be)|"
    r"(?:corresponds? to|matches|consistent with)(?: option)?|"
    r"(?<![a-z])(?:correct|right|true) (?:option|choice|answer|statement|one|response)s?"
    r"(?: (?:is|are|would be|include)|\s*[:=]|(?=\s*[-—–]\s*[A-Z]\b))|"
    r"answers?\"?\s*[:=]|(?<![a-z])(?<![a-z] )(?:correct|true)(?=\s*[:：])|"
    r"answer(?=\s*\n)|answer(?=\s*[-—–]+\s*[A-Z]\b)|"
    r"(?:i|i'd|i’d|i would|i will|i'll|we) (?:would |will )?(?:choose|select|pick|go with)|"
    r"(?:choose|select|pick|go with)|\b(?:hence|thus|therefore)[,:]?\s*(?=options?\b|\(?[A-Z]\b)|"
    r"\b(?:makes?|making|leaves?|leaving)(?= (?:option |answer |choice )?\(?[A-Z]\)? the "
    r"(?:correct |right |best |only )?(?:answer|choice|option)\b)|" + _ODD_MARKERS_EN
)
_LETTER = r"[A-Z]"
# A letter that stands alone: not part of a word, abbreviation, vitamin, blood group, ultrasound ...
_NOT_AFTER = r"(?![A-Za-z0-9]|(?:型|超|族|组|期|级|类|肝|抗原|受体|细胞|淋巴|波|段))"
_NOT_BEFORE = r"(?<![A-Za-z0-9+\-])"
_JOIN = r"(?:(?:[ \t]*(?:[,、/&;]|和|及|与|或|以及|(?i:and|or)|\+)[ \t]*)+|[ \t]+)"  # a run never crosses a line break
_OPEN = r"(?:\(|\[|【|「|『|〔|\{)"
_CLOSE = r"(?:\)|\]|】|」|』|〕|\})"
# A parenthetical gloss after a letter: "A（抗Sm抗体）、B（抗ds-DNA抗体）".
_PAREN = r"(?:\s*(?:（[^（）\n]{2,80}）|\([^()\n]{2,80}\)))"
# Between bracketed letters: "(A)(C)(E)", "(A), (C) and (E)".
_BRACKET_JOIN = (r"(?:[ \t]*[)\]】」』〕][ \t]*(?:(?:[,、;&]|和|及|与|以及|(?i:and))[ \t]*)*[(\[【「『〔])")
# A run is concatenated letters ("ACD") or separated ones ("A、C 和 D", "(A)(C)"), not a mix: in "应选ABCE，D项……"
# the D after the comma starts a new clause.
_SEPARATED = rf"(?:(?:{_JOIN}|{_BRACKET_JOIN}){_LETTER}(?:项(?![:：]))?{_PAREN}?)+"
# "AB和D": a concatenated run may be closed by 和/及/and and one more letter.
_CONCAT = rf"{_LETTER}+(?:[ \t]*(?:和|及|与|以及|(?i:and))[ \t]*{_LETTER})?"
_LETTER_RUN = (rf"{_NOT_BEFORE}{_OPEN}?\s*({_LETTER}(?:项(?={_SEPARATED}))?{_PAREN}?(?:{_CONCAT}|{_SEPARATED})?)"
               rf"[ \t]*{_CLOSE}?{_NOT_AFTER}")
_AFTER_MARKER = (r"(?:是|为|有|包括|应为|应该是|就是|还是|仍是|仍然是|应修正为|修正为|更正为|改为|选项|选|项|"
                 r"[:：=]|】|\]|→|->|—|–|-(?!\s*\d)|\"|'(?=[A-Z]\b)|‘|“|"
                 r"(?i:options?|answer(?= [A-Z]\b)|choice(?= [A-Z]\b)|is|would be)|\s|"
                 # "the answer is most likely C": the reader's answer is C (a hedge between letters is read below).
                 r"(?i:(?:most )?(?:likely|probably)(?: to be)?(?=\s)))*")
# Case-insensitive only where English words are matched: option letters are capitals.
_MARKER_RE = re.compile(rf"(?:{_MARKERS_ZH}|(?i:{_MARKERS_EN}))\s*{_AFTER_MARKER}\s*{_LETTER_RUN}")
# "B 正确", "选项B是正确的", "B项最合适", "ABC均正确", "A、B、D三项正确", "只有D符合题意", "option B is correct",
# "A, C and D are correct", "B and C are both true", "B is the answer"
_POSITIVE_RE = re.compile(
    rf"(?:选项|(?i:options?)\s*)?{_LETTER_RUN}(?:\s*项|\s*选项)?(?:,?\s*[\"“][^\"”\n]{{1,80}}[\"”],?)?\s*"
    rf"(?:[二两三四五六七八]\s*(?:项|个选项|个)|的?(?:说法|描述|叙述|表述))?\s*"
    rf"(?:均|都|也)?\s*(?:是|为)?\s*(?:正确|最正确|最合适|最佳|最恰当|最符合|对的|对(?=[，,。.；;！!、\s]|$)|符合题意|"
    rf"(?:本题|该题|此题)?的?(?:正确|最佳|最终)?答案|"
    rf"(?i:(?:is|are) (?:both |all )?(?:the )?(?:(?:correct|right|best|true|accurate|most appropriate)"
    rf"(?: answers?| choices?| options?| statements?)?|answers?)\b))"
)
# "C is the exception", "B is the incorrect one", "option C is the one that is NOT …": the answer to a question
# that asks for the false statement.
_ODD_ONE_OUT = re.compile(
    rf"(?:(?i:option|statement|choice)\s*)?{_LETTER_RUN}\s*(?:\([^()\n]{{2,40}}\))?\s*(?i:is|would be)\s+the\s+"
    r"(?i:only\s+)?"
    r"(?i:exception|(?:incorrect|false|wrong|untrue|inaccurate|odd)\s+(?:one|statement|option|choice|answer)|"
    r"(?:one|option|statement|choice|answer)\s+(?:that|which)\s+(?:is|are|does|do|should|would|can|could)(?:\s+not|n't))\b"
)
# "除A外其余均错误" (the exception is the answer) / "除了B和D以外都正确" (the complement is)
_EXCEPT_RE = re.compile(
    rf"除(?:了)?\s*{_LETTER_RUN}\s*项?\s*(?:以)?外[^。\n]{{0,10}}?(?:均|都|全)\s*(?:是)?\s*"
    r"(错误|不正确|不对|错|正确|对|符合|属于|是|为)|"
    # "除E外，其余选项均为肝硬化失代偿期的表现": the others are what the question asks for.
    rf"除(?:了)?\s*{_LETTER_RUN}\s*项?\s*(?:以)?外?\s*[,，]?\s*(?:其余|其他|其它)(?:选项|各项|几项)?\s*(?:均|都|皆)\s*"
    r"(为|是|属于|对|正确)",
)
# "答案是b": a lower-case letter counts only right after a Chinese answer marker.
_LOWER_SINGLE = re.compile(
    r"(?:答案|正确答案|(?<![不未])选)\s*(?:是|为|应为|[:：])?\s*([a-z])(?![A-Za-z0-9])|"
    # "the answer is b." / "option (c)" / "go with d": a lower-case letter closed by punctuation or the end,
    # so that "the answer is a fracture" (an article) is not read as A.
    r"(?i:(?:final answer|answer(?: is| would be| should be)?|option|choice|go with|choose|select|pick))\b"
    r"(?:\s*[:=]\s*|\s+|(?=[(\[]))[(\[]?\s*(?-i:([a-z]))\s*[)\]]?(?=\s*(?:[.,;:!。，；]|$))|"
    r"(?i:\bans\b\.?(?:\s*is)?)\s*[:=]?\s*(?:['\"‘“](?-i:([a-z]))['\"’”]|(?-i:([a-z]))\))|"
    r"^\s*\(?(?-i:([a-z]))\)?\s*[.。]?\s*$"
)
# "A. …\nB. …\nC. …\n\n以上三项均为……": the listed options, when the count agrees.
_COUNT_WORDS = {"二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8}
_COUNTED_ABOVE = re.compile(
    rf"((?:^|\n)(?:[ \t]*{_OPEN}?{_LETTER}{_CLOSE}?\s*[.、:：)][^\n]*\n)+)\s*以上\s*([二两三四五六七八]|\d)\s*(?:项|个)"
    r"(?:选项)?\s*(?:均|都|皆)\s*(?:为|是|正确|对|属于)"
)
_EXCEPT_EN = re.compile(r"(?i:\b(?:all|each|every|any)\b[^.\n]{0,60}?\bexcept(?: for)?"
                        rf"(?: (?:statement|option|choice)s?)?)\s+{_LETTER_RUN}")
# "以下各项均是……的表现，除了B项。": the exception closing its sentence.
_EXCEPT_TAIL = re.compile(
    rf"(?<![排剔删切免解])除(?:了)?\s*{_LETTER_RUN}\s*项?\s*(?:之外|以外|外)?\s*(?=[。.!！;；]|$)")
# A sentence that says the others are false: its exception is the one that is true.
_FALSE_OTHERS = re.compile(r"错误|不正确|不对|不是|不属于|(?<![a-z])(?i:incorrect|wrong|false|not)\b")
_ALL_RE = re.compile(r"以上(?:选项|各项|答案|说法)?(?:均|都|全|皆)(?:是)?(?:正确|对)|以上(?:均|都|皆)是|"
                     r"全选|都选|全部(?:选|正确)|"
                     r"all (?:of )?the (?:above|options)(?: are correct)?", re.I)
# "以上都不对" as an answer: the option that says so, when the item has one.
_NONE_RE = re.compile(r"以上(?:选项|各项|答案|说法)?(?:均|都|全|皆)(?:不是|不对|不正确|错误|非)|以上皆非|"
                      r"none of the (?:above|options|choices|answers)|none of (?:these|them)\b", re.I)


def _special_options(option_texts: dict[str, str] | None, valid: str) -> dict[str, str]:
    """Which letter is the item's 'all of the above' option, and which its 'none of the above' option."""
    out: dict[str, str] = {}
    for k, v in (option_texts or {}).items():
        if k not in valid:
            continue
        t = re.sub(r"\s+", " ", v).strip().rstrip("。.")
        if _NONE_RE.fullmatch(t) or t in ("都不是", "都不对", "均不是", "均不对"):
            out["none"] = k
        elif _ALL_RE.fullmatch(t) or t in ("都对", "都是", "均对", "均是"):
            out["all"] = k
    return out
_NEGATION_AFTER = re.compile(
    r"^[ \t]*(?:项|选项)?[ \t]*(?:是|为)?[ \t]*(?:并不|不|并非|不是|非|错误|有误|"
    r"(?:is|are|was|were)(?: also)? (?:not|incorrect|wrong|false)|would(?: also)? be (?:incorrect|wrong|false)|"
    r"incorrect|wrong|是错|错)"
)
_NEGATION_BEFORE = re.compile(r"(?:不是|而不是|并非|不应选|不选|排除|而非|not|rather than|instead of)\s*$", re.I)
# A response that opens with its answer letter ("B. 狼疮性肾炎……", "选项C"), not with a list of letters.
_STANDALONE_START = re.compile(
    rf"^\s*(?:选项|答)?\s*{_OPEN}?\s*({_LETTER}){_CLOSE}?(?![ \t]*[、,，和及与/][ \t]*{_LETTER}{_NOT_AFTER})"
    # "A 34-year-old …" is an article, not an answer; "A项" is one, "A项：……" the start of an analysis.
    r"(?:\s*[.:、,)。，；;!！]|项(?!\s*[:：])|[ \t]*\n|[ \t]+(?![a-z0-9])|\s*$)"
)
# "..., so A." / "Give IV dextrose: D." — a letter closing the response.
_TRAILING = re.compile(
    rf"(?:(?:[:：]|\b(?:so|therefore|thus|hence)[,:]?|的是|的为|在于|[✅✔✓☑]\uFE0F?)\s*{_OPEN}?\s*({_LETTER}){_CLOSE}?|"
    rf"[(（]\s*({_LETTER})\s*[)）])\s*[.。!！]?\s*$", re.I
)
_LAST_LINE_LETTERS = re.compile(
    rf"(?:^|\n)[ \t]*(?:[✅✔✓☑]\uFE0F?|[-—–→:：]+)?[ \t]*{_OPEN}?\s*({_LETTER}(?:{_LETTER}+|{_SEPARATED})?)"
    rf"[ \t]*{_CLOSE}?[ \t]*[.。!！]?[ \t]*$"
)
_TRAILING_RUN = re.compile(rf"(?:[:：]|→|->|=>)[ \t]*{_LETTER_RUN}[ \t]*[.。!！]?[ \t]*$")
_ECHOED_LABELS = re.compile(rf"(?:^|\s){_LETTER}\s*[.、:：)]")
# "选项中没有合适答案": the response rejects every option.
_NO_SUITABLE_OPTION = r"没有(?:合适|正确|恰当)的?(?:答案|选项)|(?:选项中)?没有一个(?:选项)?(?:是)?(?:正确|合适)"
_HEDGE = re.compile(
    r"无法(?:确定|判断|回答|提供|给出)|不能(?:确定|判断)|都有可能|均有可能|需要进一步|均可|都可以|不确定|"
    r"作为(?:一个)?(?:AI|人工智能)|(?:cannot|can't|can not|unable to) (?:determine|answer|provide|give|make|diagnose)|"
    r"not sure|unable to|not able to (?:give|provide|determine)|hard to (?:know|say|tell)|不太确定|不能肯定|"
    r"I'?m not a (?:doctor|physician)|无法(?:选择|抉择)|难以(?:选择|抉择|确定)|"
    r"(?:cannot|can't|can not|unable to) (?:choose|decide|pick) between|"
    r"none (?:of them |of the options )?is (?:clearly |really )?(?:ideal|correct|right|appropriate)|"
    r"(?:is|are) not (?:listed|among the (?:options|choices))|"
    r"以上(?:选项|答案|各项)?(?:均|都|皆)不(?:完全)?(?:正确|对|准确|合适|恰当)|" + _NO_SUITABLE_OPTION + "|"
    r"none of the (?:listed |given |above )?(?:options|choices|answers) (?:is|are) (?:fully |entirely |completely )?"
    r"(?:correct|right|appropriate|ideal)",
    re.I,
)
# Hedges about the answer itself: they cancel an answer stated before them.
_ANSWER_HEDGE = re.compile(
    r"无法确定(?:唯一)?(?:的)?答案|都说得通|均说得通|都可以选|均可选|无法作答|不能确定答案|也?不排除|"
    + _NO_SUITABLE_OPTION + "|"
    r"(?i:cannot determine (?:a|the|one) (?:single )?answer)"
)
# A conclusion that no option is correct ("以上选项均不正确", "答案：无", "None of the options provided is correct",
# "Answer: N/A", "…, which is not among the choices"); not one about the OTHER options ("其余选项均不正确").
# "以上均不对" / "none of the above" may also be the text of the last option: see `_no_option_correct`.
_NONE_ABOVE = re.compile(
    r"(?<!其他)(?<!其余)(?<!其它)(?<!剩下)(?<!另外)(?:以上|上述)(?:的)?(?:选项|答案|各项|说法|备选答案)?"
    r"(?:均|都|全|皆)(?:不是(?:正确答案|正确的|最佳答案)?|不(?:完全)?(?:正确|对|准确|合适|恰当|符合)|错误|有误)|"
    r"(?i:\b(?:final answer|answer|the answer is)\s*[:=]?\s*[\"']?none of the above)"
)
_NONE_CORRECT = re.compile(
    r"(?:(?<![余他它下外])(?:所有|全部|[四五六]个|各个?)(?:的)?(?:选项|答案|各项|说法|备选答案)?|"
    r"(?<![A-Z余他它下外各个有部、])选项)"
    r"(?:均|都|全|皆)(?:不是(?:正确答案|正确的|最佳答案)?|不(?:完全)?(?:正确|对|准确|合适|恰当|符合)|错误|有误)|"
    r"(?:正确)?答案不在(?:所给)?选项(?:之)?中|"
    r"没有(?:一个)?(?:合适|正确|恰当)的?(?:答案|选项)|没有正确答案|无正确(?:答案|选项)|无答案可选|"
    r"选项中(?:并)?没有(?:这一?项|这个选项|正确答案|该项)|(?:答案|正确答案)\s*(?:应该?)?\s*(?:为|是)?\s*[:：]?\s*[(\[【{]?\s*无(?=[\s。.，,;；()（）\]】}]|$)|"
    r"(?i:none of (?:(?!other|remaining|rest|incorrect|wrong|remaining)[a-z]+ ){0,3}"
    r"(?:options|choices|answers|answer choices)(?: \([^()\n]{1,12}\))?(?: provided| listed| given| here| above)?"
    r" (?:is|are) "
    r"(?:actually |really |fully |entirely |completely |strictly )?"
    r"(?:correct|right|true|accurate|appropriate|the (?:correct|right) answer)|"
    r"no (?:option|choice|answer) (?:is|was) (?:correct|right)|"
    r"\bno (?:correct|right) (?:answer|option|choice)\b(?! (?:other than|besides|except|apart from)\b)|"
    r"\ball (?:of the |the |four |five |these )?(?:options|choices|answers|answer choices) (?:are|were) "
    r"(?:incorrect|wrong|false)|"
    r"(?:n't|\bnot)\b[^.\n]{0,20}\bany of the (?:options|choices|answers)(?: \w+)? (?:is|are) (?:correct|right)|"
    r"the (?:correct|right) answer (?:is|was) not (?:provided|given|listed|included|available|present|among|one of)|"
    # "…, which are not listed." (not "the dose is not listed in the question")
    r"(?:is|are)(?: not|n't) (?:listed(?= *(?:[.;,]|$| (?:as|among|in) (?:an? |the )?(?:options?|choices?|answers?)))|"
    r"among the (?:options|choices|answers|answer choices))|"
    r"\bnot (?:one )?(?:of|among) the (?:options|choices)(?: provided| given| listed)?\b(?! (?:that|which|who|to)\b)|"
    r"none of (?-i:[A-Z])\s*(?:-|–|—|to)\s*(?-i:[A-Z])\b|"
    r"\b(?:final answer|answer|the answer is)\s*[:=]?\s*[\"'(\[]?\s*(?:none(?! of the above)|n/?a)\b)"
)
# Every option rejected in one statement: "选项A、B、C、D均不符合题意", "A, B, C and D are all incorrect".
_ALL_REJECTED = re.compile(
    rf"{_LETTER_RUN}\s*(?:项|选项)?\s*(?:[二两三四五六七八]\s*(?:项|个选项|个))?\s*(?:均|都|全)\s*(?:不|错误|有误)|"
    rf"{_LETTER_RUN}\s+(?i:are (?:all )?(?:incorrect|wrong|false))"
)


def _no_option_correct(text: str, valid: str, start: int = 0, above_counts: bool = True) -> bool:
    """The response, in a statement ending after `start`, concludes that no option is correct ("None of the options
    (A–D) is correct" holds its own 'D) is correct'). With `above_counts` False, "以上均不对" / "none of the above" do
    not count (they may name the item's last option, whose text is not known)."""
    if any(m.end() > start for m in _NONE_CORRECT.finditer(text)):
        return True
    if above_counts and any(m.end() > start for m in _NONE_ABOVE.finditer(text)):
        return True
    return any(set(_letters_in(m.group(1) or m.group(2))) == set(valid) for m in _ALL_REJECTED.finditer(text, start))


# A second option endorsed beside the answer of a single-answer item: "D is also correct", "C也可以。", "正确答案是A，C
# 同样正确", "A and C are both appropriate". ("C也可以作为辅助" is an aside, not an endorsement.)
_SECOND_ENDORSED = re.compile(
    rf"{_NOT_BEFORE}([A-Z]){_NOT_AFTER}(?:项|选项)?\s*(?:也|亦|同样|也同样|同样也)\s*(?:是)?\s*"
    r"(?:正确(?:的)?|对(?:的)?|可以|可选|可行|合理|说得通|正确答案|符合题意)(?=\s*[。.，,;；!！)）]|\s*$)|"
    rf"{_NOT_BEFORE}\(?([A-Z])\)?{_NOT_AFTER}(?:\s*\([^()\n]{{2,40}}\))?\s+(?i:(?:(?:is|seems)\s+(?:also|equally)|"
    r"(?:would|could|might|may|can)\s+(?:also|equally)\s+be|(?:would|could) be\s+(?:also|equally))\s+"
    r"(?:an?\s+)?(?:correct|right|acceptable|valid|appropriate|true)\b|(?:would|could|might|may|can)\s+also\s+work\b|"
    r"(?:is|would be) (?:correct|right|acceptable|valid) (?:as well|too)\b)|"
    rf"[,;]\s*(?:(?i:as is|and so is)\s+(?i:option\s+)?([A-Z]){_NOT_AFTER}|"
    rf"(?i:and)\s+(?i:option\s+)?([A-Z]){_NOT_AFTER}\s+(?i:too|as well))\s*(?:[.;!]|$)|"
    rf"{_NOT_BEFORE}([A-Z]){_NOT_AFTER}\s+(?i:and|or)\s+([A-Z]){_NOT_AFTER}\s+(?i:are|would be)\s+(?i:both|equally)\s+"
    r"(?i:correct|right|appropriate|acceptable|valid|true)\b"
)
# A second option left open beside the answer: "B, but it could also be D", "D is also possible", "也可能是D" (not when
# the sentence goes on to set it aside: "D) Ecstasy could also cause these symptoms, but less often").
_SECOND_LEFT_OPEN = re.compile(
    rf"(?i:(?:\bor\s+)?\b(?:possibly|perhaps|maybe)(?:\s+also)?)\s+(?i:option\s+)?\(?([A-Z])\)?{_NOT_AFTER}|"
    rf"(?i:\b(?:could|might|may|can)\s+(?:also|equally)\s+be)\s+(?i:option\s+)?\(?([A-Z])\)?{_NOT_AFTER}"
    r"(?=\s*(?:[.;!,]|$))|"
    rf"{_NOT_BEFORE}\(?([A-Z])\)?{_NOT_AFTER}(?:\s*\([^()\n]{{2,40}}\)|(?<=\))[ \t]+[^\n.;,()]{{1,40}}?)?\s+"
    r"(?i:is\s+also\s+(?:a\s+)?(?:possible|possibility|plausible|likely)(?:\s+(?:answer|option|choice))?)"
    r"(?=\s*(?:[.;!]|$))|"
    # "However, D) Ecstasy could also cause these symptoms": an option, written as a label, left open.
    rf"(?:{_NOT_BEFORE}\(([A-Z])\)|{_NOT_BEFORE}([A-Z])\)|(?i:option)\s+([A-Z]){_NOT_AFTER})"
    r"(?:[ \t]+[^\n.;,()]{1,40}?)?\s+"
    r"(?i:(?:could|might|may|can)\s+also\s+(?:be|fit|work|(?:cause|explain|account\s+for)\s+(?:all\s+)?(?:these|the|this)"
    r"\s+(?:symptoms|findings|signs|presentation|picture))\b)|"
    rf"{_NOT_BEFORE}([A-Z]){_NOT_AFTER}(?:项|选项)?\s*也\s*(?:有)?可能(?:是正确答案|正确|对)?"
    r"(?=\s*[。.，,;；!！)）]|\s*$)|"
    rf"也(?:有)?可能(?:是|选|为)\s*([A-Z]){_NOT_AFTER}"
)


_SET_ASIDE = re.compile(r"但|不过|然而|可能性(?:较|很)?小|(?i:\b(?:but|however|though|although|less|unlikely|not)\b)")


def _second_endorsed(text: str, answer: str, valid: str) -> bool:
    """Another option than `answer` is endorsed as correct too, or left open, after the last mention of the answer ("B
    and D are both correct, but B is the best" settles on B), outside a question or a condition."""
    mentions = [m.start() for m in re.finditer(rf"{_NOT_BEFORE}{answer}{_NOT_AFTER}", text)]
    since = mentions[-1] if mentions else 0
    for rx in (_SECOND_ENDORSED, _SECOND_LEFT_OPEN):
        for m in rx.finditer(text, since):
            letters = {g for g in m.groups() if g} & set(valid)
            sentence = re.split(r"[。.!！?？\n]", text[:m.start()])[-1]
            rest = re.split(r"[。.!！\n]", text[m.end():], maxsplit=1)[0]
            if rx is _SECOND_LEFT_OPEN and _SET_ASIDE.search(rest):
                continue
            if letters - {answer} and not _CONDITIONAL.search(sentence) and "?" not in rest and "？" not in rest:
                return True
    return False


_TENTATIVE = re.compile(r"(?:可能|也许|或许|大概|是不是|(?i:maybe|possibly|perhaps))\s*(?:是|选|为|应该)?\s*$")
_ALSO = re.compile(r"\s*(?:也|亦|同样|(?i:also|as well|too)\b)")
# A response cut off in the middle of its option-by-option analysis ("…\nB. 急性前壁心肌梗死：").
_TRUNCATED_TAIL = re.compile(rf"(?:^|\n)[ \t]*{_OPEN}?{_LETTER}{_CLOSE}?\s*[.、:：)][^\n]*(?:[:：,，、(（]|—|-|–)\s*$")
# A response that stops mid-sentence: on a comma or colon, or on a word that cannot end a sentence.
_DANGLING_END = re.compile(r"(?:[,，、:：;；(（]|(?<![\u4e00-\u9fff])(?:但|而|和|及|的)|因此|所以|因为|由于|故而|"
                           r"(?<=\s)(?:is|are|was|the|of|to|and|but|or|with|because|which))\s*$")
_CONDITIONAL = re.compile(r"如果|若是|假如|倘若|(?<!倘)若(?!干)|(?i:\bif\b)")
# A clause that only offers its letter as a possibility ("可以选择A", "可能需要选择E", "it could be B"); not the
# superlative "最可能的诊断是A".
_CLAUSE_TENTATIVE = re.compile(
    r"(?<!最)(?:可能|也许|或许|大概|可以|可考虑|或可)|(?i:\b(?:maybe|possibly|perhaps|could|might)\b)"
)
# Two different letters offered as alternatives: "either A or E", "(B) or … (E)", "可能是A也可能是C", "A或C均可".
_DISJUNCTION = re.compile(
    rf"{_NOT_BEFORE}([A-Z]){_NOT_AFTER}\s*[(（]\s*(?i:or|或者?)\s*([A-Z])\s*[)）]|"  # "B (or D)"
    rf"(?i:\beither\b)[^.\n。]{{0,40}}?{_NOT_BEFORE}\(?([A-Z])\)?{_NOT_AFTER}[^.\n。]{{0,60}}?(?i:\bor\b)[^.\n。]{{0,60}}?"
    rf"{_NOT_BEFORE}\(?([A-Z])\)?{_NOT_AFTER}|"
    rf"(?i:\b(?:could|might|may) be\b)[^.\n。]{{0,60}}?\(([A-Z])\)[^.\n。]{{0,20}}?(?i:\bor\b)[^.\n。]{{0,60}}?"
    rf"\(([A-Z])\)|"
    rf"{_NOT_BEFORE}([A-Z]){_NOT_AFTER}\s*(?:和|与|及|、|或)\s*([A-Z]){_NOT_AFTER}\s*(?:都|均)\s*(?:是|可|可以|正确|对|常用|合理)|"
    rf"(?:可能|也许|或许)(?:是|选|为)?\s*{_NOT_BEFORE}([A-Z]){_NOT_AFTER}[^。\n]{{0,12}}?(?:也可能|也许|或许|或者|或)"
    rf"(?:是|选|为)?\s*{_NOT_BEFORE}([A-Z]){_NOT_AFTER}|"
    # Two option lines with "或者" / "or" on a line of its own between them: "A：辐射散热\n\n或者\n\nC：对流散热"
    rf"(?m:^[ \t]*{_OPEN}?([A-Z]){_CLOSE}?[ \t]*[.、:：)][^\n]*\n\s*(?:或者|或是|或|(?i:or))[ \t]*\n\s*"
    rf"{_OPEN}?([A-Z]){_CLOSE}?[ \t]*[.、:：)])"
)
_QUESTIONED = re.compile(r"^[^。\n]{0,6}?[？?]")
# Per-option verdicts: "A. 错误 B. 错误 C. 正确", "A对，B错", table rows "| B | √ |".
_VERDICT = re.compile(
    rf"(?:^|(?<=[\s|，,；;。]))(?:选项)?({_LETTER})(?:项|选项)?\s*[|.:：、)）]?\s*\|?\s*"
    r"(正确|对(?!应)|√|✓|✔|是的|错误|错|不对|不正确|×|✗|✘|(?i:correct|incorrect|wrong|true|false))(?![A-Za-z])"
)
_POSITIVE_VERDICT = {"正确", "对", "√", "✓", "✔", "是的", "correct", "true"}
# One option per line, judged at the end of its line: "C. 痰涂片阳性者具有传染性 —— 正确 √", "- A. 早期离床活动 ✔".
_LINE_VERDICT = re.compile(
    rf"(?m)^[ \t]*(?:[-*•][ \t]*)?{_OPEN}?({_LETTER}){_CLOSE}?[ \t]*[.、:：)][^\n]*?"
    r"(?:[—–\-:：][ \t]*)?(正确|错误|不正确|对|错|√|✓|✔|✔️|×|✗|✘|❌|✅|(?i:correct|incorrect|true|false))"
    r"[ \t\uFE0F]*(?:[√✓✔×✗✘❌✅][ \t\uFE0F]*)?(?:[(（][^\n]*[)）])?[ \t]*$"
)
_MARKED_LINE = re.compile(r"(?m)^[ \t]*(?:[-*•][ \t]*)?([✅✔✓☑]|❌|✘|✗|×)\uFE0F?[ \t]*([^\n]+)$")
_NEGATIVE_MARKS = {"错误", "不正确", "错", "×", "✗", "✘", "❌", "incorrect", "false"}
# "最可能的诊断：食管癌（A）" — an option's text followed by its letter in brackets, in a conclusion.
# An option line the response introduces as its answer: a lead-in that ends with a colon and then the option alone
# on its line ("The most likely diagnosis is:\n\nA: Histoplasmosis"), or an option quoted
# ('as "C: Tubular …"').
_INTRODUCED = re.compile(
    rf"(?:(?i:\b(?:is|are|be|would be|as follows|answer|diagnosis|cause|step|treatment|option))|是|为|如下)"
    rf"\s*[:：]\s*\n+"
    rf"[ \t]*{_OPEN}?({_LETTER}){_CLOSE}?[ \t]*[:.、)][ \t]*[^\n]+(?:\n|$)|"
    rf"(?<![A-Za-z])(?i:as|is)\s+[\"“]({_LETTER})\s*[:.)]\s*[^\"”\n]+[\"”]"
)
_TEXT_THEN_LETTER = re.compile(
    rf"(?:最可能的诊断|诊断为|诊断|首选|答案|应选|选择|选用)[^。\n]{{0,24}}?[（(]\s*({_LETTER})\s*[)）]"
)
_ORDINAL = re.compile(r"第\s*([一二三四五六七八])\s*(?:份|个|项|种|条|组|个选项)(?!\s*(?:问题|题|小题))")
_ORDINALS = "一二三四五六七八"
# A small model that goes on to invent and answer further numbered questions.
_NEXT_QUESTION = re.compile(
    r"\n\s*(?:\d+\s*[.、)）]|第\s*\d+\s*题|下一题|问题\s*\d*\s*[:：]?|题目\s*[:：]|(?i:question)\s*\d*\s*[:：]?|"
    r"Q\s*[:：])[^\n]*\n(?:[^\n]*\n)?\s*\(?A\s*[.、:：)]"
)


def _letters_in(run: str) -> list[str]:
    """Option letters in a captured run; [] when the run holds a word rather than letters."""
    bare = re.sub(_PAREN, " ", run)
    bare = re.sub(r"\b(?:and|or)\b", " ", bare, flags=re.I)
    if len(bare.strip()) == 1:
        return [bare.strip().upper()]
    if re.search(r"[a-z]", bare):
        return []
    return re.findall(_LETTER, bare)


_LABELLED_ITEM = re.compile(rf"(?:和|及|与|(?i:and)\s+)?{_OPEN}?({_LETTER}){_CLOSE}?\s*[.、:：)]?\s*\S")


# Two options written out with their labels and joined as one answer: "C) Resorption of alveolar ridge and D) Widening
# of P.D ligament", "B) Cocaine or D) Ecstasy", "A. 感染和C. 血栓" (not "D，理由如下：A项……").
_LABEL = rf"{_NOT_BEFORE}{_OPEN}?{_LETTER}(?:{_CLOSE}|\s*[.:：])"
_TWO_LABELLED = re.compile(
    rf"{_OPEN}?({_LETTER})(?:{_CLOSE}|\s*[.:：])[ \t]*(?:(?!{_LABEL}|[.!?]\s)[^\n;；。,，:：]){{0,80}}?"
    rf"(?:[ \t]*[,，][ \t]*(?:(?i:and|or)[ \t]+)?|[ \t]+(?i:and|or)[ \t]+|[ \t]*(?:和|或|及|与)[ \t]*)"
    rf"{_OPEN}?({_LETTER})(?:{_CLOSE}|\s*[.:：])(?=[ \t]*[^\s.。]|[ \t]*[.。]?[ \t]*(?:\n|$))|"
    # The options echoed on the answer's line: "A) Heroin B) Cocaine C) Cannabis D) Ecstasy".
    rf"{_OPEN}?({_LETTER})\)[ \t]+(?:(?!{_LABEL}|[.!?]\s)[^\n;；。]){{1,80}}?[ \t]+{_OPEN}?({_LETTER})\)[ \t]+\S"
)


def _joined_labelled(text: str, start: int) -> list[str]:
    """Two options written out with their labels and joined as the answer at `start`, the second not rejected: both
    letters ([] otherwise)."""
    pair = _TWO_LABELLED.match(text, start)
    if not pair:
        return []
    clause = text[pair.start():pair.end()] + re.split(r"[,.;，。；\n]", text[pair.end():], maxsplit=1)[0]
    return [] if _NEGATED_CLAUSE.search(clause) else [g for g in pair.groups() if g]


def _option_lines_after(text: str, start: int, letter: str, valid: str) -> list[str]:
    """The answer at `start` given as an option line ("the answer is:\n\nB) Cocaine", "the answer is A) Heroin") and
    followed by another option's line ("D) Ecstasy"): both letters ([] otherwise)."""
    own_line = not text[text.rfind("\n", 0, start) + 1:start].strip(" \t([【")
    if not own_line and not re.match(rf"{_OPEN}?{letter}{_CLOSE}[ \t]+\S", text[start:]):
        return []
    second = _next_option_line(text[start:], letter, valid)
    return [letter, second] if second else []


def _labelled_list(text: str, start: int) -> list[str]:
    """Letters of options written out one after another on the answer's line: "正确答案：A. 感染；C. 血栓；D. 肾损伤",
    "Answers: (A) Furosemide; (C) Spironolactone" ([] unless every segment opens with its own option label)."""
    line = re.split(r"[\n。]", text[start:], maxsplit=1)[0]
    next_label = rf"(?=(?:和|及|与|(?i:and)\s+)?{_OPEN}?{_LETTER}{_CLOSE}?\s*[.、:：)])"
    segments = re.split(rf"\s*[；;]\s*|\s*[，,、]\s*{next_label}", line)
    labels = [_LABELLED_ITEM.match(seg) for seg in segments]
    letters = [m.group(1) for m in labels if m]
    if len(segments) < 2 or len(letters) != len(segments) or len(set(letters)) != len(letters):
        return []
    return letters


# A capital letter then ". " and a species name is a genus initial ("C. trachomatis", "E. coli", "S. aureus").
_SPECIES_AFTER = re.compile(
    r"\.[ \t]*(?:trachomatis|gonorrhoeae|meningitidis|coli|aureus|epidermidis|pyogenes|agalactiae|pneumoniae|"
    r"difficile|perfringens|botulinum|tetani|albicans|pylori|jejuni|influenzae|tuberculosis|leprae|pallidum|"
    r"burgdorferi|typhi|vulnificus|cholerae|aeruginosa|vaginalis|jirovecii|neoformans|fumigatus|gondii|falciparum|"
    r"vivax|mansoni|lumbricoides|vermicularis|burnetii|rickettsii|pertussis|diphtheriae|monocytogenes|marcescens|"
    r"cereus|anthracis|israelii|henselae|genitalium|hominis|fragilis|faecalis|faecium|mutans|viridans|sanguinis|"
    r"saprophyticus|lugdunensis|immitis|capsulatum|dermatitidis|brasiliensis|histolytica|lamblia|trichiura|"
    r"stercoralis|duodenale|americanus|solium|saginata|granulosus|schenckii|furfur|baumannii|melitensis|pestis|"
    r"tularensis|mallei|pseudomallei|psittaci|legionella|pneumophila)\b")


def _marker_hits(text: str, valid: str, special: dict[str, str] | None = None, multi: bool = True
                 ) -> list[tuple[int, list[str], bool]]:
    """Every explicit answer statement: (position, letters, tentative), skipping negated ones and words."""
    hits: list[tuple[int, list[str], bool]] = []

    def add(pos: int, letters: list[str], upto: int | None = None) -> None:
        """A hit at `pos`; its clause reaches up to `upto` (the letter), so words inside the marker count too
        ("所以可能是C")."""
        if len(letters) > 1 and any(x not in valid for x in letters):
            return  # a word or abbreviation (CT, ACEI, MRI), not a list of options
        end = pos + 2
        upto = pos if upto is None else upto
        clause = re.split(r"[,，;；。\n]", text[max(0, pos - 30):upto])[-1]
        sentence = re.split(r"[。\n]", text[max(0, pos - 40):upto])[-1]
        tentative = bool(_TENTATIVE.search(text[max(0, pos - 6):pos]) or _QUESTIONED.match(text[end:])
                         or _CONDITIONAL.search(sentence) or _CLAUSE_TENTATIVE.search(clause))
        hits.append((pos, letters, tentative))

    for m in _MARKER_RE.finditer(text):
        if _RANGE_AFTER.match(text, m.end(1)):
            continue  # "the answer is A through D": a range of options, no answer
        if _SPECIES_AFTER.match(text, m.end(1)):
            continue  # "either N. gonorrhoeae or C. trachomatis …": a genus initial, not option C
        after = text[m.end():m.end() + 24]
        before = text[max(0, m.start() - 8):m.start()]
        letters = _letters_in(m.group(1))
        if _NEGATION_BEFORE.search(before):
            continue
        if _NEGATION_AFTER.search(after):
            if len(letters) < 2 or not re.search(r";[ \t]*\S{0,2}$", m.group(1)):
                continue
            letters = letters[:-1]  # "正确的是：A、B、C、E；D错误": the run ran on into the next clause
        if len(letters) > 1 and "," in m.group(1) and _ALSO.match(after):
            letters = letters[:1]  # "所以选B，C也可以作为辅助": B is the answer, C an aside
        if multi and len(letters) == 1:
            letters = _labelled_list(text, m.start(1)) or _joined_labelled(text, m.start(1)) or letters
        elif len(letters) == 1:
            # Two answers to a single-answer item, read as both (so no answer): "C) Heparin or D) Tranexamic acid",
            # "the answer is:\n\nB) Cocaine\nD) Ecstasy".
            letters = (_joined_labelled(text, m.start(1))
                       or _option_lines_after(text, m.start(1), letters[0], valid) or letters)
        if letters:
            add(m.start(), letters, m.start(1))
    for m in _POSITIVE_RE.finditer(text):
        before = text[max(0, m.start() - 8):m.start()]
        letters = _letters_in(m.group(1))
        if _NEGATION_BEFORE.search(before) or not letters:
            continue
        if len(letters) < 2 and re.search(r"(?i)\bare\b", m.group(0)):
            continue  # "All of the following except C are correct": C is not what is correct
        if _ALSO.search(m.group(0)):
            if not multi:
                continue  # "答案：C（B也正确）": a second option endorsed is no answer (see _second_endorsed)
            earlier = [h for h in hits if h[0] < m.start() and not h[2]]
            if earlier:  # "A正确。B也正确。": B is added to the answer before it
                letters = sorted(set(max(earlier)[1]) | set(letters))
        add(m.start(), letters)
    # An exception ("除A外其余均错误", "all of the options except D are …", "…，除了B项。"): with one answer to give it
    # is the answer (of an EXCEPT question, or the one left when the others are wrong); with several, the others
    # are, unless the sentence says the others are wrong.
    for m in _EXCEPT_RE.finditer(text):
        named = [x for x in _letters_in(m.group(1) or m.group(3)) if x in valid]
        if named:
            others_wrong = m.group(2) in ("错误", "不正确", "不对", "错")
            add(m.start(), named if others_wrong or not multi else [x for x in valid if x not in named])
    for rx in (_EXCEPT_EN, _EXCEPT_TAIL):
        for m in rx.finditer(text):
            named = [x for x in _letters_in(m.group(1)) if x in valid]
            sentence = re.split(r"[。.!！?？\n]", text[:m.start()])[-1] + text[m.start():m.end() + 40].split("\n")[0]
            if named:
                others_wrong = bool(_FALSE_OTHERS.search(sentence))
                add(m.start(), named if others_wrong or not multi else [x for x in valid if x not in named])
    for m in _ODD_ONE_OUT.finditer(text):
        named = [x for x in _letters_in(m.group(1)) if x in valid]
        if len(named) == 1:
            add(m.start(), named)
    special = special or {}
    for m in _ALL_RE.finditer(text):
        if _NEGATION_BEFORE.search(text[max(0, m.start() - 8):m.start()]):
            continue
        if "all" in special:
            add(m.start(), [special["all"]])
        elif multi:  # every option, when several may be chosen; a single answer needs an all-of-the-above option
            add(m.start(), list(valid))
    if "none" in special:
        for m in _NONE_RE.finditer(text):
            if not _NEGATION_BEFORE.search(text[max(0, m.start() - 8):m.start()]):
                add(m.start(), [special["none"]])
    for m in _COUNTED_ABOVE.finditer(text):
        listed = re.findall(rf"(?m)^[ \t]*{_OPEN}?({_LETTER}){_CLOSE}?\s*[.、:：)]", m.group(1))
        n = m.group(2)
        count = int(n) if n.isdigit() else _COUNT_WORDS[n]
        if len(listed) == count and all(x in valid for x in listed):
            add(m.start(2), listed)
    for m in _LOWER_SINGLE.finditer(text):
        add(m.start(), [next(g for g in m.groups() if g).upper()])
    for m in _TEXT_THEN_LETTER.finditer(text):
        # "(A)(B)(C)", "(A), (C)", "(A) 和 (C)": a run, read above.
        if not re.match(rf"[ \t]*(?:(?:[,、;&，]|和|及|与|或|以及|(?i:and|or))[ \t]*)?[（(]\s*{_LETTER}\s*[)）]",
                        text[m.end():]):
            add(m.start(1), [m.group(1)])
    for m in _INTRODUCED.finditer(text):
        letter = m.group(1) or m.group(2)
        lead = text[text.rfind("\n", 0, m.start()) + 1:m.end()]
        # "The other options are:\n\n(A) …\n(C) …" introduces a list, not an answer.
        list_follows = m.group(1) is not None and re.match(rf"\s*{_OPTION_LINE}", text[m.end():])
        others = re.search(r"(?i:other|incorrect|wrong|remaining|rest)|其他|其余|错误", lead.split("\n")[0])
        if letter in valid and not list_follows and not others:
            add(m.start(), [letter])
    lines = {m.group(1): (m.start(), m.group(2).lower() not in _NEGATIVE_MARKS) for m in _LINE_VERDICT.finditer(text)
             if m.group(1) in valid}
    if len(lines) >= 2 and any(ok for _, ok in lines.values()):
        add(max(p for p, _ in lines.values()), sorted(k for k, (_, ok) in lines.items() if ok))
    verdicts: dict[str, tuple[int, bool]] = {}
    for m in _VERDICT.finditer(text):
        if m.group(1) in valid:
            verdicts[m.group(1)] = (m.start(), m.group(2).lower() in _POSITIVE_VERDICT)
    if len(verdicts) >= 2 and any(ok for _, ok in verdicts.values()):
        add(max(p for p, _ in verdicts.values()), sorted(k for k, (_, ok) in verdicts.items() if ok))
    hits.sort(key=lambda h: h[0])
    return hits


# The strongest answer statements ("答案：A", "正确答案为B", "the answer is C"), and what may stand between two of
# them that disagree: a correction ("不对，应选C", "wait, actually D"). Without one, the response contradicts itself.
_STRONG_ANSWER = re.compile(
    rf"(?:最终答案|正确答案|(?<![错误考])答案|本题(?:应)?选|故选|(?i:final answer|the answer is|answer\s*:))"
    rf"\s*(?:是|为|应为|[:：]|】|\s)*"
    rf"{_LETTER_RUN}"
)
_CORRECTION = re.compile(
    r"不对|错了|有误|更正|修正|纠正|改为|改选|应为|应该是|应选|重新|再(?:想|看|考虑|检查|核对)|抱歉|不好意思|仔细|其实|实际上|"
    r"补充|遗漏|漏了|(?i:\bi (?:missed|forgot)|\badditionally\b)|"
    r"(?i:\bwait\b|actually|correct(?:ion| that| this| myself)|sorry|on (?:second thought|reflection)|re-?consider|"
    r"re-?check|mistake|instead|i was wrong)"
)


def _self_contradiction(text: str, valid: str) -> bool:
    """Two strong answer statements that disagree, with no correction between them. An answer slot ("【答案】B") after
    an answer in the analysis is the response's commitment; two slots that disagree ("(1)…【答案】A (2)…【答案】D",
    answers to sub-questions the model invented) contradict each other."""
    strong = [(m.start(), m.end(), "".join(sorted(set(_letters_in(m.group(1))))), text[m.start() - 1:m.start()] == "【")
              for m in _STRONG_ANSWER.finditer(text)]
    strong = [x for x in strong if x[2] and all(c in valid for c in x[2])]
    return any(a != b and not _CORRECTION.search(text, p1, e2) and (slot1 or not slot2)
               for (p1, _, a, slot1), (_, e2, b, slot2) in itertools.pairwise(strong))


_ODD_STATEMENT = re.compile(rf"(?:{_ODD_MARKERS_ZH}|(?i:{_ODD_MARKERS_EN}))\s*{_AFTER_MARKER}\s*{_LETTER_RUN}")


def _rival_verdicts(text: str, answer: str) -> bool:
    """`answer` is only said to be correct ("D is true"), never stated as the answer, and another option is said to
    be correct too after the last correction: two options endorsed ("A is true. B is true. C is false. D is true.")."""
    if any(_letters_in(m.group(1)) == [answer] for rx in (_MARKER_RE, _STRONG_ANSWER) for m in rx.finditer(text)):
        return False
    if any(_letters_in(m.group(1)) == [answer] and re.search(r"(?i:best|most|answer)|最|答案", m.group(0))
           for m in _POSITIVE_RE.finditer(text)):
        return False  # "B and D are both correct, but B is the best answer"
    since = max((m.end() for m in _CORRECTION.finditer(text)), default=0)
    endorsed = {x for m in _POSITIVE_RE.finditer(text, since) if not _ALSO.search(m.group(0))
                and not _NEGATION_BEFORE.search(text[max(0, m.start() - 8):m.start()])
                for x in _letters_in(m.group(1))}
    return bool(endorsed - {answer})


def _answer_then_odd_one(text: str, answer: str, valid: str) -> bool:
    """An answer stated ("the answer is C"), then `answer`, a different option, named as the false one or the
    exception, with no correction between: only the question (which the extractor does not see) could tell which
    of the two answers it, so neither is read."""
    odd = [m.start() for rx in (_ODD_STATEMENT, _ODD_ONE_OUT, _EXCEPT_EN, _EXCEPT_TAIL, _EXCEPT_RE)
           for m in rx.finditer(text)
           if _letters_in(m.group(1) or (m.group(3) if rx is _EXCEPT_RE else "")) == [answer]]
    if not odd:
        return False
    last = max(odd)
    for m in _STRONG_ANSWER.finditer(text[:last]):
        stated = set(_letters_in(m.group(1)))
        if len(stated) == 1 and stated != {answer} and stated <= set(valid) and not _CORRECTION.search(text, m.end(),
                                                                                                       last):
            return True
    return False


_RANGE_AFTER = re.compile(rf"[ \t]*\)?[ \t]*(?:(?i:through|thru|to)|[-–~])[ \t]*\(?{_LETTER}{_NOT_AFTER}")
_ONLY = re.compile(r"只有|仅有|仅|唯一|(?i:\bonly\b)")


def _without_partial_restatements(hits: list[tuple[int, list[str], bool]], text: str
                                  ) -> list[tuple[int, list[str], bool]]:
    """Multi-answer: a statement naming part of a letter set that a strong answer gave before it ("答案：AD，其中A正确是
    因为……") explains that answer rather than replacing it, unless a correction or "only" comes between or opens it."""
    strong = [(m.start(), set(_letters_in(m.group(1)))) for m in _STRONG_ANSWER.finditer(text)]
    kept = []
    for hit in hits:
        before = [(p, letters) for p, letters in strong if p < hit[0]]
        if before:
            at, letters = before[-1]
            if (len(letters) > 1 and set(hit[1]) < letters and not _CORRECTION.search(text, at, hit[0] + 6)
                    and not _ONLY.search(text, at, hit[0] + 6)):
                continue
        kept.append(hit)
    return kept


def _decide(hits: list[tuple[int, list[str], bool]], text: str, valid: str, none_option: bool | None = False
            ) -> tuple[list[str] | None, str]:
    """The final answer among the hits: the last definite one; tentative ones only if they agree. A conclusion
    after it that no option is correct cancels it, unless the item has a 'none of the above' option (`none_option`
    True), or may have one (None: option texts unknown) and the answer is the last option."""
    definite = [h for h in hits if not h[2]]
    if definite:
        pos, letters, _ = definite[-1]
        # Alternating contradictory answers (a looping model): no answer.
        # Only a back-and-forth of four (x, y, x, y): explanations often mention another letter once.
        if (len(definite) >= 4 and definite[-1][1] == definite[-3][1] != definite[-2][1]
                and definite[-2][1] == definite[-4][1]):
            return None, "inconsistent"
        if _ANSWER_HEDGE.search(text, pos):
            return None, "hedge_after_answer"
        above_counts = none_option is False or letters != [valid[-1]]
        if none_option is not True and _no_option_correct(text, valid, pos, above_counts):
            return None, "no_option_correct"
        return letters, "marker"
    distinct = {tuple(h[1]) for h in hits}
    if len(distinct) == 1:
        return list(hits[-1][1]), "tentative"
    return None, "hedge"


_LIST_LINE = (rf"[ \t]*(?:[-*•]|\d+[.、)])?[ \t]*{_OPEN}?({_LETTER}){_CLOSE}?{_NOT_AFTER}"
              r"(?:(?:[.、:：)]|[ \t])[^\n]*|(?=\n|$))")  # "- A …", or the letter alone on its line
_LIST_STRONG = re.compile(rf"(?:{_MARKERS_ZH}|(?i:{_MARKERS_EN}))\s*[:：]?[ \t]*\n((?:{_LIST_LINE}\n?)+)")
# For multi-answer items any line ending in a colon may introduce the chosen options.
_LIST_ANY = re.compile(rf"[:：][ \t]*\n((?:{_LIST_LINE}\n?)+)")


def _listed(text: str, multi: bool) -> tuple[int, list[str], bool] | None:
    """'正确选项：\n- A …\n- B …' → the letters opening each listed line (the last such list)."""
    found = None
    for rx in (_LIST_STRONG, _LIST_ANY) if multi else (_LIST_STRONG,):
        for m in rx.finditer(text):
            letters = re.findall(rf"(?m)^{_LIST_LINE}$", m.group(1))
            if len(letters) >= (1 if rx is _LIST_STRONG else 2) and (found is None or m.start() > found[0]):
                found = (m.start(), letters, False)
    return found


_ANSWER_VERB = re.compile(r"(?:首选|应选|选择|选用|应用|改用|答案是|答案为|诊断为|考虑为|应为|是|为|用|is|be)\s*$",
                          re.I)
# Verbs that choose (not merely describe: "原则为早期、联合……" is no choice of 早期).
_CHOOSING_VERB = re.compile(  # matched on text without spaces ("answeris")
    r"(?:首选|应选|选择|选用|改用|答案是|答案为|(?<!回)答案?[:：]|诊断为|"
    r"(?i:answer\s*is|answer:|diagnosis\s*is|this\s*is|choose|select))\s*$"
)
_NEGATED_CLAUSE = re.compile(r"不正确|错误|不宜|不应|禁用|排除|不是|不能|而非|并非|不属于|(?i:\bnot\b|incorrect|wrong)")


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


def _next_option_line(text: str, first: str, valid: str) -> str | None:
    """The letter of the line after an option line, when it is another option's line (or its letter alone) that does
    not reject it: two answers given."""
    m = re.match(rf"\s*[^\n]*\n\s*{_OPEN}?({_LETTER}){_CLOSE}?"
                 r"(?:[ \t]*[.、:：)][ \t]*([^\n]*)|[ \t]*[.。]?[ \t]*(?=\n|$))", text)  # "B. …\nD. …", "B\nD"
    if m is None:
        return None
    ok = m.group(1) != first and m.group(1) in valid and not _NEGATED_CLAUSE.search(m.group(2) or "")
    return m.group(1) if ok else None


def _walks_through_options(text: str, valid: str) -> bool:
    """Three or more of the options open a line of the response ("A. … \nB. … \nC. …"): it discusses them one by one."""
    return len({m.group(1) for m in re.finditer(rf"(?m)^{_OPTION_LINE}", text)} & set(valid)) >= 3


def _echo_end(text: str) -> int:
    """Where the last line that starts with an option label ends."""
    ends = [m.end() for m in re.finditer(rf"(?m)^[ \t]*{_OPEN}?{_LETTER}{_CLOSE}?\s*[.、:：)][^\n]*$", text)]
    return ends[-1] if ends else 0


def extract_choice(response: str, options: str, *, multi: bool = False,
                   option_texts: dict[str, str] | None = None) -> Extraction:
    """The chosen letter (single) or sorted letter set (multi) among `options`, e.g. 'ABCDE'. A single answer with
    a second option endorsed beside it ("The answer is B. D is also correct.") is a hedge: no answer."""
    found = _read_choice(response, options, multi=multi, option_texts=option_texts)
    if not multi and isinstance(found.answer, str):
        text = _answer_region(clean_response(response) or "", options.upper())
        if _second_endorsed(text, found.answer, options.upper()):
            return Extraction(None, "second_option_endorsed")
        if _answer_then_odd_one(text, found.answer, options.upper()):
            return Extraction(None, "inconsistent")
        if found.method == "marker" and _rival_verdicts(text, found.answer):
            return Extraction(None, "second_option_endorsed")
        if found.method == "marker" and _text_belies_letter(text, found.answer, option_texts or {}):
            return Extraction(None, "letter_text_mismatch")
    return found


def _text_belies_letter(text: str, answer: str, option_texts: dict[str, str]) -> bool:
    """The last answer statement gives `answer` with a text that is another option's, or "none/all of the above" when
    `answer`'s own text is not ("the answer is B) Ecstasy" where B is Cocaine and D Ecstasy): the model's options are
    not the item's, so the letter cannot be trusted."""
    own = _fold(option_texts.get(answer, ""))
    stated_at = [m.start(1) for rx in (_MARKER_RE, _STRONG_ANSWER) for m in rx.finditer(text)
                 if _letters_in(m.group(1)) == [answer]]
    if not own or not stated_at:
        return False
    m = re.match(rf"{_OPEN}?{answer}(?:{_CLOSE}|\s*[.:：])[ \t]*[\"'“‘]?([^\n.;。；,，\"'”’(（]{{2,80}})",
                 text[max(stated_at):])
    if not m:
        return False
    stated = _fold(m.group(1))
    if len(stated) < 3 or stated.startswith(own) or own.startswith(stated):
        return False
    others = [_fold(v) for k, v in option_texts.items() if k != answer and len(_fold(v)) >= 3]
    if any(stated == o or stated.startswith(o) for o in others):
        return True
    return bool((_NONE_RE.fullmatch(m.group(1).strip()) or _ALL_RE.fullmatch(m.group(1).strip()))
                and not (_NONE_RE.search(option_texts[answer]) or _ALL_RE.search(option_texts[answer])))


def _answer_region(text: str, valid: str) -> str:
    """The cleaned response with quoted letters unquoted ({"answer": ["B", "C"]}), cut before a further question the
    model invents with its own options once it has answered this one (a restated question before any answer is not
    an invented one)."""
    text = re.sub(r"[\"'“”‘’]([A-Z])[\"'“”‘’]", r"\1", text)
    invented = _NEXT_QUESTION.search(text)
    if invented:
        before = text[:invented.start()]
        if _marker_hits(before, valid) or _STANDALONE_START.match(before):
            return before
    return text


# An option named by its label inside running text: "(choice B)", "option D:", "Choice A, steroids, …", "'C': …",
# "B选项传导散热同理", "选项C".
_LABELLED = re.compile(
    rf"(?:\((?i:choice|option)\s*({_LETTER})\)|(?<![A-Za-z])(?i:choice|option)s?\s*'?({_LETTER})'?{_NOT_AFTER}|"
    rf"(?:^|(?<=\s))'?({_LETTER})'?\s*:(?!\d)|选项\s*({_LETTER}){_NOT_AFTER}|{_NOT_BEFORE}({_LETTER})\s*(?:选项|项))",
    re.M)


def _labels_of(line: str, valid: str) -> list[tuple[int, str]]:
    """The options a line names by label, where: "其他选项B、C、D、E" names four."""
    found = []
    for m in _LABELLED.finditer(line):
        found.append((m.start(), next(g for g in m.groups() if g)))
        run = re.match(rf"(?:[ \t]*[、,，/和及与][ \t]*{_LETTER}{_NOT_AFTER})+", line[m.end():])
        found += [(m.start(), x) for x in re.findall(_LETTER, run.group(0))] if run else []
    return [(at, x) for at, x in found if x in valid]


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


_CODE_LINE = re.compile(r"^\s*(?:def |import |from \S+ import |return\b|class |(?:el)?if .*:\s*$|else:\s*$|"
                        r"for .*:\s*$|while .*:\s*$|```|print\(|[A-Za-z_][\w.]*\s*=\s*\S)")


_IS_LETTER = re.compile(rf"(?:(?<![A-Za-z])(?i:is|be)\s+|是|为)\s*{_OPEN}?({_LETTER})(?:{_CLOSE}|\s*[:：.．])\s*")


def _stated_with_text(text: str, valid: str, option_texts: dict[str, str]) -> list[tuple[int, list[str], bool]]:
    """A letter given after "is" / "是" with its own option's text: "the division that failed here is B: Secondary
    spermatocyte" (an answer statement no marker phrase covers)."""
    hits = []
    for m in _IS_LETTER.finditer(text):
        own = _fold(option_texts.get(m.group(1), ""))
        said = _fold(text[m.end():m.end() + 3 * len(own) + 10]).startswith(own)
        if m.group(1) in valid and len(own) >= 2 and said and not _NEGATION_BEFORE.search(
                text[max(0, m.start() - 8):m.start() + 3]):
            hits.append((m.start(), [m.group(1)], False))
    return hits


def _without_code(text: str) -> str:
    """The text without fenced blocks of program code, and without its code lines when at least three lines are code
    (a `return '蒸发散热'` or `random.choice('ABCD')` is no answer)."""
    text = re.sub(r"```.*?(?:```|$)", lambda m: "" if any(_CODE_LINE.match(x) for x in m.group(0).split("\n")[1:])
                  else m.group(0), text, flags=re.S)  # a fenced answer ("```json\n{"answer": "B"}\n```") stays
    lines = text.split("\n")
    if sum(1 for x in lines if _CODE_LINE.match(x)) < 3:
        return text
    return "\n".join(x for x in lines if not _CODE_LINE.match(x) and not re.match(r"\s{4,}\S", x))


def _lists_every_option(text: str, pos: int, valid: str) -> bool:
    """The text from an answer marker at `pos` on is every option, one per line in order ("答案\nA．…\nB．…")."""
    first, _, rest = text[pos:].partition("\n")
    if re.search(rf"{_NOT_BEFORE}{_LETTER}{_NOT_AFTER}", first):
        return False  # the marker's own line gives letters: "正确答案是：A、B、D" before a discussion of each option
    labels = [m.group(1) for m in re.finditer(rf"(?m)^{_OPTION_LINE}", rest)]
    starts = re.match(rf"\s*{_OPTION_LINE}", rest) is not None
    return starts and len(valid) >= 3 and "".join(labels[:len(valid)]) == valid


def _labels_in_order(text: str, valid: str) -> bool:
    """The lines that open with an option label give the options in their order from the first (A, B, C, …)."""
    labels = [m.group(1) for m in re.finditer(rf"(?m)^{_OPTION_LINE}", text)]
    return len(labels) >= 3 and "".join(labels) == valid[:len(labels)]


def _read_choice(response: str, options: str, *, multi: bool = False,
                 option_texts: dict[str, str] | None = None) -> Extraction:
    """The cascade of rules behind `extract_choice`, most explicit first."""
    text = clean_response(response)
    if text is None:
        return Extraction(None, "unterminated_reasoning")
    if not text.strip():
        return Extraction(None, "empty")
    valid = options.upper()
    text = _answer_region(text, valid)
    text = _without_code(text)  # a weak model writing a program instead of answering: only its prose can answer
    special = _special_options(option_texts, valid)
    # "参考答案\n\nA．……\nB．……\n…\nE．……": every option listed after the marker is the options echoed.
    hits = [h for h in _marker_hits(text, valid, special, multi) if not _lists_every_option(text, h[0], valid)]
    if not hits and option_texts:
        hits = _stated_with_text(text, valid, option_texts)
    listed = _listed(text, multi)
    if listed and _lists_every_option(text, listed[0], valid):
        listed = None
    if listed and (not hits or listed[0] >= hits[-1][0]):
        hits.append(listed)
    if not multi:
        # Two letters offered as alternatives, with no definite answer after them: a hedge.
        for dis in reversed(list(_DISJUNCTION.finditer(text))):
            if len({g for g in dis.groups() if g} & set(valid)) >= 2:
                if not any(not h[2] and h[0] >= dis.end() for h in hits):
                    return Extraction(None, "hedge")
                break
    if hits and _self_contradiction(text, valid):
        return Extraction(None, "inconsistent")
    unfinished = _TRUNCATED_TAIL.search(text.rstrip()) or _DANGLING_END.search(text.rstrip())
    if unfinished and not _STRONG_ANSWER.search(text):
        return Extraction(None, "truncated")
    if hits and multi:
        hits = _without_partial_restatements(hits, text)
    if hits:
        none_option = True if "none" in special else (False if option_texts else None)
        letters, method = _decide(hits, text, valid, none_option)
        if letters is None:
            return Extraction(None, method)
        chosen = sorted(set(letters))
        if any(letter not in valid for letter in chosen):
            return Extraction(None, "marker_out_of_range")
        if multi:
            return Extraction("".join(chosen), method)
        if len(chosen) == 1:
            return Extraction(chosen[0], method)
        return Extraction(None, "marker_ambiguous")
    if _HEDGE.search(text):
        return Extraction(None, "hedge")
    # ("None of the above" may be the last option's text when the option texts are not known.)
    if "none" not in special and _no_option_correct(text, valid, above_counts=bool(option_texts)):
        return Extraction(None, "no_option_correct")
    if not multi:
        first = _explained_first(text, valid, option_texts)
        if first is not None:
            return Extraction(first, "answer_then_others")
    marked = _marked_options(text, {k: v for k, v in (option_texts or {}).items() if k in valid})
    if marked is not None and (multi or len(marked) == 1):
        return Extraction(marked, "marked_lines")
    echoed = len({m.group(0).strip()[0] for m in _ECHOED_LABELS.finditer(text[:400])}) >= 3
    if multi:
        lead = re.match(rf"\s*{_LETTER_RUN}[ \t]*(?:[.。;；]|\n|$)", text)
        letters = sorted(set(_letters_in(lead.group(1)))) if lead else []
        if letters and all(x in valid for x in letters) and not echoed:
            return Extraction("".join(letters), "leading_letters")
    first = re.split(r"[。.!！\n]", text.strip(), maxsplit=1)[0]
    opening = [k for k, v in (option_texts or {}).items() if k in valid and _fold(v) and _fold(v) == _fold(first)]
    if len(opening) == 1 and not echoed:
        return Extraction(opening[0], "leading_option_text")  # "四君子汤。\n\n本方由……"
    m = _STANDALONE_START.match(text)
    if m and _NEGATION_AFTER.match(text[m.end(1):]):
        m = None  # "A项不符合。……": the response opens by rejecting A
    if m and not multi and _next_option_line(text, m.group(1).upper(), valid):
        return Extraction(None, "second_option_endorsed")  # "B. Ceftriaxone\nD. Azithromycin"
    if m and not multi and re.match(rf"\s*{_LETTER}\s*[.、:：)]?[ \t]*\n", text) and _labels_in_order(text, valid):
        m = None  # "A.\n\n<A's text> …\n\nB.\n\n<B's text> …": the options glossed in order, not an answer A
    if m and m.group(1).upper() in valid and not echoed:
        if multi:
            run = re.match(rf"^\s*({_LETTER}(?:{_JOIN}?{_LETTER})*){_NOT_AFTER}", text)
            letters = sorted(set(_letters_in(run.group(1)))) if run else [m.group(1).upper()]
            if letters and all(letter in valid for letter in letters):
                return Extraction("".join(letters), "leading_letters")
        return Extraction(m.group(1).upper(), "leading_letter")
    if multi:
        whole = re.fullmatch(rf"\s*{_LETTER_RUN}\s*[.。]?\s*", text)
        if whole:
            letters = sorted(set(_letters_in(whole.group(1))))
            if letters and all(letter in valid for letter in letters):
                return Extraction("".join(letters), "letters_only")
    last = _LAST_LINE_LETTERS.search(text.rstrip())
    if last and text.strip() != last.group(0).strip():
        letters = sorted(set(_letters_in(last.group(1))))
        if letters and all(x in valid for x in letters) and (multi or len(letters) == 1):
            return Extraction("".join(letters), "last_line_letters")
    run = _TRAILING_RUN.search(text.rstrip())
    if multi and run:
        letters = sorted(set(_letters_in(run.group(1))))
        if letters and all(x in valid for x in letters):
            return Extraction("".join(letters), "trailing_letters")
    t = _TRAILING.search(text)
    if t and (t.group(1) or t.group(2)).upper() in valid:
        return Extraction((t.group(1) or t.group(2)).upper(), "trailing_letter")
    if option_texts:
        # When the response lists the options (first, or one by one to discuss each), only what it says after the
        # last option line can name its answer: an option's own line is no choice of it.
        opts = {k: v for k, v in option_texts.items() if k in valid}
        walk = None if multi else _text_walk(text, opts)
        if walk is not None and not _exactly_named(text[walk[1]:], opts):
            # The last option named is the last of a walk through the options by their texts ("1.辐射散热\n…
            # 5.直接散热\n…", "A.\n<A's text>\n…\nE.\n<E's text>"): only the text before the walk can answer.
            tail = text[:walk[0]]
        else:
            tail = text[_echo_end(text):] if echoed or _walks_through_options(text, valid) else text
        found = _by_option_text(tail, opts, multi)
        labels = {x for _, x in _labels_of(text, valid)}
        if found and not multi and len(labels) == 1 and found not in labels:
            return Extraction(None, "letter_text_mismatch")  # "……因此选项A不对。" beside another option's text
        if found and not multi and len(labels) >= 3 and _in_own_rebuttal(text, found, opts, valid):
            return Extraction(None, "no_answer")  # "A选项的…无效。B选项的…无效。C选项的对流散热此时无效。": a rebuttal
        if found:
            return Extraction(found, "option_text")
    ordinals = {_ORDINALS.index(m.group(1)) for m in _ORDINAL.finditer(text)}
    if len(ordinals) == 1 and (k := ordinals.pop()) < len(valid):
        return Extraction(valid[k], "ordinal")
    return Extraction(None, "no_answer")


# ---------------------------------------------------------------------------------------------
# Orders

_ARROW_JOIN = (r"(?:\s*(?:→|->|=>|⇒|—>|-+>|>|-|–|—|,|、|;|/|\s|然后|再|接着|之后|最后|必要时|(?i:and|then|finally))+"
               r"\s*)")
_ORDER_MARKER = re.compile(
    r"(?:最终答案|正确答案|答案|正确顺序|正确的顺序|顺序(?:应)?(?:为|是)|排序(?:为|是)?|排列(?:为|是)?|修正后|修正为|更正为|"
    r"改为|调整为|"
    r"(?i:final answer|answer|correct order|order(?: is)?|sequence(?: is)?))\s*(?:是|为|应为|应该是|:|=|\s)*"
)
_SEQUENCE_WORDS = re.compile(r"先|首先|然后|再|接着|之后|随后|最后|(?i:first|then|next|finally)")
_NUMBERED_LINE = re.compile(
    r"(?m)^[ \t]*(?:[-*•][ \t]*)?(?:第\s*|(?i:step)\s*)?(?:\d+|[一二三四五六七八九十]+)\s*(?:步|题)?\s*[.、:)）]?"
    r"(?P<rest>[^\n]*)$"
)
_LOWER_RUN = re.compile(r"(?<![A-Za-z])([a-z](?:\s*(?:-|→|->|>|,|、)\s*[a-z])+)(?![A-Za-z])")


def _as_permutation(letters: list[str], valid: str) -> str | None:
    order = "".join(letters)
    if len(order) == len(valid) and sorted(order) == sorted(valid):
        return order
    return None


_CIRCLED = {chr(0x2460 + i): i + 1 for i in range(20)}  # ① … ⑳


# A line that starts with an option label ("D. …", "- (C) …"); the letter is captured.
_OPTION_LINE = rf"[ \t]*(?:[-*•][ \t]*)?{_OPEN}?({_LETTER}){_CLOSE}?[ \t]*[.、:：)]"
# Two orders offered as equally good: "两种顺序都可以", "either order is acceptable".
_HEDGE_ORDERS = re.compile(r"都可以|均可|皆可|两种.{0,6}都|(?i:either (?:order|sequence)|both (?:orders|sequences))")
# Steps said to be interchangeable: no single order is given ("B和C的先后可以互换").
_INTERCHANGEABLE = re.compile(r"可以?互换|可互换|不分先后|先后均可|(?i:interchangeabl[ey]|in either order)")


def _order_text(text: str) -> str:
    """Circled and bracketed step numbers written as '1)', step glosses in brackets and table pipes removed, so
    only numbers, letters and arrows remain."""
    text = re.sub("[\u2460-\u2473]", lambda m: f" {_CIRCLED[m.group(0)]}) ", text)  # "① E ② B"
    text = re.sub(r"[(\[]\s*(\d{1,2})\s*[)\]]", r" \1) ", text)  # "(1)E (2)B"
    text = re.sub(rf"{_OPEN}\s*({_LETTER})\s*{_CLOSE}", r" \1 ", text)  # "（B）（C）（A）"
    text = re.sub(_PAREN, " ", text)
    text = re.sub(r"[\"'“”‘’]", " ", text)  # a JSON array: ["E", "B", "C"]
    return text.replace("|", "  ")


def _sequence_at(text: str, start: int) -> list[str]:
    """Letters of the sequence that begins at `start` (stops at the first non-sequence text)."""
    m = re.match(rf"\s*{_OPEN}?\s*({_LETTER}(?:{_ARROW_JOIN}?{_LETTER})*){_NOT_AFTER}", text[start:])
    if m:
        return _letters_in(m.group(1)) or re.findall(_LETTER, m.group(1))
    low = _LOWER_RUN.match(text[start:].lstrip())
    return re.findall(_LETTER, low.group(1).upper()) if low else []


def _order_by_text(text: str, option_texts: dict[str, str], valid: str) -> str | None:
    """The order in which the options are named: "先消毒外阴，再戴手套……", "Anesthetize first (B), then explore …".

    Searched in the text after the last order marker, else in the last stretch of text (after a colon or a sentence
    end) that names every option, so that a mnemonic quoted earlier does not count. An option is named where the text
    shares its longest run with the option (or with it without a bracketed gloss) of at least 4 characters or 60% of
    it, or covers 75% of it in runs of 2+; failing that, in English, where a word of the option (4+ letters, matched
    on its first 5) that no other option has appears; failing that, where its letter stands in brackets "(B)". Every
    option must be named, at distinct places.
    """
    markers = list(_ORDER_MARKER.finditer(text))
    if markers:
        return _order_in(text[markers[-1].end():], option_texts, valid)
    starts = [0] + [m.end() for m in re.finditer(r"[:：。.!?！？\n]", text)]
    for start in reversed(starts):
        found = _order_in(text[start:], option_texts, valid)
        if found:
            return found
    return None


def _order_in(region_text: str, option_texts: dict[str, str], valid: str) -> str | None:
    from difflib import SequenceMatcher

    region = re.sub(r"\s+", " ", region_text).lower()
    squeezed = region.replace(" ", "")
    words = {k: set(_words(option_texts.get(k, ""))) for k in valid}
    where: dict[str, int] = {}
    for letter in valid:
        forms = _option_forms(option_texts.get(letter, "").translate(_FULLWIDTH_TABLE))
        if not forms or not forms[0]:
            return None
        english = bool(re.search(r"[a-z]{3}", forms[0].lower()))
        own = [w for w in _words(forms[0]) if len(w) >= 4 and not any(w in words[o] for o in valid if o != letter)]
        # English: where a word only this option has is said (shared words such as 'the wound' would mislead).
        stems = [mm.start() for w in own for mm in re.finditer(rf"\b{re.escape(w[:5])}", region)] if english else []
        if stems:
            where[letter] = len(region[:min(stems)].replace(" ", ""))
            continue
        for form in forms:
            opt = re.sub(r"\s+", "", form).lower()
            m = SequenceMatcher(None, squeezed, opt, autojunk=False).find_longest_match(0, len(squeezed), 0, len(opt))
            long_run = m.size >= min(len(opt), max(4, int(0.6 * len(opt))))
            if long_run or (m.size >= 2 and _coverage(form, region) >= 0.75):
                where[letter] = m.a
                break
        else:
            bracketed = re.search(rf"[(\[]{letter.lower()}[)\]]", squeezed)
            if not bracketed:
                return None
            where[letter] = bracketed.start()
    if len(set(where.values())) != len(where):
        return None
    return "".join(sorted(where, key=lambda k: where[k]))


def _numbered_segments(line: str, valid: str) -> list[str]:
    """'1) 询问病史 D 2) 心电图 B …': the one option letter of each numbered segment, when numbered 1, 2, 3 …"""
    marks = list(re.finditer(r"(?:^|(?<=\s))(\d{1,2})\s*[.、)）]", line))
    if len(marks) < 2 or [int(m.group(1)) for m in marks] != list(range(1, len(marks) + 1)):
        return []
    out = []
    for m, nxt in zip(marks, [*marks[1:], None], strict=False):
        seg = line[m.end(): nxt.start() if nxt else len(line)]
        letters = {x for x in re.findall(rf"{_NOT_BEFORE}({_LETTER}){_NOT_AFTER}", seg) if x in valid}
        if len(letters) != 1:
            return []
        out.append(letters.pop())
    return out


def _completed(seq: list[str], valid: str, text: str, at: int, option_texts: dict[str, str] | None) -> str | None:
    """A sequence missing one option, completed where the same sentence names that option's text: after the
    letters ("E→B→C→D，最后缝合切口") or before them ("先麻醉，然后B→C→D→A")."""
    missing = [x for x in valid if x not in seq]
    if not option_texts or len(missing) != 1 or len(set(seq)) != len(seq) or len(seq) != len(valid) - 1:
        return None
    sentence_start = max(text.rfind(c, 0, at) for c in "。\n!?！？") + 1
    ends = [i for i in (text.find(c, at) for c in "。\n!?！？") if i >= 0]
    sentence_end = min(ends) if ends else len(text)
    run = re.match(rf"[{valid}\s→>\-–—,、;]*", text[at:])
    run_end = at + (len(run.group(0)) if run else 0)
    option = option_texts.get(missing[0], "")
    if not option:
        return None
    if _coverage(option, text[run_end:sentence_end]) >= 0.6:
        return "".join(seq) + missing[0]
    if _coverage(option, text[sentence_start:at]) >= 0.6:
        return missing[0] + "".join(seq)
    return None


def extract_order(response: str, options: str, option_texts: dict[str, str] | None = None) -> Extraction:
    """A permutation of all `options` letters, or None when the response gives no valid order.

    Every sequence in the text is a candidate — after an order marker, a bare run ("A→B→D→C"), a
    numbered list — and the last full-length one wins, so a revised order beats the first draft.
    """
    cleaned = clean_response(response)
    if cleaned is None:
        return Extraction(None, "unterminated_reasoning")
    text = _order_text(cleaned)
    valid = options.upper()
    # Cut off in a numbered list ("…\n2. E 麻醉\n3."): the order was never finished.
    if re.search(r"\n[ \t]*(?:\d+|[一二三四五六七八九十]+)\s*[.、)）]?\s*$", text.rstrip(" \t")) and \
            not _ORDER_MARKER.search(text):
        return Extraction(None, "truncated")
    candidates: list[tuple[int, str, list[str]]] = []
    for m in _ORDER_MARKER.finditer(text):
        seq = _sequence_at(text, m.end())
        if len(seq) >= 2:
            candidates.append((m.start(), "marker", seq))
    for m in re.finditer(rf"{_NOT_BEFORE}{_LETTER}(?:{_ARROW_JOIN}?{_LETTER})+{_NOT_AFTER}", text):
        letters = re.findall(_LETTER, m.group(0))
        candidates.append((m.start(), "letter_run", letters))
    numbered: list[str] = []
    first_at = None
    for m in _NUMBERED_LINE.finditer(text):
        found = [x for x in re.findall(rf"{_NOT_BEFORE}({_LETTER}){_NOT_AFTER}", m.group("rest")) if x in valid]
        if len(set(found)) == 1:
            numbered.append(found[0])
            first_at = m.start() if first_at is None else first_at
    if len(numbered) >= 2 and first_at is not None:
        candidates.append((first_at, "numbered_list", numbered))
    # Inline numbering on one line: "1) C 2) E 3) A 4) D 5) B", "① 询问病史（D）② 心电图（B）…".
    for line_m in re.finditer(r"[^\n]+", text):
        pairs = re.findall(rf"(?:^|[\s:：,，;；])(\d+)\s*[.、)）]\s*({_LETTER}){_NOT_AFTER}", line_m.group(0))
        if len(pairs) < 2:
            pairs = [(str(_ORDINALS.index(n) + 1) if n in _ORDINALS else n, x) for n, x in re.findall(
                rf"第\s*([一二三四五六七八]|\d+)\s*步\s*[:：]?\s*({_LETTER}){_NOT_AFTER}", line_m.group(0))]
        if len(pairs) >= 2 and [int(n) for n, _ in pairs] == list(range(1, len(pairs) + 1)):
            candidates.append((line_m.start(), "numbered_list", [x for _, x in pairs]))
        else:
            segs = _numbered_segments(line_m.group(0), valid)
            if len(segs) >= 2:
                candidates.append((line_m.start(), "numbered_list", segs))
    # Orders offered as possibilities ("可能是ABCD，也可能是ACBD", "可以是DBCAE，也可以是BDCAE") count only if
    # nothing definite is said.
    def clause_before(pos: int) -> str:
        return re.split(r"[,，;；。\n]", text[max(0, pos - 30):pos])[-1]

    tentative = {c[0] for c in candidates if _TENTATIVE.search(text[max(0, c[0] - 6):c[0]])
                 or _CLAUSE_TENTATIVE.search(clause_before(c[0]))}
    if tentative and len({tuple(c[2]) for c in candidates if c[0] in tentative}) > 1:
        candidates = [c for c in candidates if c[0] not in tentative]
        if not candidates:
            return Extraction(None, "hedge")
    # An order after a marker ("答案：", "正确顺序为", "修正后") outranks lists in the explanation, which
    # often walk through the steps alphabetically; among equals the last one wins.
    full = [c for c in candidates if len(c[2]) == len(valid)]
    orders = {"".join(c[2]) for c in full if _as_permutation(c[2], valid)}
    if (len(orders) > 1 and (_HEDGE_ORDERS.search(text) or _HEDGE.search(text))) or _INTERCHANGEABLE.search(text):
        return Extraction(None, "hedge")
    answered = [(p, "".join(q)) for p, m, q in full if m == "marker" and _as_permutation(q, valid)
                and re.match(r"(?:最终答案|正确答案|答案|(?i:final answer|answer))", text[p:])]
    # An order opening the response counts as stated too: "E→D→A→B→C\n…因此正确顺序为：D→E→A→B→C" contradicts itself.
    indent = len(text) - len(text.lstrip())
    opening = [(p, "".join(q)) for p, m, q in full if m == "letter_run" and p <= indent and _as_permutation(q, valid)]
    concluded = [(p, "".join(q)) for p, m, q in full if m == "marker" and _as_permutation(q, valid)]
    if opening and concluded and concluded[-1][0] > opening[0][0]:
        answered = sorted({*answered, opening[0], concluded[-1]})
    for (p1, a), (p2, b) in itertools.pairwise(answered):
        if a != b and not _CORRECTION.search(text, p1, p2 + 12):
            return Extraction(None, "inconsistent")
    for wanted in (("marker",), ("letter_run", "numbered_list")):
        for _pos, method, seq in sorted(full, key=lambda c: c[0], reverse=True):
            order = _as_permutation(seq, valid) if method in wanted else None
            if order:
                return Extraction(order, method)
    # The options written out one per line in the chosen order ("D. Assess …\nC. Obtain …"); the options in their
    # own order are more likely an echo of the question than an answer.
    for block in reversed([m.group(0) for m in re.finditer(rf"(?:(?:^|\n){_OPTION_LINE}[^\n]*)+", text)]):
        order = _as_permutation(re.findall(rf"(?m)^{_OPTION_LINE}", block.strip("\n")), valid)
        if order and order != valid:
            return Extraction(order, "option_lines")
    for pos, _method, seq in sorted(candidates, key=lambda c: c[0], reverse=True):
        order = _completed(seq, valid, text, pos, option_texts)
        if order:
            return Extraction(order, "order_completed_by_text")
    if any(m == "marker" for _, m, _ in candidates) or full:
        return Extraction(None, "invalid_order")
    # A sentence: "应先进行D，再进行B，接着A，最后C".
    for sentence in reversed(re.split(r"[。！？!?\n]", text)):
        if len(_SEQUENCE_WORDS.findall(sentence)) >= 2:
            letters = re.findall(rf"{_NOT_BEFORE}({_LETTER}){_NOT_AFTER}", sentence)
            order = _as_permutation(letters, valid)
            if order:
                return Extraction(order, "sequence_sentence")
    if option_texts:
        order = _order_by_text(cleaned, option_texts, valid)
        if order:
            return Extraction(order, "order_by_text")
    return Extraction(None, "no_order")


# ---------------------------------------------------------------------------------------------
# Keywords and free text

_KW_MARKER = re.compile(r"(?:关键词|关键字|key\s*words?)\s*(?:是|为|如下|包括|有)?\s*[:：]?", re.I)
# Separators from strongest to weakest: a list written with '；' keeps 'PI3K/Akt' and 'db/db' whole.
_KW_SEPARATORS = (r"[;；\n]+", r"[,，、|]+", r"[/]+|\s+")


def split_keyword_list(text: str) -> list[str]:
    """A keyword list split on the strongest separator it uses ('；' over '，、' over '/' and spaces)."""
    for sep in _KW_SEPARATORS:
        parts = [p.strip() for p in re.split(sep, text)]
        parts = [p for p in parts if p]
        if len(parts) > 1:
            return parts
    return [text.strip()] if text.strip() else []


def _clean_keyword(k: str) -> str:
    k = re.sub(r"^\s*(?:\d+|[一二三四五六七八九十]+)\s*[.、)）:]\s*", "", k)
    k = k.strip(" \t\"'“”‘’「」『』《》【】[]()（）*-•·.。:：")
    return k


def extract_keywords(response: str) -> Extraction:
    """Keywords from a '关键词：a；b；c' line or a short list; the whole text as a last resort."""
    text = clean_response(response)
    if text is None:
        return Extraction(None, "unterminated_reasoning")
    for m in _KW_MARKER.finditer(text):
        rest = text[m.end():]
        line = rest.split("\n", 1)[0]
        if not line.strip() and "\n" in rest:  # marker on its own line, list below
            block = re.split(r"\n\s*\n", rest.strip(), maxsplit=1)[0]
            parts = [_clean_keyword(x) for x in block.split("\n")]
        else:
            line = re.split(r"[。]|(?:理由|原因|解释|说明)\s*[:：]", line, maxsplit=1)[0]
            parts = [_clean_keyword(x) for x in split_keyword_list(line)]
        words = [p for p in parts if p and len(p) <= 20]
        if words:
            return Extraction(words, "keyword_marker")
    items = re.findall(r"(?m)^\s*(?:\d+[.、)]|[-*•])\s*([^\n:：。,，]{1,15})\s*(?:[:：。,，]|$)", text)
    if len(items) >= 2:
        return Extraction([_clean_keyword(i) for i in items if _clean_keyword(i)], "keyword_list")
    return Extraction(None, "no_keywords")


def extract_text(response: str) -> Extraction:
    """The response without reasoning blocks (for similarity-scored free text)."""
    stripped = strip_reasoning(response or "")
    if stripped is None:
        return Extraction(None, "unterminated_reasoning")
    stripped = stripped.strip()
    return Extraction(stripped or None, "text" if stripped else "empty")


def extract(kind: str, response: str, options: str = "", option_texts: dict[str, str] | None = None
            ) -> Extraction:
    """Dispatch by answer shape: single, multi, order, keywords or text."""
    if kind == "single":
        return extract_choice(response, options, option_texts=option_texts)
    if kind == "multi":
        return extract_choice(response, options, multi=True, option_texts=option_texts)
    if kind == "order":
        return extract_order(response, options, option_texts)
    if kind == "keywords":
        return extract_keywords(response)
    if kind == "text":
        return extract_text(response)
    raise ValueError(f"unknown answer kind {kind!r}")
