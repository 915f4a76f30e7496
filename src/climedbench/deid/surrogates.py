"""Replacements for detected PHI: realistic surrogates that keep a note clinically usable, or type masks.

Surrogates are derived from a keyed hash (HMAC-SHA256 with the user's salt) of the type and the original value, so
the same name becomes the same fake name in every note and every run with the same salt, and nothing about the
original can be recovered without the salt. Dates move by one offset per patient (15–365 days, either way), so
intervals stay true. The salt never enters an output.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import re
import secrets
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Literal

from climedbench.deid import en_context
from climedbench.deid.dates import shift_date
from climedbench.errors import ConfigError

Mode = Literal["surrogate", "mask"]
SALT_BYTES = 32


def load_or_create_salt(path: Path) -> tuple[bytes, bool]:
    """The salt in `path` (created with 32 random bytes, mode 0600, if missing); (salt, created)."""
    if path.exists():
        data = path.read_bytes().strip()
        try:
            salt = bytes.fromhex(data.decode("ascii"))
        except (UnicodeDecodeError, ValueError):
            raise ConfigError(f"{path}: not a climedbench salt file (expected {SALT_BYTES * 2} hex digits)") from None
        if len(salt) < 16:
            raise ConfigError(f"{path}: the salt is too short ({len(salt)} bytes; at least 16)")
        return salt, False
    path.parent.mkdir(parents=True, exist_ok=True)
    salt = secrets.token_bytes(SALT_BYTES)
    fd = path.open("x", encoding="ascii")
    try:
        path.chmod(0o600)
        fd.write(salt.hex() + "\n")
    finally:
        fd.close()
    return salt, True


@cache
def _faker(locale: str) -> object:
    from faker import Faker

    return Faker(locale)


class Replacer:
    """Replacement text for one detected span."""

    def __init__(self, salt: bytes, mode: Mode = "surrogate") -> None:
        self.salt = salt
        self.mode = mode

    def digest(self, *parts: str) -> bytes:
        return hmac.new(self.salt, "\x1f".join(parts).encode("utf-8"), hashlib.sha256).digest()

    def value_hash(self, value: str) -> str:
        """What the report shows instead of a value: a keyed hash (the same value, the same hash, per salt)."""
        return self.digest("report", value).hex()[:16]

    def date_offset(self, patient: str) -> int:
        """Days every date of this patient moves (15–365, earlier or later)."""
        r = random.Random(self.digest("date-offset", patient))
        return r.choice((-1, 1)) * r.randint(15, 365)

    def _rng(self, entity: str, value: str, attempt: int = 0) -> random.Random:
        key = re.sub(r"\s+", "", value)
        return random.Random(self.digest(entity, key) if attempt == 0 else self.digest(entity, key, str(attempt)))

    def replace_avoiding(self, entity: str, value: str, patient: str, language: str, avoid: frozenset[str]) -> str:
        """`replace`, drawn again when a drawn name, address or organisation contains one of the note's real PHI
        strings `avoid` (`real_strings`), or lies inside one: the surrogate 李娜红 for one person would print
        another's real name 李娜. The first draw is the one every other note of the patient gets, so only such a
        note's surrogate differs."""
        if entity not in DRAWN or self.mode == "mask":
            return self.replace(entity, value, patient, language)
        for attempt in range(MAX_DRAWS):
            fake = self.replace(entity, value, patient, language, attempt)
            if not collides(fake, avoid):
                return fake
        return f"[{entity}]"

    def replace(self, entity: str, value: str, patient: str, language: str, attempt: int = 0) -> str:
        # A title before a name (Dr. Priya Raman) and a clock time after a date (03/11/2024 18:47) are inside the
        # span (the whole value is found) but not identifying: they stay as written.
        if entity == "NAME" and (title := en_context.TITLE.match(value)) is not None and title.end() < len(value):
            return title.group() + self.replace(entity, value[title.end():], patient, language, attempt)
        if entity == "DATE" and (time := en_context.TIME_AFTER.search(value)) is not None and time.start() > 0 and \
                time.end() == len(value) and (self.mode == "mask" or shift_date(value, 0) is None):
            return self.replace(entity, value[:time.start()], patient, language) + time.group()
        if self.mode == "mask":
            return f"[{entity}]"
        rng = self._rng(entity, value, attempt)
        zh = language == "zh" or bool(re.search(r"[\u4e00-\u9fff]", value))
        if entity == "DATE":
            shifted = shift_date(value, self.date_offset(patient))
            return shifted if shifted is not None else "[DATE]"
        if entity == "AGE":
            return re.sub(r"\d+", "90+" if not zh else "90余", value, count=1) if re.search(r"\d", value) else "[AGE]"
        fake = _faker("zh_CN" if zh else "en_US")
        fake.seed_instance(rng.getrandbits(64))  # type: ignore[attr-defined]
        if entity == "NAME":
            return _fake_name(value, fake, rng)
        if entity == "ADDRESS":
            return _fake_address(value, fake, zh)
        if entity == "ORGANIZATION":
            return _fake_organisation(value, fake, zh, rng)
        if entity == "EMAIL":
            return f"{fake.user_name()}@example.{rng.choice(['com', 'org', 'net'])}"  # type: ignore[attr-defined]
        if entity == "URL":
            return f"https://www.example.{rng.choice(['com', 'org', 'net'])}/{fake.uri_path()}"  # type: ignore[attr-defined]
        if entity == "IP_ADDRESS":
            return "10." + ".".join(str(rng.randint(0, 255)) for _ in range(3)) if "." in value else \
                "fd00::" + ":".join(f"{rng.randint(0, 65535):x}" for _ in range(3))
        if entity == "ID_NUMBER" and re.fullmatch(r"\d{17}[\dXx]", value):
            return _fake_resident_id(rng)
        fake = scramble(value, rng, keep_leading=1 if entity in ("PHONE", "LICENSE_PLATE") else 0)
        if entity == "PHONE" and re.fullmatch(r"1[3-9]\d{9}", re.sub(r"\D", "", value)):
            # A Chinese mobile stays one (1[3-9]…): a 10…/11… surrogate reads as no phone at all.
            i = next(i for i, ch in enumerate(fake) if ch.isdigit() and i > fake.index("1"))
            fake = fake[:i] + rng.choice("3456789") + fake[i + 1:]
        return fake


