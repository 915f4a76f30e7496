"""Scenario templates: data (YAML under suites/climedbench/build_scenarios/, or a hospital's own folder) that
say, per scenario and language, which sections make the stem, where the key comes from, how distractors are
drawn and which task of the exported suite the items belong to. A hospital adds a scenario by adding a file; no code."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from climedbench.build.keys import EXTRACTORS
from climedbench.errors import ConfigError


class StemPart(BaseModel):
    model_config = ConfigDict(extra="forbid")
    header: str
    from_: list[str] = Field(alias="from")


class LangSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    task: str
    file: str
    stem: list[StemPart] = Field(default_factory=list)
    options_header: str = "选项"
    events_header: str | None = None
    task_def: Literal["bundled"] | dict[str, Any] = "bundled"
    # Wording of the composed scenarios (summary format, item headers, a critique's reference): templates.py's
    # placeholders ({0}, {1}, {name}, ...) per answer type, docs/BUILD.md.
    phrases: dict[str, str] = Field(default_factory=dict)


class KeySpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    from_: str = Field(alias="from")
    extract: str


class BandSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    lo: float = 0.82
    hi: float = 0.95
    floor: float = 0.70
    step: float = 0.02
    max_overlap: float = 0.6
    n: int = 3


class EventsSpec(BaseModel):
    """Events of a stay, in the note's order: sentences of the `from` sections (`first_only`: their first sentence
    only, e.g. the chief complaint and the condition at discharge), at most `max` (the ends are kept). `timed`:
    sections whose sentences are events only when the note fixes their day (timeline.py): one event per day, the
    day's sentences merged, in the order of the days; sentences with no day are left out."""

    model_config = ConfigDict(extra="forbid")
    from_: list[str] = Field(alias="from")
    first_only: list[str] = Field(default_factory=list)
    timed: list[str] = Field(default_factory=list)
    min: int = 4
    max: int = 5
    max_chars: int = 80


class FactSpec(BaseModel):
    """One fact of a composed summary: a key extractor (keys.py) over one content type."""

    model_config = ConfigDict(extra="forbid")
    from_: str = Field(alias="from")
    extract: str
    max_chars: int | None = None  # the extractor's length limit (its default when not given)


class StepsSpec(BaseModel):
    """Operation steps (surgical steps organization): clauses of the `from` section that name an action of the
    language's list and none of its `not_steps` markers (findings, bleeding, pathology, the surgeon), `min` to `max`
    of them; up to `mask` of the middle ones are hidden and lettered."""

    model_config = ConfigDict(extra="forbid")
    from_: str = Field(alias="from")
    actions: dict[str, list[str]]
    not_steps: dict[str, list[str]] = Field(default_factory=dict)
    min: int = 5
    max: int = 10
    mask: int = 4
    max_chars: int = 60


class CritiqueSpec(BaseModel):
    """A treatment with one drug element replaced by a similar other patient's (wrong treatment detection): the
    elements are the `from` section's clauses naming a drug with a dose; `forms` are dosage-form words cut off a
    drug's name."""

    model_config = ConfigDict(extra="forbid")
    from_: str = Field(alias="from")
    cues: dict[str, list[str]] = Field(default_factory=dict)
    forms: dict[str, list[str]] = Field(default_factory=dict)
    max_chars: int = 160


class Scenario(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    scenario: str
    answer: Literal["single", "order", "summary", "steps", "keywords", "critique"]
    key: KeySpec | None = None
    leak: Literal["remove_key_sentences"] | None = None
    distractors: BandSpec = Field(default_factory=BandSpec)
    events: EventsSpec | None = None
    facts: list[FactSpec] = Field(default_factory=list)  # summary: two facts, each swapped in the distractors
    steps: StepsSpec | None = None
    critique: CritiqueSpec | None = None
    languages: dict[str, LangSpec]
    digest: str = ""

    @property
    def template_id(self) -> str:
        return f"{self.id}@{self.digest}"


def _parse(text: str, where: str) -> Scenario:
    try:
        raw = yaml.safe_load(text)
        sc = Scenario.model_validate({**raw, "digest": hashlib.sha256(text.encode()).hexdigest()[:12]})
    except yaml.YAMLError as e:
        raise ConfigError(f"{where}: not valid YAML: {e}") from e
    except (ValidationError, TypeError) as e:
        first = e.errors()[0] if isinstance(e, ValidationError) else {"loc": (), "msg": str(e)}
        raise ConfigError(f"{where}: {'.'.join(str(x) for x in first['loc'])}: {first['msg']}") from e
    if sc.answer == "single" and (sc.key is None or sc.key.extract not in EXTRACTORS):
        raise ConfigError(f"{where}: key.extract: use one of {', '.join(EXTRACTORS)}")
    if sc.answer == "order" and sc.events is None:
        raise ConfigError(f"{where}: order scenarios need 'events'")
    needs = {"summary": "facts", "steps": "steps", "critique": "critique", "keywords": "key"}.get(sc.answer)
    if needs is not None and not getattr(sc, needs):
        raise ConfigError(f"{where}: {sc.answer} scenarios need '{needs}'")
    if sc.answer == "summary" and (len(sc.facts) != 2 or any(f.extract not in EXTRACTORS for f in sc.facts)):
        raise ConfigError(f"{where}: facts: give two, each with extract one of {', '.join(EXTRACTORS)}")
    return sc


# The bundled templates are CliMedBench's scenarios, so they are that suite's data (suites/climedbench/).
BUNDLED = "build_scenarios"


def load_scenarios(folder: str | Path | None = None) -> dict[str, Scenario]:
    """Scenario templates by scenario code, in the order of their file names: the bundled ones, or those of a
    folder of YAML files."""
    if folder is None:
        from climedbench.core.suite import bundled_root

        root = bundled_root("climedbench") / BUNDLED
        files = sorted((f.name, f.read_text(encoding="utf-8")) for f in root.glob("*.yaml"))
        where = f"bundled:climedbench/{BUNDLED}/"
    else:
        p = Path(folder).expanduser()
        if not p.is_dir():
            raise ConfigError(f"--templates {p}: not a folder of scenario YAML files")
        files = sorted((f.name, f.read_text(encoding="utf-8")) for f in p.glob("*.yaml"))
        where = f"{p}/"
    out: dict[str, Scenario] = {}
    for name, text in files:
        sc = _parse(text, where + name)
        if sc.scenario in out:
            raise ConfigError(f"{where}{name}: scenario {sc.scenario} is also defined by {out[sc.scenario].id}")
        out[sc.scenario] = sc
    return out


def select(all_: dict[str, Scenario], codes: list[str] | None) -> list[Scenario]:
    if not codes:
        return list(all_.values())
    norm = {c.replace("#", "").upper(): c for c in all_}
    chosen = []
    for code in codes:
        key = code.replace("#", "").upper()
        if key not in norm:
            raise ConfigError(f"--scenarios: no template for {code!r}; available: {', '.join(all_)}")
        chosen.append(all_[norm[key]])
    return chosen
