"""A benchmark as data: its tasks, how they group, how each is loaded, prompted, read and scored.

A suite is a YAML file. Bundled suites live in `climedbench/suites/<name>/suite.yaml` next to their
demo data and published results; a user's own benchmark is a YAML file anywhere (see docs/SUITES.md).

- `levels` name the grouping levels, outermost first (CliMedBench: dimension; ClinicBench: scenario, task).
- `groups` are the groups at those levels; each task lists the groups it belongs to.
- A group's score is the plain mean of its tasks' scores; `overall` is the plain mean of every task
  score (`mean_of_tasks`, CliMedBench's convention) or of the group scores of one level
  (`mean_of_groups`).
- Each task names its loader, extractor, metric and aggregation (registered by name), its answer shape
  and its prompts (Jinja templates).
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from climedbench.errors import ConfigError

AnswerKind = Literal["single", "multi", "order", "keywords", "text", "label", "labels", "entities"]
# The extractor each answer kind uses unless the task names another.
DEFAULT_EXTRACTOR: dict[str, str] = {
    "single": "choice", "multi": "choices", "order": "order", "keywords": "keywords", "text": "text",
    "label": "label", "labels": "labels", "entities": "entities",
}
LETTER_KINDS = frozenset({"single", "multi", "order"})
CHOICE_KINDS = frozenset({"single", "multi"})
BUNDLED = ("climedbench", "clinicbench")


class Names(BaseModel):
    """A name in Chinese and/or English."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    zh: str | None = None
    en: str | None = None

    @model_validator(mode="after")
    def _one(self) -> Names:
        if not (self.zh or self.en):
            raise ValueError("give a name in 'zh' and/or 'en'")
        return self

    def text(self, lang: str = "en") -> str:
        """The name in `lang`, else the other language."""
        first, second = (self.zh, self.en) if lang == "zh" else (self.en, self.zh)
        return first or second or ""


class Level(BaseModel):
    """A grouping level (e.g. dimension, scenario, task)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    key: str
    zh: str | None = None
    en: str | None = None


class Group(BaseModel):
    """A group of tasks at one level."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    level: str
    zh: str | None = None
    en: str | None = None
    parent: str | None = None

    @property
    def names(self) -> Names:
        return Names(zh=self.zh, en=self.en)


class PromptSpec(BaseModel):
    """How a task is asked: Jinja templates over the item (see docs/SUITES.md for the variables).

    `template` is the user turn; it usually includes `{{ instruction }}`, the item and `{{ answer_format }}`.
    `cot` replaces `answer_format` for --cot; `logprob` for --mc-mode logprob. `demonstration` is the
    assistant turn of a few-shot example. `shots: inline` puts the examples into the user turn (joined by
    `shot_separator`) instead of separate user/assistant turns.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    system: str | None = None
    instruction: str = ""
    # The options are listed unless the input already holds them (CliMedBench's items do): same text as before then.
    template: str = ("{{ instruction }}\n{{ input }}\n{% if options and not options_shown %}{{ options }}\n{% endif %}"
                     "\n{{ answer_format }}")
    answer_format: str = ""
    cot: str | None = None
    logprob: str | None = None
    demonstration: str = "{{ answer }}"
    shots: Literal["turns", "inline"] = "turns"
    shot_template: str | None = None
    shot_separator: str = "\n\n"
    # How `--shot-source test` draws a task's examples: None = at random; 'normal_abnormal' = half from the test
    # items whose input mentions 'normal', the rest from those mentioning 'abnormal' (the ClinicBench authors'
    # radiology draw, 3_shot_inference.py).
    shot_balance: Literal["normal_abnormal"] | None = None
    # A regular expression (searched line by line) that a response written in the requested answer format
    # matches; counted per task as 'follows_format' (instruction following). None: not checked.
    format: str | None = None
    note: str | None = None


class MetricRef(BaseModel):
    """A further metric reported beside a task's main one (e.g. BLEU-4 beside ROUGE-L)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    metric: str
    aggregation: str = "mean"
    options: dict[str, Any] = Field(default_factory=dict)


