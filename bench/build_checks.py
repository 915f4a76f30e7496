"""Counts, over the items of one `climedbench build` folder, of the failure kinds a blind clinical read found
(docs/BUILD.md, "A blind read"), with checks written here apart from the build's own code:

- ID#1: options that carry a result — a number with a unit, or a finding word (阳性, 正常, 未见, 升高, 抬高, 窦性,
  normal, negative, …);
- CPR: items; events (other than the first and the last, the complaint and the discharge) with no day expression
  (第N天, 术后第N天, 入院当天/后, 次日, day N, POD N …), items with two or more such events (whose order among
  themselves the note does not fix), and items with two events naming the same day;
- ID#4: options with a phone number, a contact word, a signature line or a doctor's name; and the items where a
  feature (mentions the discharge, a duration, post-operative advice) is in exactly one option, with how often that
  option is the key.

    python bench/build_checks.py SUITE_DIR [--json OUT.json]
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path

RESULT = re.compile(r"\d+(?:\.\d+)?\s*(?:mmol|μmol|umol|g/L|g/dL|mg/dL|ng|pg|U/L|U/mL|IU|RU|mg|mL|%|×10|mm|cm|次/分|"
                    r"分|mV|s\b|级|kg|mEq|/uL|/HP)|阳性|阴性|正常|未见|升高|降低|抬高|压低|增高|减低|窦性|异常|"
                    r"\(\+|（\+|\b(?:normal|negative|positive|elevated|unremarkable|showed|revealed)\b", re.I)
DAY = re.compile(r"术后第\s*\d+\s*[天日]|(?:入院)?第\s*\d+\s*(?:天|日|病日)|入院(?:当天|当日|时|后)|\d+\s*小时内|"
                 r"次日|\b(?:hospital )?day\s*\d+\b|\bPOD\s*\d+|postoperative day \d+|on admission|on arrival", re.I)
PHONE = re.compile(r"(?<!\d)(?:\d{3}-\d{3}-\d{4}|0\d{2,3}-\d{7,8}|1[3-9]\d{9}|\(\d{3}\)\s?\d{3}-\d{4})(?!\d)")
CONTACT = re.compile(r"电话|手机|微信|邮箱|预约号|\bphone\b|\btel\b|e-?mail", re.I)
SIGNATURE = re.compile(r"主治医师|住院医师|联系医师|出院日期|医师签名|Attending:|Discharge date", re.I)
DOCTOR = re.compile(r"医师|医生|\bDr\.", re.I)
FEATURES = {"mentions the discharge": re.compile(r"出院|discharg", re.I),
            "a duration": re.compile(r"\d+\s*(?:天|周|个月|月|年)|\b\d+\s*(?:days?|weeks?|months?|years?)\b", re.I),
            "post-operative advice": re.compile(r"术后|拆线|切口|伤口|post-?op|incision|wound|suture", re.I)}


def options_of(text: str) -> dict[str, str]:
    m = re.search(r"## (?:选项|Options)[:：]\s*(.*)$", text, re.S)
    if not m:
        return {}
    return dict(re.findall(r"^([A-D]): (.*)$", m.group(1), re.M))


def events_of(text: str) -> dict[str, str]:
    return dict(re.findall(r"(?:^|: )([A-E])\. (.*)$", text, re.M))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("suite", type=Path)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    rows = [json.loads(x) for x in (args.suite / ".build" / "candidates.jsonl").read_text("utf-8").splitlines()
            if x.strip()]
    report: dict = {"items": dict(Counter(r["task"] for r in rows))}
    id1 = [(r, o) for r in rows if r["scenario"] == "ID#1" for o in options_of(r["item"]["input"]).values()]
    keys = [options_of(r["item"]["input"])[r["item"]["reference"]] for r in rows if r["scenario"] == "ID#1"]
    report["ID#1"] = {"options": len(id1), "options_with_a_result": sum(bool(RESULT.search(o)) for _, o in id1),
                      "keys_with_a_result": sum(bool(RESULT.search(k)) for k in keys)}
    cpr = [r for r in rows if r["scenario"] == "CPR"]
    undated = same_day = items_undated = 0
    for r in cpr:
        ev = events_of(r["item"]["input"])
        middle = [ev[k] for k in r["item"]["reference"][1:-1]]
        undated += sum(not DAY.search(e) for e in middle)
        items_undated += sum(not DAY.search(e) for e in middle) > 1  # two undated events: their order is open
        firsts = [m.group(0) for m in (DAY.search(e) for e in middle) if m]
        same_day += len(firsts) != len(set(firsts))
    report["CPR"] = {"items": len(cpr), "middle_events": sum(len(r["item"]["reference"]) - 2 for r in cpr),
                     "middle_events_without_a_day": undated,
                     "items_with_two_or_more_middle_events_without_a_day": items_undated,
                     "items_with_two_events_on_the_same_day": same_day}
    id4 = [r for r in rows if r["scenario"] == "ID#4"]
    opts = [o for r in id4 for o in options_of(r["item"]["input"]).values()]
    cues = {}
    for name, pat in FEATURES.items():
        only = [r for r in id4 if sum(bool(pat.search(o)) for o in options_of(r["item"]["input"]).values()) == 1]
        key = sum(bool(pat.search(options_of(r["item"]["input"])[r["item"]["reference"]])) for r in only)
        cues[name] = {"items_with_it_in_one_option": len(only), "that_option_is_the_key": key}
    report["ID#4"] = {"options": len(opts), "with_a_phone_number": sum(bool(PHONE.search(o)) for o in opts),
                      "with_a_contact_word": sum(bool(CONTACT.search(o)) for o in opts),
                      "with_a_signature_line": sum(bool(SIGNATURE.search(o)) for o in opts),
                      "naming_a_doctor": sum(bool(DOCTOR.search(o)) for o in opts), "one_option_cues": cues}
    text = json.dumps(report, ensure_ascii=False, indent=1)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
