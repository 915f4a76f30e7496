"""Rubrics as data: what raters judge, on which anchored scale, in Chinese and English.

A rubric is a YAML file (docs/RATING.md shows the format). Three are bundled in `rubrics/`:
`answer` (CliMedBench's four aspects of an open-ended answer, anchored 1–5), `item` (CliMedBench's review of
its own items: medical accuracy, assessment effectiveness, language; 3 = acceptable) and `usefulness`
(ClinicBench's 4-point clinical usefulness). `--aspects FILE.yaml` loads a rubric of your own.
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from climedbench.core.suite import Names
from climedbench.errors import ConfigError, yaml_problem

Level = Literal["ordinal", "interval", "nominal"]
BUNDLED_RUBRICS = ("answer", "item", "usefulness")
KEY = re.compile(r"^[a-z][a-z0-9_]{0,39}$")


class ScalePoint(BaseModel):
    """One point of a scale: its value and its anchor text."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    value: int
    zh: str | None = None
    en: str | None = None

    @model_validator(mode="after")
    def _label(self) -> ScalePoint:
        if not (self.zh or self.en):
            raise ValueError("give the anchor text in 'zh' and/or 'en'")
        return self

    def text(self, lang: str) -> str:
        return Names(zh=self.zh, en=self.en).text(lang)


class Aspect(BaseModel):
    """One thing a rater scores (medical correctness, fluency, …) on an anchored scale."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    key: str
    name: Names
    question: Names | None = None
    scale: tuple[ScalePoint, ...]

    @field_validator("key")
    @classmethod
    def _key(cls, v: str) -> str:
        if not KEY.match(v):
            raise ValueError("lower-case letters, digits and '_', starting with a letter (at most 40)")
        return v

    @field_validator("scale")
    @classmethod
    def _scale(cls, v: tuple[ScalePoint, ...]) -> tuple[ScalePoint, ...]:
        values = [p.value for p in v]
        if not 2 <= len(values) <= 9:
            raise ValueError("a scale has 2 to 9 points (keys 1–9 choose them)")
        if values != sorted(set(values)):
            raise ValueError("scale values must be distinct and increasing")
        return v

    @property
    def values(self) -> list[int]:
        return [p.value for p in self.scale]

    @property
    def low(self) -> int:
        return self.scale[0].value

    @property
    def high(self) -> int:
        return self.scale[-1].value


class Rubric(BaseModel):
    """What a study asks raters to judge."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    rubric: str
    version: str = "1"
    title: Names
    description: Names | None = None
    # What a case shows for rating: model answers to an item, or the item itself.
    target: Literal["answer", "item"]
    # Show the item's reference answer to the rater (answers are judged against it).
    show_reference: bool = False
    # Krippendorff's level of measurement for agreement.
    level: Level = "ordinal"
    # The lowest score that counts as acceptable (drawn as a line in the figure), if the rubric defines one.
    acceptable: int | None = None
    source: str | None = None
    aspects: tuple[Aspect, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique(self) -> Rubric:
        keys = [a.key for a in self.aspects]
        dup = sorted({k for k in keys if keys.count(k) > 1})
        if dup:
            raise ValueError(f"duplicate aspect keys: {dup}")
        return self

    def aspect(self, key: str) -> Aspect | None:
        return next((a for a in self.aspects if a.key == key), None)


def load_rubric(spec: str | Path) -> Rubric:
    """A bundled rubric by name ('answer', 'item', 'usefulness') or a rubric YAML file."""
    name = str(spec)
    if name in BUNDLED_RUBRICS:
        path = Path(str(resources.files("climedbench.apps.rater").joinpath("rubrics", f"{name}.yaml")))
        return parse_rubric(path.read_text(encoding="utf-8"), f"rubrics/{name}.yaml")
    p = Path(name).expanduser()
    if not p.is_file():
        raise ConfigError(f"--aspects {spec}: not a bundled rubric ({', '.join(BUNDLED_RUBRICS)}) and no such file")
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{p}: cannot read the rubric: {e}") from e
    return parse_rubric(text, str(p))


def parse_rubric(text: str, where: str) -> Rubric:
    """Parse and check a rubric; errors name the file, the line where YAML can tell, and the field."""
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as e:
        problem, line = yaml_problem(e)
        raise ConfigError(f"{where}{f':{line}' if line else ''}: not valid YAML ({problem})") from e
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: expected a mapping with 'rubric', 'title', 'target' and 'aspects'")
    try:
        return Rubric.model_validate(raw)
    except ValidationError as e:
        first = e.errors()[0]
        loc = _loc(first["loc"], raw)
        raise ConfigError(f"{where}: field '{loc}': {first['msg']}") from e


def _loc(loc: tuple[int | str, ...], raw: dict[str, object]) -> str:
    """'aspects[fluency].scale.2.value' rather than 'aspects.2.scale.2.value' where the aspect has a key."""
    parts = [str(x) for x in loc]
    aspects = raw.get("aspects")
    if len(loc) > 1 and loc[0] == "aspects" and isinstance(loc[1], int) and isinstance(aspects, list):
        i = loc[1]
        key = aspects[i].get("key") if i < len(aspects) and isinstance(aspects[i], dict) else None
        if key:
            return ".".join([f"aspects[{key}]", *parts[2:]])
    return ".".join(parts)
