"""The paper's analyses, on any model's runs: each module reads run directories (or leaderboards) and returns
an `AnalysisRecord` (docs/ANALYSES.md) and a matplotlib figure.

cot, length, robustness, nota, instruction, compare (and ranks), validity, toxicity; `pipeline` runs them
all for one model; shared statistics are in `stats`, paired differences in `paired`.
"""
