"""Every span `climedbench deid` replaces in a JSONL file of notes, one line each: record, type, detector, the
original text (with a little context) and its surrogate — for reading the false positives of a development set by
hand. The notes' PHI is printed: run it only on development material with planted fake PHI.

    python bench/deid_spans.py NOTES.jsonl --salt-file SALT [--text-column text] [--id-column record_id]
        [--patient-column patient_id] [--lang-column lang] [--only-lang en]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("notes", type=Path)
    ap.add_argument("--salt-file", type=Path, required=True)
    ap.add_argument("--text-column", default="text")
    ap.add_argument("--id-column", default="record_id")
    ap.add_argument("--patient-column", default="patient_id")
    ap.add_argument("--only-lang", default=None)
    args = ap.parse_args()

    from climedbench.deid.engine import Analyzer, detect_language
    from climedbench.deid.pipeline import deidentify_text
    from climedbench.deid.surrogates import Replacer, load_or_create_salt

    analyzer = Analyzer()
    replacer = Replacer(load_or_create_salt(args.salt_file)[0])
    for line in args.notes.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        text = str(rec[args.text_column])
        lang = detect_language(text)  # as `climedbench deid --lang auto`
        if args.only_lang and lang != args.only_lang:
            continue
        patient = str(rec.get(args.patient_column, rec[args.id_column]))
        _, _, spans, _ = deidentify_text(text, patient, analyzer, replacer, lang)
        for s in spans:
            value = text[s.start:s.end]
            left = text[max(0, s.start - 12):s.start].replace("\n", "⏎")
            right = text[s.end:s.end + 12].replace("\n", "⏎")
            new = replacer.replace(s.entity, value, patient, lang)
            row = f"{rec[args.id_column]}\t{s.entity}\t{s.detector}\t{left}[{value}]{right}\t→ {new}"
            print(row.replace("\n", "⏎"))


if __name__ == "__main__":
    main()
