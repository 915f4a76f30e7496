"""run.json's data_sha256 must not move when Item gains or moves a field: a run directory started on an earlier
version must stay resumable, and `score --data` must keep accepting its data.

The pinned values are what the code of commit a8f4394 (before FIT's shown answer moved from Item to `meta`) printed:
    git archive a8f4394 src | tar -x -C /tmp/old && PYTHONPATH=/tmp/old/src python -c "from climedbench.core.suite
    import load_suite; from climedbench.data.loaders import load_items, data_hash; s = load_suite('climedbench');
    print(data_hash(load_items(None, s, [t.code for t in s.tasks]).items))"
"""

from __future__ import annotations

import pytest

from climedbench.core.suite import load_suite
from climedbench.data.hashing import data_hash
from climedbench.data.loaders import load_items

PINNED = {"climedbench": "8ad0f33fd4096e7a", "clinicbench": "24e23aede445531e"}


@pytest.mark.parametrize("name", sorted(PINNED))
def test_the_bundled_demo_hashes_as_before(name):
    suite = load_suite(name)
    items = load_items(None, suite, [t.code for t in suite.tasks]).items
    assert data_hash(items) == PINNED[name]


def test_a_changed_item_changes_the_hash():
    suite = load_suite("climedbench")
    items = load_items(None, suite, [t.code for t in suite.tasks]).items
    fit = next(i for i in items if i.meta.get("misleading_answer"))
    changed = fit.model_copy(update={"meta": {**fit.meta, "misleading_answer": fit.meta["misleading_answer"] + "x"}})
    assert data_hash([changed if i is fit else i for i in items]) != data_hash(items)
