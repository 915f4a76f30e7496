"""Turn PhysioNet's de-identification gold standard into the corpus lines `bench/deid_blind.py` reads.

The release (Neamatullah et al. 2008, "Automated de-identification of free-text medical records"; distributed with
PhysioNet's `deid` 1.1 package) is 2,434 English ICU nursing notes of 163 patients whose PHI was replaced by
realistic surrogates and annotated: `id.text` holds the notes, `id-phi.phrase` one line per PHI span
(`patient note start end type text`, end exclusive). We do not ship it; point this script at your copy:

    python bench/physionet_corpus.py DIR --out /tmp/physionet.jsonl [--split dev|held|all]
    python bench/deid_blind.py /tmp/physionet.jsonl

`--split` divides by patient so that no patient's names are in both halves: `dev` is the odd patient numbers,
`held` the even ones. Types are mapped to ours; `DateYear` (a year alone) is not PHI under Safe Harbor and is left
out of the gold spans (a detector that removes a year loses only character precision for it). The corpus has no
annotated hard negatives, so its kept rate is empty.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

TYPES = {"HCPName": "NAME", "PTName": "NAME", "PTNameInitial": "NAME", "RelativeProxyName": "NAME",
         "Date": "DATE", "Location": "LOCATION", "Phone": "PHONE", "Age": "AGE_OVER_89", "Other": "OTHER"}
SKIPPED = {"DateYear"}
RECORD = re.compile(r"START_OF_RECORD=(\d+)\|\|\|\|(\d+)\|\|\|\|\n(.*?)\|\|\|\|END_OF_RECORD", re.S)


def read_release(folder: Path) -> list[dict[str, object]]:
    text_file, phrase_file = folder / "id.text", folder / "id-phi.phrase"
    notes = {(p, n): {"id": f"physionet-{p}-{n}", "lang": "en", "patient": f"P{p}", "text": t, "phi": [], "keep": []}
             for p, n, t in RECORD.findall(text_file.read_text(encoding="utf-8"))}
    if not notes:
        sys.exit(f"{text_file}: no START_OF_RECORD=...||||END_OF_RECORD records found")
    for number, line in enumerate(phrase_file.read_text(encoding="utf-8").splitlines(), 1):
        fields = line.split(" ")
        if len(fields) < 6:
            sys.exit(f"{phrase_file}:{number}: expected 'patient note start end type text', got {len(fields)} fields")
        patient, note, start, end, kind, words = *fields[:5], " ".join(fields[5:])
        record = notes.get((patient, note))
        if record is None:
            sys.exit(f"{phrase_file}:{number}: patient {patient} note {note} is not in {text_file}")
        text = str(record["text"])
        if text[int(start):int(end)] != words:
            sys.exit(f"{phrase_file}:{number}: the span {start}-{end} does not hold the annotated text")
        if kind in SKIPPED:
            continue
        if kind not in TYPES:
            sys.exit(f"{phrase_file}:{number}: unknown PHI type {kind!r}")
        phi = record["phi"]
        assert isinstance(phi, list)
        phi.append({"start": int(start), "end": int(end), "type": TYPES[kind], "text": words})
    return list(notes.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="the folder holding id.text and id-phi.phrase")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--split", choices=["dev", "held", "all"], default="all")
    args = parser.parse_args()
    notes = read_release(args.folder)
    parity = {"dev": 1, "held": 0}.get(args.split)
    if parity is not None:
        notes = [n for n in notes if int(str(n["patient"])[1:]) % 2 == parity]
    with args.out.open("w", encoding="utf-8") as out:
        for note in notes:
            out.write(json.dumps(note, ensure_ascii=False) + "\n")
    spans = sum(len(n["phi"]) for n in notes)  # type: ignore[arg-type]
    print(f"{len(notes)} notes, {spans} PHI spans ({args.split}) -> {args.out}")


if __name__ == "__main__":
    main()
