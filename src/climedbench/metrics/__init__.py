"""Metrics: item-level scores (`item`), their aggregations (`aggregations`) and the pure functions they use.

The pure functions are re-exported here: `from climedbench import metrics; metrics.rouge1_f(...)`.
"""

from climedbench.metrics.functions import (
    Tokenizer,
    accuracy,
    cosine_similarities,
    kendall_tau,
    keywords_rouge1,
    rouge1_f,
    tokenize,
)

__all__ = ["Tokenizer", "accuracy", "cosine_similarities", "kendall_tau", "keywords_rouge1", "rouge1_f", "tokenize"]
