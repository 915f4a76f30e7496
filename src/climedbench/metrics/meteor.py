"""METEOR (nltk's implementation) with a WordNet found on this machine; nothing is downloaded.

ClinicBench's scoring script (pycocoevalcap) reports METEOR beside ROUGE-L and BLEU for radiology summaries. nltk's
METEOR needs WordNet 3.0 for its synonym stage, looked for in this order:

1. `CLIMEDBENCH_WORDNET`: a WordNet 3.0 `dict` folder (data.noun, index.noun, … as Princeton ships them);
2. nltk's own data (`corpora/wordnet`, after a one-off `python -m nltk.downloader wordnet`);
3. `/usr/share/wordnet`, Debian's and Ubuntu's `wordnet-base` package (`apt-get install wordnet-base`).

Princeton's dict folder (and Debian's package) has no `lexnames` file, which nltk's reader opens but METEOR never
uses: the 45 lexicographer file names of WordNet 3.0 (lexnames(5WN)) stand in for it.
"""

from __future__ import annotations

import io
import os
from functools import cache
from pathlib import Path
from typing import Any

DEBIAN_WORDNET = Path("/usr/share/wordnet")
HOW = ("install WordNet 3.0 once: `apt-get install wordnet-base` (Debian/Ubuntu), or `python -m nltk.downloader "
       "wordnet`, or set CLIMEDBENCH_WORDNET to a WordNet 3.0 dict folder")
_LEXNAMES = ("adj.all", "adj.pert", "adv.all", "noun.Tops", "noun.act", "noun.animal", "noun.artifact",
    "noun.attribute", "noun.body", "noun.cognition", "noun.communication", "noun.event", "noun.feeling", "noun.food",
    "noun.group", "noun.location", "noun.motive", "noun.object", "noun.person", "noun.phenomenon", "noun.plant",
    "noun.possession", "noun.process", "noun.quantity", "noun.relation", "noun.shape", "noun.state",
    "noun.substance", "noun.time", "verb.body", "verb.change", "verb.cognition", "verb.communication",
    "verb.competition", "verb.consumption", "verb.contact", "verb.creation", "verb.emotion", "verb.motion",
    "verb.perception", "verb.possession", "verb.social", "verb.stative", "verb.weather", "adj.ppl")
_CATEGORY = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}


class WordNetMissing(RuntimeError):
    """No WordNet on this machine: METEOR cannot be computed."""


def _dict_reader(folder: Path) -> Any:
    import warnings

    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    class DictFolderReader(WordNetCorpusReader):
        """nltk's reader over a plain WordNet 3.0 dict folder."""

        def open(self, fileid: str) -> Any:
            if fileid == "lexnames" and not (folder / "lexnames").exists():
                return io.StringIO("".join(f"{i:02d}\t{n}\t{_CATEGORY[n.split('.')[0]]}\n"
                                           for i, n in enumerate(_LEXNAMES)))
            return super().open(fileid)

        def map_wn(self, version: str = "wordnet") -> None:  # no multilingual mapping is needed
            return None

    if str(folder) not in nltk.data.path:
        nltk.data.path.append(str(folder))  # nltk reads only folders on its data path
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "multilingual functions are not available": not used
        return DictFolderReader(str(folder), None)


@cache
def wordnet() -> Any:
    """A WordNet reader for nltk's METEOR, or WordNetMissing saying how to install one."""
    env = os.environ.get("CLIMEDBENCH_WORDNET")
    if env:
        folder = Path(env).expanduser()
        if not (folder / "data.noun").is_file():
            raise WordNetMissing(f"CLIMEDBENCH_WORDNET={env}: no WordNet dict folder there (no data.noun)")
        return _dict_reader(folder.resolve())
    import nltk

    try:
        nltk.data.find("corpora/wordnet")
    except LookupError:
        try:
            nltk.data.find("corpora/wordnet.zip")
        except LookupError:
            if (DEBIAN_WORDNET / "data.noun").is_file():
                return _dict_reader(DEBIAN_WORDNET)
            raise WordNetMissing(f"METEOR needs WordNet and nothing is downloaded at run time: {HOW}") from None
    from nltk.corpus import wordnet as nltk_wordnet

    return nltk_wordnet


def meteor(hypothesis: str, references: list[str]) -> float:
    """nltk's METEOR (α = 0.9, β = 3, γ = 0.5; lower-cased, Porter stems, WordNet synonyms) on whitespace tokens."""
    from nltk.translate.meteor_score import meteor_score

    hyp = hypothesis.split()
    refs = [r.split() for r in references if r.split()]
    if not hyp or not refs:
        return 0.0
    return float(meteor_score(refs, hyp, wordnet=wordnet()))
