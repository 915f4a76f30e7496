"""The patterns of choice answers (letters, answer markers, hedges, verdicts) and small predicates on them."""

from __future__ import annotations

import re

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
_ODD_STATEMENT = re.compile(rf"(?:{_ODD_MARKERS_ZH}|(?i:{_ODD_MARKERS_EN}))\s*{_AFTER_MARKER}\s*{_LETTER_RUN}")
_RANGE_AFTER = re.compile(rf"[ \t]*\)?[ \t]*(?:(?i:through|thru|to)|[-–~])[ \t]*\(?{_LETTER}{_NOT_AFTER}")
_ONLY = re.compile(r"只有|仅有|仅|唯一|(?i:\bonly\b)")
_LIST_LINE = (rf"[ \t]*(?:[-*•]|\d+[.、)])?[ \t]*{_OPEN}?({_LETTER}){_CLOSE}?{_NOT_AFTER}"
              r"(?:(?:[.、:：)]|[ \t])[^\n]*|(?=\n|$))")  # "- A …", or the letter alone on its line
_LIST_STRONG = re.compile(rf"(?:{_MARKERS_ZH}|(?i:{_MARKERS_EN}))\s*[:：]?[ \t]*\n((?:{_LIST_LINE}\n?)+)")
# For multi-answer items any line ending in a colon may introduce the chosen options.
_LIST_ANY = re.compile(rf"[:：][ \t]*\n((?:{_LIST_LINE}\n?)+)")
_ANSWER_VERB = re.compile(r"(?:首选|应选|选择|选用|应用|改用|答案是|答案为|诊断为|考虑为|应为|是|为|用|is|be)\s*$",
                          re.I)
# Verbs that choose (not merely describe: "原则为早期、联合……" is no choice of 早期).
_CHOOSING_VERB = re.compile(  # matched on text without spaces ("answeris")
    r"(?:首选|应选|选择|选用|改用|答案是|答案为|(?<!回)答案?[:：]|诊断为|"
    r"(?i:answer\s*is|answer:|diagnosis\s*is|this\s*is|choose|select))\s*$"
)
_NEGATED_CLAUSE = re.compile(r"不正确|错误|不宜|不应|禁用|排除|不是|不能|而非|并非|不属于|(?i:\bnot\b|incorrect|wrong)")
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


_IS_LETTER = re.compile(rf"(?:(?<![A-Za-z])(?i:is|be)\s+|是|为)\s*{_OPEN}?({_LETTER})(?:{_CLOSE}|\s*[:：.．])\s*")
# A line that starts with an option label ("D. …", "- (C) …"); the letter is captured.
_OPTION_LINE = rf"[ \t]*(?:[-*•][ \t]*)?{_OPEN}?({_LETTER}){_CLOSE}?[ \t]*[.、:：)]"
