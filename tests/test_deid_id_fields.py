"""Structured identifiers found by general mechanisms (climedbench.deid.id_fields): labels in any wording, check
digits of other countries' numbers, phones after a call word, handles after a messenger, plates in groups, report
and document numbers, table columns and operators' logins. Every example was written for this test."""

from __future__ import annotations

import pytest

from climedbench.deid import id_fields
from climedbench.deid.engine import Analyzer
from tests.support.deid_spans import covered, touched


@pytest.fixture(scope="module")
def analyzer() -> Analyzer:
    return Analyzer()


REMOVED = [
    # a label's head word, whatever words stand before it, with dot leaders, a bracketed note or a second label
    ("en", "Subscriber Policy ......... QRP5518207-02\nGroup: none", "QRP5518207-02"),
    ("en", "Secondary Member ID (Tricare): 8830-44105-HX, verified", "8830-44105-HX"),
    ("en", "Travel Visa (work, single entry): VK2261904 valid to June", "VK2261904"),
    ("zh", "入境許可證（電子）：W5883017\n聯絡人：家屬", "W5883017"),
    ("zh", "住院登记编号 Folha nº：MC-5520198\n性别：女", "MC-5520198"),
    # national and health numbers by their check digits, without a label
    ("en", "GP letter re 6124498707 received, reviewed in clinic.", "6124498707"),
    ("en", "Her enrolment copy shows 3718 8204 5519 on the front.", "3718 8204 5519"),
    ("en", "Copy of card S7720418J kept in the admissions file.", "S7720418J"),
    ("en", "Form countersigned, PPS 6633018D, by the welfare officer.", "6633018D"),
    ("en", "Card on file 3218 44068 1, expiry 08/29.", "3218 44068 1"),
    ("en", "Transferred from Hutt with KRW4182 on the wristband.", "KRW4182"),
    ("en", "Eligibility check for 5EG4-TE5-MK73 passed this morning.", "5EG4-TE5-MK73"),
    # phones of other countries after a call word, and a pager's short extension
    ("zh", "如需改期，請致電診所 2573 6612 查詢。", "2573 6612"),
    ("en", "Her sister asked us to text 8123 4567 when she is awake.", "8123 4567"),
    ("en", "Night registrar: beeper 3-5521 for any deterioration.", "3-5521"),
    # handles after a messenger's name, in quotes after a user-name word, glued to a Chinese word
    ("en", "Mother prefers Telegram jk.marlowe.88 for updates.", "jk.marlowe.88"),
    ("zh", "患者在抖音用户名\"清风_07\"下发布视频。", "清风_07"),
    ("zh", "家属说可以加我，号是lin_xiaoyu1993谢谢。", "lin_xiaoyu1993"),
    # plates in groups
    ("en", "Her vehicle MKT 5581 is in the multistorey car park.", "MKT 5581"),
    ("zh", "被一辆白色轿车（鲁BX 7Q216）撞倒。", "鲁BX 7Q216"),
    # a report's number in brackets, an official document's number
    ("en", "Cytology (CY23/N40918) showed atypical cells.", "CY23/N40918"),
    ("zh", "渝检鉴[2023]物字第00418号\n一、基本情况", "渝检鉴[2023]物字第00418号"),
    # a table's column named as an identifier; a login after an operator's label
    ("en", "User ID      Role       Action\nmbrenner4    Clerk      Print preview\n", "mbrenner4"),
    ("zh", "时间          登录账号       操作\n08:15         chenyl7        查看病历\n", "chenyl7"),
    ("zh", "打印时间 2024-05-02  操作员 zhoujm  终端 3号", "zhoujm"),
    # a login after any Chinese label of who did something or of a user, not only the listed operators' labels
    ("zh", "护理记录 记录员：lihongm 核对无误", "lihongm"),
    ("zh", "本次随访由社区用户 wxfeng 在平台提交。", "wxfeng"),
]


@pytest.mark.parametrize(("lang", "text", "phi"), REMOVED)
def test_identifier_is_removed(analyzer: Analyzer, lang: str, text: str, phi: str) -> None:
    assert covered(text, analyzer.analyze(text, lang), phi), (text, phi)


KEPT = [
    # readings, doses, dates, beds and codes after an identifier-like label
    ("en", "ID: Tmax 101.4 overnight, cultures sent.", "101.4"),
    ("en", "Glucose Ref ....... 3.9-6.1 mmol/L", "3.9-6.1"),
    ("en", "Bed No.: 12   Ward: 7", "12"),
    ("en", "ICD Code: K35.80 acute appendicitis", "K35.80"),
    ("en", "Dose No.: 2 of 3 given", "2 of 3"),
    ("zh", "药品批准文号：国药准字H20054321", "H20054321"),
    ("zh", "床号：15   检验项目编号：2", "15"),
    # numbers whose check digit fails, service lines and hotlines
    ("en", "Cells counted: 4010232136 per litre by the analyser.", "4010232136"),
    ("zh", "心理援助服务热线 2382 0000 全天开放。", "2382 0000"),
    ("en", "Call 1800 022 222 for the national poisons line.", "1800 022 222"),
    ("en", "Please call 1-800-432-7710 for the benefits line.", "1-800-432-7710"),
    # a word after a messenger's name; a size or a count after a vehicle word; a gene change in brackets
    ("en", "Signal T2.5 hyperintensity on MRI.", "T2.5"),
    ("en", "Car 2 arrived with 4 units.", "2"),
    ("en", "Biopsy (HER2-3+) confirmed.", "HER2-3+"),
    # a table's result and lot columns
    ("en", "Test No    Result    Lot No\nSodium     139       AB2231\n", "139"),
    ("en", "Test No    Result    Lot No\nSodium     139       AB2231\n", "AB2231"),
]


@pytest.mark.parametrize(("lang", "text", "keep"), KEPT)
def test_clinical_value_is_kept(analyzer: Analyzer, lang: str, text: str, keep: str) -> None:
    assert not touched(text, analyzer.analyze(text, lang), keep), (text, keep)


@pytest.mark.parametrize(("check", "good", "bad"), [
    (id_fields.mod11_nhs, "401 023 2137", "401 023 2136"),
    (id_fields.verhoeff_valid, "371882045519", "371882045518"),
    (id_fields.nric_valid, "T0311592A", "T0311592B"),
    (id_fields.ppsn_valid, "6633018D", "6633018E"),
    (id_fields.au_medicare_valid, "3218440681", "3218440671"),
    (id_fields.nhi_valid, "MDJ7022", "MDJ7023"),
])
def test_check_digit(check: object, good: str, bad: str) -> None:
    assert callable(check)
    assert check(good) and not check(bad)
