"""Reading ClinicBench answers: entity lists in the authors' 'N | <…>' format, IOB lines, label names and
abbreviations, medication lists."""

import pytest

from climedbench.core.suite import load_suite
from climedbench.core.types import Item
from climedbench.extractors import extract_entities, extract_iob, extract_list, get_extractor


@pytest.fixture(scope="module")
def suite():
    return load_suite("clinicbench")


def test_indexed_entity_lists():
    r = "Sure! Here are the recognized entities in the given paragraph:\n\n0 | <Torsade de pointes>\n0 | <heart failure>"
    assert extract_entities(r).answer == ["Torsade de pointes", "heart failure"]
    r2 = "Sure! Here are the recognized entities:\n\n5 | <radiographic contrast media, late reactions>"
    assert extract_entities(r2).answer == ["radiographic contrast media", "late reactions"]
    r3 = "Sure! Here's the extract you requested:\n\n2 | <recognized entities>\n\n* Dobutamine\n* Ventricular tachycardia"
    assert extract_entities(r3).answer == ["Dobutamine", "Ventricular tachycardia"]
    assert extract_entities("12 | <None>").answer == []
    sentence = "None of the patients had decompensated liver disease ."
    echo = "12 | <None of the patients had decompensated liver disease >\n\n* Decompensated liver disease"
    assert extract_entities(echo, sentence).answer == ["Decompensated liver disease"]  # the echo is not a mention
    assert extract_entities("Diseases: asthma; eczema").answer == ["asthma", "eczema"]


def test_iob_lines():
    r = "Hereditary\tB-DISEASE\nnonpolyposis\tI-DISEASE\ncancer\tI-DISEASE\nis\tO\nrare\tO"
    assert extract_iob(r).answer == ["Hereditary nonpolyposis cancer"]
    assert extract_iob("The\tO\ngene\tO").answer == []
    assert extract_iob("There are no diseases in this sentence.").answer is None


def test_labels_with_aliases(suite):
    hoc, ddi = suite.task("HoC"), suite.task("DDI")
    item = Item(id="1", task="HoC", input="d", targets=[])
    read = get_extractor("labels")
    assert read("Resisting cell death (CD), Tumor-promoting inflammation (TPI)", item, hoc).answer == \
        ["resisting cell death", "tumor promoting inflammation"]
    assert read("GI; IM", item, hoc).answer == ["activating invasion and metastasis", "genomic instability and mutation"]
    assert read("None", item, hoc).answer == []
    assert read("The CD4 cells id the tumour", item, hoc).answer is None  # no capitals-only alias inside words
    one = get_extractor("label")
    d = Item(id="2", task="DDI", input="s", answer="DDI-effect")
    assert one("DDI-effect", d, ddi).answer == "DDI-effect"
    assert one("The interaction type is mechanism.", d, ddi).answer == "DDI-mechanism"
    assert one("Label: DDI-false", d, ddi).answer == "DDI-false"


def test_medication_lists():
    r = ("Here are the drugs:\n1. Lorazepam - a benzodiazepine for acute panic\n2. Alprazolam (Xanax)\n"
         "3. Paroxetine: an SSRI")
    assert extract_list(r).answer == ["Lorazepam", "Alprazolam (Xanax)", "Paroxetine"]
    assert extract_list("Sertraline, escitalopram, clonazepam").answer == ["Sertraline", "escitalopram", "clonazepam"]
