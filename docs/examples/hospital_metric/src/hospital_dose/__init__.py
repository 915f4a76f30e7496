"""St Elsewhere's dose-calculation metric, as a climedbench plug-in.

A dose answer is right when it is within a tolerance (default ±10%) of the reference dose, whatever the unit
the model wrote it in (g, mg, micrograms). Answers outside the tolerance are counted as overdoses or underdoses,
because the two are not equally dangerous on a ward.

Registered when imported (climedbench imports it through the entry point in pyproject.toml):
- extractor `dose_mg`: the last dose stated in the response (a number with g/mg/mcg/µg/micrograms; per-kilogram
  rates such as '25 mg/kg' are skipped), as 'N mg';
- metric `dose_within_tolerance`: 1 when the extracted dose is within `tolerance` (metric_options, a fraction)
  of the item's reference dose, else 0; flags 'overdose' / 'underdose'.
"""

from __future__ import annotations

import re
from typing import Any

from climedbench.metrics.item import ItemScore
from climedbench.plugin import extractor, metric

# Milligrams per unit.
UNITS = {"g": 1000.0, "gram": 1000.0, "grams": 1000.0, "mg": 1.0, "milligram": 1.0, "milligrams": 1.0,
         "mcg": 0.001, "\u00b5g": 0.001, "\u03bcg": 0.001, "ug": 0.001, "microgram": 0.001, "micrograms": 0.001}
_DOSE = re.compile(r"(\d+(?:\.\d+)?)\s*(" + "|".join(sorted(UNITS, key=len, reverse=True)) + r")\b(?!\s*/)",
                   re.IGNORECASE)


def dose_in_mg(text: str | None) -> float | None:
    """The last dose written in `text`, in milligrams (None when there is none)."""
    found = _DOSE.findall(text or "")
    if not found:
        return None
    number, unit = found[-1]
    return float(number) * UNITS[unit.lower()]


@extractor("dose_mg")
def read_dose(response: str, item: Any, task: Any) -> str | None:
    """The dose the response gives, as 'N mg' (None: no dose found)."""
    mg = dose_in_mg(response)
    return None if mg is None else f"{mg:g} mg"


@metric("dose_within_tolerance", label="Dose ±tol.", binary=True, answers=["text"])
def dose_within_tolerance(item: Any, extracted: Any, task: Any, ctx: Any) -> ItemScore:
    """1 when the dose is within the tolerance of the reference dose; an overdose or underdose is flagged."""
    tolerance = float(task.metric_options.get("tolerance", 0.10))
    gold = dose_in_mg(item.reference)
    given = dose_in_mg(extracted) if isinstance(extracted, str) else None
    if gold is None or given is None:
        return ItemScore(0.0)
    if given > gold * (1 + tolerance):
        return ItemScore(0.0, flags={"overdose": True})
    if given < gold * (1 - tolerance):
        return ItemScore(0.0, flags={"underdose": True})
    return ItemScore(1.0)