class Task(BaseModel):
    """One scored unit: a CliMedBench scenario, a ClinicBench dataset, a hospital's question set."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    code: str
    name: Names
    groups: tuple[str, ...] = ()
    who: tuple[str, ...] = ()
    # Names (folder or file stems) that identify this task's data files; the code always counts.
    files: tuple[str, ...] = ()
    # Which file stems hold which split (default: test ← test; dev ← dev, validation, valid, train).
    splits: dict[str, tuple[str, ...]] | None = None
    loader: str | None = None
    loader_options: dict[str, Any] = Field(default_factory=dict)
    answer: AnswerKind
    letters: str | None = None
    labels: tuple[str, ...] | None = None
    extractor: str | None = None
    metric: str
    metric_options: dict[str, Any] = Field(default_factory=dict)
    aggregation: str = "mean"
    # Further metrics reported beside the main one (not used for groups and overall).
    also: tuple[MetricRef, ...] = ()
    # Other spellings of labels that an answer may use (abbreviations, numbers): label → aliases.
    label_aliases: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    official_size: int | None = None
    resource: str | None = None
    max_tokens: int | None = None
    prompt: PromptSpec = Field(default_factory=PromptSpec)
    citation: str | None = None
    licence: str | None = None
    source: str | None = None

    @model_validator(mode="after")
    def _check(self) -> Task:
        if self.answer in CHOICE_KINDS and not self.letters:
            raise ValueError("choice tasks need 'letters' (for example ABCD)")
        if self.answer in ("label", "labels") and not self.labels:
            raise ValueError(f"answer kind {self.answer!r} needs 'labels'")
        return self

    def secondary(self, ref: MetricRef) -> Task:
        """This task as scored by a further metric (for its figure)."""
        return self.model_copy(update={"metric": ref.metric, "aggregation": ref.aggregation,
                                       "metric_options": ref.options, "also": ()})

    @property
    def shown_answer(self) -> tuple[str, str] | None:
        """(item field, flag) when the prompt shows the model an answer (`metric_options: {shown_answer: {field:
        F, flag: G}}`): the item's meta field F holds that answer's letter, each sample logs it under F, and the
        accuracy metric sets flag G when the model's answer repeats it. None for other tasks."""
        spec = self.metric_options.get("shown_answer")
        if not isinstance(spec, dict):
            return None
        return str(spec["field"]), str(spec.get("flag") or f"repeated_{spec['field']}")

    @property
    def extractor_name(self) -> str:
        return self.extractor or DEFAULT_EXTRACTOR[self.answer]

    @property
    def is_choice(self) -> bool:
        return self.answer in CHOICE_KINDS

    # Back-compatible names used across the CliMedBench code (a scenario is a task).
    @property
    def shape(self) -> str:
        return self.answer

    @property
    def name_zh(self) -> str:
        return self.name.text("zh")

    @property
    def name_en(self) -> str:
        return self.name.text("en")

    def split_of(self, stem: str) -> str | None:
        """The split a file stem names ('test', 'dev', 'train'), or None."""
        table = self.splits or {"test": ("test",), "dev": ("dev", "devel", "validation", "valid", "val"),
                                "train": ("train",)}
        key = _norm(stem)
        for split, names in table.items():
            if key in {_norm(n) for n in names}:
                return split
        return None


class SectionNames(BaseModel):
    """What the '## 标题:' sections of a suite's inputs mean (climedbench.data.sections): `options` — where lettered
    options are written inside the input (the none-of-the-above copy replaces the key's text there); `keep` —
    sections whose body the perturbations never change (a reference answer the item shows)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    options: tuple[str, ...] = ()
    keep: tuple[str, ...] = ()


class AnalysesSpec(BaseModel):
    """Suite data for `climedbench analyze`: `cot_tasks` — the tasks of the CoT comparison (default: every
    selected task with a CoT prompt)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    cot_tasks: tuple[str, ...] | None = None


def _norm(name: str) -> str:
    """A name compared loosely: case, '#', '-', '_', '.' and spaces ignored."""
    return re.sub(r"[\s#_\-.]+", "", name).lower()


