"""jieba's part-of-speech tagger (`jieba.posseg.cut`) with its HMM pass, the Viterbi search over the characters no
dictionary word covers, written as plain loops instead of a generator expression per state: the same words and tags
(tests/test_deid_speed.py compares both on every text there), in about half the Viterbi's time — it was about a
third of a Chinese note's time (docs/DEID.md, Speed).

jieba's own search, `jieba.posseg.viterbi.viterbi`, keeps for each character and each state the best
(probability, previous state) pair, ties going to the greater previous state (Python's `max` over tuples); so does
`viterbi` here, with the probabilities added in the same order, so every float is the same.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache, lru_cache
from typing import Any

MIN_FLOAT = -3.14e100  # jieba's log probability of a character a state never emits
MIN_INF = float("-inf")
# Runs of characters whose Viterbi route is remembered (most are one to three characters; a Chinese note has about 20).
ROUTES_CACHED = 1 << 16
# Runs of Chinese characters (between punctuation, digits or Latin letters) whose words are remembered.
BLOCKS_CACHED = 1 << 14


def viterbi(obs: str, states: dict[str, Any], start_p: dict[Any, float], trans_p: dict[Any, dict[Any, float]],
            emit_p: dict[Any, dict[str, float]]) -> tuple[float, list[Any]]:
    """jieba's `posseg.viterbi.viterbi` (the same arguments and result), without its per-state generators."""
    all_states = trans_p.keys()
    prev_v: dict[Any, float] = {}
    mem_path: list[dict[Any, Any]] = [{}]
    for y in states.get(obs[0], all_states):
        prev_v[y] = start_p[y] + emit_p[y].get(obs[0], MIN_FLOAT)
        mem_path[0][y] = ""
    for t in range(1, len(obs)):
        ch = obs[t]
        prev_states = [x for x in mem_path[t - 1] if trans_p[x]]
        expected: set[Any] = set()
        for x in prev_states:
            expected.update(trans_p[x])
        obs_states = set(states.get(ch, all_states)) & expected
        if not obs_states:
            obs_states = expected if expected else set(all_states)
        if expected and MIN_INF not in prev_v.values():
            v, path = _step_forward(ch, prev_states, obs_states, prev_v, trans_p, emit_p)
        else:
            v, path = _step(ch, prev_states, obs_states, prev_v, trans_p, emit_p)
        prev_v = v
        mem_path.append(path)
    prob, state = max((prev_v[y], y) for y in mem_path[-1])
    route: list[Any] = [None] * len(obs)
    for i in range(len(obs) - 1, -1, -1):
        route[i] = state
        state = mem_path[i][state]
    return prob, route


def _step(ch: str, prev_states: list[Any], obs_states: set[Any], prev_v: dict[Any, float],
          trans_p: dict[Any, dict[Any, float]], emit_p: dict[Any, dict[str, float]]) -> tuple[dict[Any, float],
                                                                                              dict[Any, Any]]:
    """One character of jieba's search: for each state, the best previous state (every pair tried)."""
    v: dict[Any, float] = {}
    path: dict[Any, Any] = {}
    for y in obs_states:
        emit = emit_p[y].get(ch, MIN_FLOAT)
        best, best_state = MIN_INF, None
        for y0 in prev_states:
            p = prev_v[y0] + trans_p[y0].get(y, MIN_INF) + emit
            if best_state is None or p > best or (p == best and y0 > best_state):
                best, best_state = p, y0
        v[y] = best
        path[y] = best_state
    return v, path


def _step_forward(ch: str, prev_states: list[Any], obs_states: set[Any], prev_v: dict[Any, float],
                  trans_p: dict[Any, dict[Any, float]], emit_p: dict[Any, dict[str, float]]
                  ) -> tuple[dict[Any, float], dict[Any, Any]]:
    """`_step` trying only the pairs jieba's transition table holds (about a tenth): a pair it lacks scores -inf, and
    when every previous score is finite and each state is reachable (`obs_states` within the reachable states: the
    caller's condition) some held pair beats it, so the best state, its score and the ties (to the greater previous
    state) are the same."""
    emit = {y: emit_p[y].get(ch, MIN_FLOAT) for y in obs_states}
    v: dict[Any, float] = {}
    path: dict[Any, Any] = {}
    for y0 in prev_states:
        base = prev_v[y0]
        for y, tp in trans_p[y0].items():
            e = emit.get(y)
            if e is None:
                continue
            p = base + tp + e
            best = v.get(y)
            if best is None or p > best or (p == best and y0 > path[y]):
                v[y] = p
                path[y] = y0
    return v, path


@cache
def _tokenizer() -> Any:
    import jieba.posseg as pseg
    from jieba.posseg import char_state_tab_P, emit_P, pair, start_P, trans_P

    class Tokenizer(pseg.POSTokenizer):
        # jieba's POSTokenizer.__cut (name-mangled), calling the `viterbi` above instead of its own.
        def _POSTokenizer__cut(self, sentence: str) -> Iterator[Any]:
            pos_list = _route(sentence)
            begin, nexti = 0, 0
            for i, char in enumerate(sentence):
                pos = pos_list[i][0]
                if pos == "B":
                    begin = i
                elif pos == "E":
                    yield pair(sentence[begin:i + 1], pos_list[i][1])
                    nexti = i + 1
                elif pos == "S":
                    yield pair(char, pos_list[i][1])
                    nexti = i + 1
            if nexti < len(sentence):
                yield pair(sentence[nexti:], pos_list[nexti][1])

        # jieba's POSTokenizer.__cut_DAG: the words of a run of Chinese characters, remembered per run (a heading,
        # a phrase, a label met again is cut once); the dictionary does not change once loaded.
        def _POSTokenizer__cut_DAG(self, sentence: str) -> Iterator[Any]:
            return iter(_block(sentence))

    @lru_cache(maxsize=BLOCKS_CACHED)
    def _block(sentence: str) -> tuple[Any, ...]:
        return tuple(pseg.POSTokenizer._POSTokenizer__cut_DAG(tok, sentence))

    @lru_cache(maxsize=ROUTES_CACHED)
    def _route(sentence: str) -> tuple[Any, ...]:
        """The Viterbi route of a run of characters: the same run (a word jieba's dictionary lacks, met again in
        this note or another) is searched once; the tables are jieba's, fixed."""
        return tuple(viterbi(sentence, char_state_tab_P, start_P, trans_P, emit_P)[1])

    tok = Tokenizer.__new__(Tokenizer)
    tok.__dict__ = pseg.dt.__dict__  # jieba's default tagger's state (its dictionary, tag table and user words), shared
    return tok


def cut(text: str) -> Iterator[Any]:
    """`jieba.posseg.cut(text)`: (word, flag) pairs."""
    return _tokenizer().cut(text)


def lcut(text: str) -> list[Any]:
    """`jieba.posseg.lcut(text)`."""
    return list(_tokenizer().cut(text))
