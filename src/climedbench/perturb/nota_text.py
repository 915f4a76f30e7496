"""The words of a none-of-the-above option: what `climedbench nota` writes, and what already reads so (the copy
leaves such items alone; the analysis of the two runs leaves them out)."""

from __future__ import annotations

import re

NOTA_TEXT = {"zh": "以上都不是", "en": "None of the above"}
# Options that already say "none of the above" in Chinese or English.
NOTA_RE = re.compile(r"^\s*(?:(?:以上|上述)(?:选项|答案|各项|说法)?(?:都|均|皆|全)?(?:不|没有|无)"
                     r"(?:是|对|正确|符合|准确)|none of the (?:above|options)(?: (?:is|are) correct)?)",
                     re.IGNORECASE)


def is_nota(text: str) -> bool:
    return bool(NOTA_RE.match(text.strip()))