class Suite(BaseModel):
    """A benchmark: its levels, groups, roles and tasks in report order."""

    model_config = ConfigDict(extra="forbid")
    suite: str
    version: str
    title: str
    # The language of the items ('zh', 'en', …): the report's first language, the similarity baseline's, the
    # none-of-the-above text's. Declared by every suite; the code assumes none.
    language: str
    description: str | None = None
    citation: str | None = None
    url: str | None = None
    levels: list[Level] = Field(default_factory=list)
    groups: dict[str, Group] = Field(default_factory=dict)
    overall: Literal["mean_of_tasks", "mean_of_groups"] = "mean_of_tasks"
    overall_level: str | None = None
    roles: dict[str, Names] = Field(default_factory=dict)
    loader: str = "records"
    defaults: dict[str, Any] = Field(default_factory=dict)
    formats: dict[str, str] = Field(default_factory=dict)
    # Published results bundled with the suite: setting name → CSV path relative to the suite's folder.
    published: dict[str, str] = Field(default_factory=dict)
    # Published overall scores by model (e.g. a paper's headline figures): `cat simulate` ranks a panel of simulees
    # placed at these scores (p_exact_order); without them it reports no ranking.
    published_overall: dict[str, float] = Field(default_factory=dict)
    sections: SectionNames = Field(default_factory=SectionNames)
    analyses: AnalysesSpec = Field(default_factory=AnalysesSpec)
    tasks: list[Task]
    # Plug-ins imported when the suite loads: module names, or .py files relative to the suite's file (docs/SUITES.md).
    plugins: list[str] = Field(default_factory=list)
    # Where the suite was loaded from ('bundled:NAME' or a path) and its folder (demo data, published results).
    source: str = ""
    root: str | None = None

    @model_validator(mode="after")
    def _check(self) -> Suite:
        codes = [t.code for t in self.tasks]
        dup = {c for c in codes if codes.count(c) > 1}
        if dup:
            raise ValueError(f"duplicate task codes: {sorted(dup)}")
        levels = {lv.key for lv in self.levels}
        for key, g in self.groups.items():
            if g.level not in levels:
                raise ValueError(f"group {key}: unknown level {g.level!r}")
            if g.parent is not None and g.parent not in self.groups:
                raise ValueError(f"group {key}: unknown parent {g.parent!r}")
        for t in self.tasks:
            unknown = [g for g in t.groups if g not in self.groups]
            if unknown:
                raise ValueError(f"task {t.code}: unknown groups {unknown}")
            roles = [r for r in t.who if r not in self.roles]
            if roles:
                raise ValueError(f"task {t.code}: unknown roles {roles}")
        unknown_cot = [c for c in self.analyses.cot_tasks or () if c not in codes]
        if unknown_cot:
            raise ValueError(f"analyses.cot_tasks: unknown tasks {unknown_cot}")
        if self.overall == "mean_of_groups" and self.overall_level not in levels:
            raise ValueError("overall: mean_of_groups needs 'overall_level', one of the levels")
        return self

    def __setstate__(self, state: dict[Any, Any]) -> None:
        """An unpickled copy (a Ray worker's) imports the suite's plug-ins too, as loading the file does."""
        super().__setstate__(state)
        if self.plugins:
            from climedbench.core.plugins import load_suite_plugins

            load_suite_plugins(self.plugins, self.root, self.source or self.suite)

    # -- lookup -------------------------------------------------------------------------------

    def lookup(self, code: str) -> Task | None:
        """The task with this code or file name (loosely: case, '#', '-', '_' ignored), or None."""
        key = _norm(code)
        for t in self.tasks:
            if key == _norm(t.code) or key in {_norm(f) for f in t.files}:
                return t
        return None

    def task(self, code: str) -> Task:
        """The task with this code; a ConfigError naming the known codes otherwise."""
        found = self.lookup(code)
        if found is None:
            raise ConfigError(f"unknown task {code!r} in {self.title}; known: {', '.join(self.codes)}")
        return found

    scenario = task  # CliMedBench calls its tasks scenarios

    @property
    def codes(self) -> list[str]:
        return [t.code for t in self.tasks]

    def select(self, codes: list[str] | None) -> list[Task]:
        """The tasks named (all when None), in suite order; a group key selects its tasks."""
        if not codes:
            return list(self.tasks)
        wanted: set[str] = set()
        for c in codes:
            if c in self.groups:
                wanted.update(t.code for t in self.tasks if c in t.groups)
            else:
                wanted.add(self.task(c).code)
        return [t for t in self.tasks if t.code in wanted]

    # -- grouping -----------------------------------------------------------------------------

    def groups_at(self, level: str) -> dict[str, list[Task]]:
        """Groups of one level with their tasks, in the suite's group order."""
        out: dict[str, list[Task]] = {k: [] for k, g in self.groups.items() if g.level == level}
        for t in self.tasks:
            for g in t.groups:
                if g in out:
                    out[g].append(t)
        return out

    def members(self, group: str) -> list[Task]:
        """The tasks of a group."""
        return [t for t in self.tasks if group in t.groups]

    @property
    def first_level(self) -> str | None:
        return self.levels[0].key if self.levels else None

    def by_dimension(self) -> dict[str, list[Task]]:
        """Groups of the first level with their tasks (CliMedBench's dimensions)."""
        return self.groups_at(self.first_level) if self.first_level else {}

    @property
    def dimensions(self) -> dict[str, Names]:
        """Names of the first level's groups."""
        first = self.first_level
        return {k: g.names for k, g in self.groups.items() if g.level == first}

    def name(self, key: str, lang: str | None = None) -> str:
        """The display name of a task or group."""
        lang = lang or self.language
        if key in self.groups:
            return self.groups[key].names.text(lang)
        found = self.lookup(key)
        return found.name.text(lang) if found else key

    @property
    def folder(self) -> Path | None:
        return Path(self.root) if self.root else None

    @property
    def demo_dir(self) -> Path | None:
        """The bundled demo data of this suite, if it has one."""
        if self.folder and (self.folder / "demo").is_dir():
            return self.folder / "demo"
        return None

    def published_files(self) -> dict[str, Path]:
        """Published results bundled with this suite: setting → CSV file."""
        if not self.folder:
            return {}
        return {k: self.folder / v for k, v in self.published.items()}


