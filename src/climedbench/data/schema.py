"""Typed records for items and for the problems found while reading them."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Split = Literal["test", "dev"]


class Item(BaseModel):
    """One benchmark item, parsed and checked: everything the prompt builder and scorer need.

    `answer` holds the gold in the scenario's shape: one letter (single, FIT), sorted letters (multi),
    an order string (order); None for keywords (see `keywords`) and free text (see `reference`).
    """

    model_config = ConfigDict(frozen=True)

    id: str
    scenario: str
    split: Split = "test"
    input: str
    options: dict[str, str] = Field(default_factory=dict)
    answer: str | None = None
    reference: str
    keywords: list[str] | None = None
    misleading_answer: str | None = None
    prompt: str | None = None
    rationale: str | None = None
    specialty: str | None = None
    source: str | None = None
    synthetic: bool | None = None
    meta: dict[str, Any] = Field(default_factory=dict)
    file: str = ""
    line: int = 0

    @property
    def letters(self) -> str:
        """The option letters in order, e.g. 'ABCDE'."""
        return "".join(self.options)

    @property
    def uid(self) -> str:
        """Unique key across scenarios and splits."""
        return f"{self.scenario}/{self.split}/{self.id}"


class Problem(BaseModel):
    """An invalid record: where it is and what is wrong with it."""

    model_config = ConfigDict(frozen=True)

    file: str
    line: int | None
    field: str | None
    reason: str
    scenario: str | None = None
    id: str | None = None

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else self.file
        fld = f" field '{self.field}':" if self.field else ""
        return f"{where}:{fld} {self.reason}"
