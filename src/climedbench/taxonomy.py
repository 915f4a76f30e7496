"""The suite: scenarios, dimensions and roles of a benchmark, loaded from a YAML file."""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from climedbench.errors import ConfigError

Shape = Literal["single", "multi", "order", "keywords", "text"]
Metric = Literal["accuracy", "kendall_tau", "rouge1", "similarity"]

# Which metric each answer shape may use: a suite that pairs them otherwise is refused at load time.
SHAPE_METRICS: dict[str, set[str]] = {
    "single": {"accuracy"},
    "multi": {"accuracy"},
    "order": {"kendall_tau"},
    "keywords": {"rouge1"},
    "text": {"similarity", "rouge1"},
}
CHOICE_SHAPES = frozenset({"single", "multi"})
LETTER_SHAPES = frozenset({"single", "multi", "order"})


class Names(BaseModel):
    """A Chinese and an English name."""

    model_config = ConfigDict(extra="forbid")
    zh: str
    en: str


class Scenario(BaseModel):
    """One scenario: what is asked, of whom, how it is answered and scored."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    code: str
    file: str
    name_zh: str
    name_en: str
    who: tuple[str, ...]
    dimension: str
    shape: Shape
    letters: str | None = None
    metric: Metric
    official_size: int | None = None
    resource: str | None = None
    prompt: str
    prompt_note: str | None = None
    answer_format: str
    cot: str
    # The input shows a deliberately wrong '## 参考答案' (FIT); items must carry the true one too.
    misleading_reference: bool = False

    @model_validator(mode="after")
    def _check(self) -> Scenario:
        if self.metric not in SHAPE_METRICS[self.shape]:
            raise ValueError(f"metric {self.metric!r} cannot score answer shape {self.shape!r}")
        if self.shape in CHOICE_SHAPES and not self.letters:
            raise ValueError("choice scenarios need 'letters' (for example ABCD)")
        return self

    @property
    def is_choice(self) -> bool:
        return self.shape in CHOICE_SHAPES


class Suite(BaseModel):
    """A benchmark: its dimensions, roles and scenarios in report order."""

    model_config = ConfigDict(extra="forbid")
    suite: str
    version: str
    title: str
    language: str = "zh"
    dimensions: dict[str, Names]
    roles: dict[str, Names]
    formats: dict[str, str] = Field(default_factory=dict)
    scenarios: list[Scenario]

    @model_validator(mode="after")
    def _check(self) -> Suite:
        codes = [s.code for s in self.scenarios]
        dup = {c for c in codes if codes.count(c) > 1}
        if dup:
            raise ValueError(f"duplicate scenario codes: {sorted(dup)}")
        for s in self.scenarios:
            if s.dimension not in self.dimensions:
                raise ValueError(f"scenario {s.code}: unknown dimension {s.dimension!r}")
            unknown = [r for r in s.who if r not in self.roles]
            if unknown:
                raise ValueError(f"scenario {s.code}: unknown roles {unknown}")
        return self

    def scenario(self, code: str) -> Scenario:
        """The scenario with this code (case-insensitive; 'ID1' is accepted for 'ID#1')."""
        found = self.lookup(code)
        if found is None:
            raise ConfigError(f"unknown scenario code {code!r}; known: {', '.join(self.codes)}")
        return found

    def lookup(self, code: str) -> Scenario | None:
        """The scenario with this code or file stem, or None."""
        key = code.strip().upper()
        for s in self.scenarios:
            if key in (s.code.upper(), s.file.upper()):
                return s
        return None

    @property
    def codes(self) -> list[str]:
        return [s.code for s in self.scenarios]

    def by_dimension(self) -> dict[str, list[Scenario]]:
        """Scenarios grouped by dimension, in the suite's dimension order."""
        out: dict[str, list[Scenario]] = {d: [] for d in self.dimensions}
        for s in self.scenarios:
            out[s.dimension].append(s)
        return out

    def select(self, codes: list[str] | None) -> list[Scenario]:
        """The scenarios named (all when None), in suite order."""
        if not codes:
            return list(self.scenarios)
        wanted = {self.scenario(c).code for c in codes}
        return [s for s in self.scenarios if s.code in wanted]


def load_suite(path: str | Path | None = None) -> Suite:
    """Load a suite YAML; None loads the bundled CliMedBench suite."""
    if path is None:
        return _bundled_suite()
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"cannot read suite file {p}: {e.strerror}") from e
    return _parse_suite(text, str(p))


@cache
def _bundled_suite() -> Suite:
    text = resources.files("climedbench.suites").joinpath("climedbench.yaml").read_text(encoding="utf-8")
    return _parse_suite(text, "climedbench.yaml")


def _parse_suite(text: str, where: str) -> Suite:
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise ConfigError(f"{where}: not valid YAML: {e}") from e
    try:
        return Suite.model_validate(raw)
    except ValidationError as e:
        first = e.errors()[0]
        loc = ".".join(str(x) for x in first["loc"])
        raise ConfigError(f"{where}: {loc}: {first['msg']}") from e
