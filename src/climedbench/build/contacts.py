"""Contact details and signature lines removed from discharge advice (the key and options of the discharge-advice
items): de-identification misses some phone numbers, and surrogates keep the others looking like phone numbers;
neither belongs in an answer option, and a signature line ('主治医师：X', '出院日期：…', 'Attending: …') or a
doctor's name is a cue outside medicine. Removed, per sentence:

- a bracket naming a phone number, a contact word or a doctor ('（陈某某，联系电话175…）', '(clinic phone …)',
  '（王某某医师）', '（…预约号：HX…）');
- a clause (between ，；, ;) with a phone number, an e-mail address, a contact word (联系电话, 电话, 手机, 微信,
  邮箱, 预约号, phone, tel, e-mail, fax) or a labelled doctor ('门诊：X主任医师');
- 'Dr. Name' (with a 'with' before it);
- a sentence left with only a condition ('如有不适，联系电话…' → nothing);
- the whole sentence when it is a signature line (主治医师, 住院医师, 联系医师, 出院日期, 记录者, Attending, Resident,
  Discharge date, Signed …: a label and a name or date) or nothing is left of it.
Emergency numbers (120, 911, 999) are instructions, not contact details: they stay.
"""

from __future__ import annotations

import re

_PHONE = re.compile(r"(?<![\d.])(?:\+?\d{1,3}[-\s])?(?:\(\d{3}\)\s?\d{3}-\d{4}|\d{3}-\d{3}-\d{4}|0\d{2,3}-\d{7,8}|"
                    r"1[3-9]\d{9}|\d{7,})(?![\d.])")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+")
_CONTACT = re.compile(r"联系电话|电话|手机|微信|邮箱|传真|热线|预约号|联系方式|\b(?:phone|tel|telephone|e-?mail|fax|"
                      r"pager)\b", re.I)
_DOCTOR = re.compile(r"医师|医生|\bDr\.", re.I)
_BRACKET = re.compile(r"\s*[（(][^（()）]*[）)]")
_DR_NAME = re.compile(r"\s*\b(?:with\s+)?Dr\.\s+[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)?")
_SIGNATURE = re.compile(r"^\s*(?:\d{1,2}\s*[.、．)）]\s*)?(?:主治医师|住院医师|主任医师|经治医师|联系医师|医师签名|"
                        r"出院日期|入院日期|记录者|记录医师|签名|attending|resident|physician|discharge date|"
                        r"admission date|signed|dictated by)\s*[：:]", re.I)
_CLAUSE = re.compile(r"([，；,;])")
_CONDITION_ONLY = re.compile(r"^\s*(?:\d{1,2}\s*[.、．)）]\s*)?(?:如|若|if\b)[^，；,;]*[，；,;]?\s*$", re.I)


_LABELLED_DOCTOR = re.compile(r"[：:]\s*[\u4e00-\u9fff]{2,4}(?:副?主任医师|主治医师|医师|医生)\s*$")


def _contact(text: str) -> bool:
    return bool(_PHONE.search(text) or _EMAIL.search(text) or _CONTACT.search(text) or _LABELLED_DOCTOR.search(text))


def strip_contacts(sentence: str) -> str:
    """The sentence without its contact details, doctors' names and signature lines ('' when nothing is left)."""
    if _SIGNATURE.match(sentence):
        return ""
    text = _BRACKET.sub(lambda m: "" if _contact(m.group(0)) or _DOCTOR.search(m.group(0)) else m.group(0), sentence)
    text = _DR_NAME.sub("", text)
    parts = _CLAUSE.split(text)
    kept: list[str] = []
    for i in range(0, len(parts), 2):
        clause, sep = parts[i], parts[i + 1] if i + 1 < len(parts) else ""
        if not _contact(clause):
            kept.append(clause + sep)
    if len(kept) == 1 < len(parts) and _CONDITION_ONLY.match(kept[0]):
        return ""  # '如有不适，联系电话…' without its contact is no instruction
    out = "".join(kept).strip()
    out = re.sub(r"[，；,;]\s*([。.])$", r"\1", out).rstrip("，；,; ")
    if out and not re.search(r"[。.!！?？]$", out) and re.search(r"[。.!！?？]$", sentence.strip()):
        out += sentence.strip()[-1]
    return "" if len(re.sub(r"[\W\d_]+", "", out)) < 2 else out