def bundled_root(name: str) -> Path:
    """The folder of a bundled suite."""
    return Path(str(resources.files("climedbench.suites").joinpath(name)))


def load_suite(spec: str | Path | None = None) -> Suite:
    """A bundled suite by name ('climedbench', 'clinicbench'), a suite YAML path, or a folder holding
    suite.yaml; None is CliMedBench."""
    name = bundled_name(spec)
    if name is not None:
        return _bundled(name)
    p = Path(str(spec)).expanduser()
    if p.is_dir():
        p = p / "suite.yaml"
    if not p.exists():
        from climedbench.core.plugins import find_suite

        p = find_suite(str(spec)) or p  # a suite named after its file in an --include-path folder
    if not p.exists():
        raise ConfigError(f"--suite {spec}: not a bundled suite ({', '.join(BUNDLED)}) and no such file (nor "
                          f"{spec}.yaml in an --include-path folder)")
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"cannot read suite file {p}: {e.strerror}") from e
    suite = parse_suite(text, str(p), source=str(p.resolve()), root=str(p.resolve().parent))
    # Metrics against answer kinds (the bundled suites are checked by the tests, so `list` stays fast).
    from climedbench.core.fit import check_fit

    check_fit(suite, str(p))
    return suite


def bundled_name(spec: str | Path | None) -> str | None:
    """The bundled suite a spec names: None, 'NAME', 'bundled:NAME' (and run.json's older
    'bundled climedbench.yaml'); None when the spec is a path."""
    if spec is None:
        return "climedbench"
    s = str(spec)
    if s in BUNDLED:
        return s
    if s.startswith("bundled:") and s[8:] in BUNDLED:
        return s[8:]
    if s == "bundled climedbench.yaml":
        return "climedbench"
    return None


@cache
def _bundled(name: str) -> Suite:
    root = bundled_root(name)
    text = (root / "suite.yaml").read_text(encoding="utf-8")
    return parse_suite(text, f"{name}/suite.yaml", source=f"bundled:{name}", root=str(root))


def parse_suite(text: str, where: str, *, source: str = "", root: str | None = None) -> Suite:
    """Parse and check a suite YAML; errors name the file and the field."""
    try:
        # libyaml's loader when PyYAML has it: 0.17 s → 0.02 s for the two bundled suites (`climedbench list`).
        raw = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as e:
        raise ConfigError(f"{where}: not valid YAML: {e}") from e
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: expected a mapping with 'suite', 'version', 'title' and 'tasks'")
    defaults = raw.get("defaults") or {}
    if defaults and isinstance(raw.get("tasks"), list):
        raw["tasks"] = [_with_defaults(t, defaults) if isinstance(t, dict) else t for t in raw["tasks"]]
    raw.update(source=source, root=root)
    try:
        suite = Suite.model_validate(raw)
    except ValidationError as e:
        first = e.errors()[0]
        loc = ".".join(str(x) for x in first["loc"])
        if first["loc"][:1] == ("tasks",) and len(first["loc"]) > 1 and isinstance(first["loc"][1], int):
            tasks = raw.get("tasks") or []
            i = first["loc"][1]
            code = tasks[i].get("code") if i < len(tasks) and isinstance(tasks[i], dict) else None
            if code:
                loc = f"tasks[{code}]." + ".".join(str(x) for x in first["loc"][2:])
        raise ConfigError(f"{where}: {loc}: {first['msg']}") from e
    if suite.plugins:
        from climedbench.core.plugins import load_suite_plugins

        load_suite_plugins(suite.plugins, root, where)
    return suite


def _with_defaults(task: dict[str, Any], defaults: dict[str, Any]) -> dict[str, Any]:
    """Task fields over suite defaults; the nested 'prompt' mapping is merged key by key."""
    out = {**defaults, **task}
    if isinstance(defaults.get("prompt"), dict) and isinstance(task.get("prompt"), dict):
        out["prompt"] = {**defaults["prompt"], **task["prompt"]}
    return out