# Surrogates drawn from name, address and company lists (checked against the note's real PHI), and how often
DRAWN = frozenset({"NAME", "ADDRESS", "ORGANIZATION"})
MAX_DRAWS = 12


def squeezed(value: str) -> str:
    """A value as `collides` compares it: without white space, case folded."""
    return re.sub(r"\s+", "", value).casefold()


def real_strings(values: Iterable[str]) -> frozenset[str]:
    """A note's real PHI strings as `collides` reads them (squeezed once per note, not once per draw)."""
    return frozenset(squeezed(v) for v in values)


def collides(fake: str, avoid: frozenset[str]) -> bool:
    """Whether a surrogate contains one of the note's real PHI strings `avoid` (from `real_strings`; two Chinese
    characters or three others or more), or is part of one."""
    mine = squeezed(fake)
    for real in avoid:
        if (len(real) >= _shortest(real) and real in mine) or (len(mine) >= _shortest(mine) and mine in real):
            return True
    return False


def _shortest(text: str) -> int:
    """The shortest string that counts: two Chinese characters make a name, two Latin letters do not (initials)."""
    return 2 if re.search(r"[\u4e00-\u9fff]", text) else 3


def scramble(value: str, rng: random.Random, keep_leading: int = 0) -> str:
    """Same shape, other characters: digits for digits, letters for letters (case kept), the rest kept; the first
    `keep_leading` letters or digits stay (a mobile's leading 1, a plate's province)."""
    out, kept = [], 0
    for ch in value:
        if (ch.isdigit() or ch.isalpha()) and kept < keep_leading:
            out.append(ch)
            kept += 1
        elif ch.isdigit():
            out.append(str(rng.randint(0, 9)))
        elif "A" <= ch <= "Z":
            out.append(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ"))
        elif "a" <= ch <= "z":
            out.append(rng.choice("abcdefghijkmnpqrstuvwxyz"))
        else:
            out.append(ch)
    result = "".join(out)
    return result if result != value or not re.search(r"[0-9A-Za-z]", value) else scramble(value, rng, keep_leading)


def _fake_resident_id(rng: random.Random) -> str:
    from climedbench.deid.patterns import gb11643_valid

    while True:
        born = f"{rng.randint(1940, 2015)}{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}"
        body = f"{rng.randint(110000, 659000)}{born}{rng.randint(0, 999):03d}"
        for check in "0123456789X":
            if gb11643_valid(body + check):
                return body + check


def _fake_name(value: str, fake: object, rng: random.Random) -> str:
    if re.search(r"[\u4e00-\u9fff]", value):
        from climedbench.deid.lexicon import zh_surnames

        surname = str(fake.last_name())  # type: ignore[attr-defined]
        if len(value) == 1:
            return surname
        given = len(value) - (2 if value[:2] in zh_surnames()[1] else 1)
        name = surname + "".join(str(fake.first_name())[:1] for _ in range(max(1, min(given, 2))))  # type: ignore[attr-defined]
        return name if name != value else name[::-1]
    if re.fullmatch(r"(?:[A-Z]\.\s?)+", value):  # initials: as many, the same spacing
        letters = [f"{rng.choice('ABCDEFGHJKLMNPRSTW')}." for _ in re.findall(r"[A-Z]", value)]
        return (" " if " " in value else "").join(letters)
    parts = value.split()
    if "," in value:  # Last, First
        return f"{fake.last_name()}, {fake.first_name()}"  # type: ignore[attr-defined]
    if len(parts) == 1:
        return str(fake.last_name())  # type: ignore[attr-defined]
    first = str(fake.first_name())  # type: ignore[attr-defined]
    middle = [f"{rng.choice('ABCDEFGHJKLMNPRSTW')}." if re.fullmatch(r"[A-Z]\.?", p) else str(fake.first_name())  # type: ignore[attr-defined]
              for p in parts[1:-1]]
    return " ".join([first, *middle, str(fake.last_name())])  # type: ignore[attr-defined]


def _fake_address(value: str, fake: object, zh: bool) -> str:
    if zh:
        rng = random.Random(str(fake.random_int()))  # type: ignore[attr-defined]
        street = f"{fake.street_name()}{rng.randint(1, 399)}号"  # type: ignore[attr-defined]
        if re.search(r"[室楼栋]", value):
            street += f"{rng.randint(1, 30)}号楼{rng.randint(1, 25)}0{rng.randint(1, 9)}室"
        if re.search(r"[市县]", value) and not re.match(r"[\u4e00-\u9fa5]{1,8}?(?:路|街|道|巷|弄)", value):
            return str(fake.city()) + str(fake.district()) + "区" + street  # type: ignore[attr-defined]
        return street
    if re.fullmatch(r"\d{5}(?:-\d{4})?", value):
        return str(fake.postcode())  # type: ignore[attr-defined]
    return str(fake.street_address()) + (", " + str(fake.city()) + ", " + str(fake.state_abbr()) + " " +  # type: ignore[attr-defined]
                                         str(fake.postcode()) if "," in value else "")  # type: ignore[attr-defined]


def _fake_organisation(value: str, fake: object, zh: bool, rng: random.Random) -> str:
    if zh:
        from climedbench.deid.lexicon import ORG_SUFFIXES_ZH

        suffix = next((s for s in sorted(ORG_SUFFIXES_ZH, key=len, reverse=True) if s in value), "医院")
        dept = value[value.index(suffix) + len(suffix):] if suffix in value else ""
        city = str(fake.city_name())  # type: ignore[attr-defined]
        ordinal = "第" + "一二三四五六七八九"[rng.randint(0, 8)] if suffix.endswith("医院") else ""
        return f"{city}{ordinal}{suffix}{dept}"
    m = re.search(r"(Hospital|Medical Center|Medical Centre|Clinic|University|College|School|Institute|"
                  r"Health System|Nursing Home|Pharmacy|Bank|Foundation)", value)
    if m:  # the kind stays whole (Lakeshore University Hospital → Morris University Hospital)
        return f"{fake.last_name()} {value[m.start():]}"  # type: ignore[attr-defined]
    return str(fake.company())  # type: ignore[attr-defined]
