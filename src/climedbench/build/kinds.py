"""Every answer type of scenario templates: `single` and `order` (generate.py) and the composed ones below, which
module makes their items and their pools of other patients' texts (`build_unit`, `pool_of`: what the pipeline
calls). No model in any of them.

- `summary` (summary.py): which summary is faithful; two facts of the note, each swapped for a similar other
  patient's in the distractors (the 2×2 of own and swapped facts).
- `steps` (steps.py): the operation note's steps, some hidden, lettered and shuffled; the key is their order.
- `keywords` (keywords.py): the note's diagnoses that its text names, as keywords.
- `critique` (critique.py): the note's treatment with one drug element replaced by a similar other patient's;
  the reference critique names the replaced element.
"""

from __future__ import annotations

from climedbench.build.candidates import Candidate
from climedbench.build.distractors import EmbeddingStore, PoolEntry
from climedbench.build.generate import Skip, build_pool, generate
from climedbench.build.preprocess import Kept
from climedbench.build.scenarios import Scenario
from climedbench.build.segments import Guideline

# Answer types whose items draw on other patients' texts (an embedding store and a pool are needed).
POOLED = frozenset({"single", "summary", "critique"})


def pool_of(sc: Scenario, notes: list[Kept], guidelines: dict[str, Guideline], lang: str) -> list[PoolEntry]:
    """Where a scenario's distractors or replacements come from (empty for the types that need none)."""
    if sc.answer == "single":
        return build_pool(sc, notes, guidelines, lang)
    if sc.answer == "summary":
        from climedbench.build.summary import fact_pool

        return fact_pool(sc, notes, guidelines, lang)
    if sc.answer == "critique":
        from climedbench.build.critique import element_pool

        return element_pool(sc, notes, guidelines, lang)
    return []


def build_unit(sc: Scenario, kept: Kept, g: Guideline, pool: list[PoolEntry], store: EmbeddingStore,
               position: int = 0) -> Candidate | Skip:
    """The candidate of one note for one scenario, or why there is none (generate.generate's contract)."""
    spec = sc.languages.get(kept.note.lang)
    if sc.answer in ("single", "order") or spec is None:
        return generate(sc, kept, g, pool, store, position)
    if sc.answer == "summary":
        from climedbench.build.summary import summary_item

        return summary_item(sc, spec, kept, g, pool, store, position)
    if sc.answer == "steps":
        from climedbench.build.steps import steps_item

        return steps_item(sc, spec, kept, g)
    if sc.answer == "keywords":
        from climedbench.build.keywords import keywords_item

        return keywords_item(sc, spec, kept, g)
    from climedbench.build.critique import critique_item

    return critique_item(sc, spec, kept, g, pool, store)
