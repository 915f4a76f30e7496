"""ClinicBench loaders read each dataset in the form users have it, with file/line/field errors."""

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from climedbench.core.suite import load_suite
from climedbench.data.loaders import load_items


@pytest.fixture(scope="module")
def suite():
    return load_suite("clinicbench")


def _load(suite, path):
    return load_items(path, suite)


def test_medqa_jsonl_and_bad_key(tmp_path, suite):
    d = tmp_path / "MedQA"
    d.mkdir()
    rec = {"question": "A 45-year-old man …", "options": {"A": "a", "B": "b", "C": "c", "D": "d", "E": "e"},
           "answer_idx": "C", "answer": "c", "meta_info": "step1"}
    (d / "test.jsonl").write_text(json.dumps(rec) + "\n" + json.dumps({**rec, "answer_idx": "F"}) + "\n", "utf-8")
    r = _load(suite, tmp_path)
    assert [(i.task, i.answer, i.split, i.letters) for i in r.items] == [("MedQA", "C", "test", "ABCDE")]
    assert i_meta(r.items[0]) == {"meta_info": "step1"}
    (p,) = r.problems
    assert (p.line, p.field, p.task) == (2, "answer_idx", "MedQA")


def i_meta(item):
    return item.meta


def test_medmcqa_json_is_one_based_and_parquet_zero_based(tmp_path, suite):
    d = tmp_path / "medmcqa"
    d.mkdir()
    rec = {"id": "x1", "question": "Q?", "opa": "w", "opb": "x", "opc": "y", "opd": "z", "cop": 3, "exp": "because"}
    (d / "dev.json").write_text(json.dumps(rec) + "\n" + json.dumps({**rec, "id": "x2", "cop": 0}) + "\n", "utf-8")
    (d / "train.json").write_text(json.dumps({**rec, "id": "t1", "cop": 1}) + "\n", "utf-8")
    r = _load(suite, tmp_path)
    assert [(i.id, i.answer, i.split) for i in r.items] == [("x1", "C", "test"), ("t1", "A", "train")]
    assert r.items[0].rationale == "because"
    assert r.problems[0].field == "cop" and "0-based" in r.problems[0].reason
    pq.write_table(pa.Table.from_pylist([{**rec, "cop": 0}]), d / "dev.parquet")
    (d / "dev.json").unlink()
    r2 = _load(suite, d / "dev.parquet")
    assert [i.answer for i in r2.items] == ["A"]


def test_mmlu_hf_records_and_headerless_csv_keep_medical_subjects(tmp_path, suite):
    d = tmp_path / "MMLU-Medicine"
    d.mkdir()
    (d / "test.jsonl").write_text("\n".join(json.dumps(x) for x in [
        {"question": "q1", "subject": "anatomy", "choices": ["a", "b", "c", "d"], "answer": 2},
        {"question": "q2", "subject": "astronomy", "choices": ["a", "b", "c", "d"], "answer": 0}]) + "\n", "utf-8")
    (d / "professional_medicine_dev.csv").write_text('"A man, 40, …",w,x,y,z,D\nshort,row\n', "utf-8")
    r = _load(suite, tmp_path)
    got = sorted((i.split, i.input, i.answer) for i in r.items)
    assert got == [("dev", "A man, 40, …", "D"), ("test", "q1", "C")]
    assert r.left_out == 1  # astronomy is not a medical subject
    assert r.problems[0].line == 2 and "expected 6 columns" in r.problems[0].reason


def test_pubmedqa_pmid_keyed_json(tmp_path, suite):
    d = tmp_path / "PubMedQA"
    d.mkdir()
    data = {"12345678": {"QUESTION": "Does x help?", "CONTEXTS": ["Background.", "Results."],
                         "LABELS": ["BACKGROUND", "RESULTS"], "final_decision": "maybe", "LONG_ANSWER": "Unclear."},
            "23456789": {"QUESTION": "Is y safe?", "CONTEXTS": ["c"], "final_decision": "perhaps"}}
    (d / "test.json").write_text(json.dumps(data, indent=1), "utf-8")
    r = _load(suite, tmp_path)
    (it,) = r.items
    assert (it.id, it.answer, it.context) == ("12345678", "maybe", "Background. Results.")
    assert r.problems[0].field == "final_decision" and r.problems[0].id == "23456789"


def test_reports_and_long_documents(tmp_path, suite):
    (tmp_path / "MIMIC-CXR").mkdir()
    (tmp_path / "MIMIC-CXR" / "mimic-cxr.json").write_text(json.dumps({
        "test": [{"study_id": "51", "findings": "Lungs clear.", "impression": "No acute process."}],
        "train": [{"study_id": "52", "findings": "Small effusion.", "impression": "Small left effusion."}]}), "utf-8")
    (tmp_path / "IU-Xray").mkdir()
    (tmp_path / "IU-Xray" / "iu-xray.json").write_text(json.dumps([{"uid": "8", "findings": "Normal heart.",
                                                                    "impression": "Normal chest."}]), "utf-8")
    (tmp_path / "Hospitalization-Summarization.json").write_text(json.dumps([{"instruct": "Long note …",
                                                                            "answer": "Brief course."}]), "utf-8")
    (tmp_path / "Patient-Education.csv").write_text("discharge_summary,discharge_instruction\n"
                                                   '"Summary …","Take [...] your tablets."\n', "utf-8")
    r = _load(suite, tmp_path)
    got = {(i.task, i.split): (i.input, i.reference) for i in r.items}
    assert got[("MIMIC-CXR", "test")] == ("Lungs clear.", "No acute process.")
    assert got[("MIMIC-CXR", "train")][1] == "Small left effusion."
    assert got[("IU-Xray", "test")] == ("Normal heart.", "Normal chest.")
    assert got[("HospSumm", "test")] == ("Long note …", "Brief course.")
    assert got[("PatientEdu", "test")] == ("Summary …", "Take  your tablets.")
    assert r.problems == []


def test_treatment_recommendation_repr_lists(tmp_path, suite):
    (tmp_path / "Treatment-Recommendation.csv").write_text(
        "idx,disease,Symptom,reason,TestsAndProcedures,commonMedications\n"
        "0,Panic disorder,\"['Anxiety', 'Palpitations']\",text,\"['ECG']\",\"['Lorazepam', 'Alprazolam (Xanax)']\"\n"
        "1,Gout,\"['Joint pain']\",text,[],[]\n", "utf-8")
    r = _load(suite, tmp_path)
    (it,) = r.items
    assert it.input == "Disease: Panic disorder\nSymptoms: Anxiety, Palpitations"
    assert it.targets == ["Lorazepam", "Alprazolam (Xanax)"]
    assert (r.problems[0].line, r.problems[0].field) == (3, "commonMedications")


def test_iob_tsv_and_token_records(tmp_path, suite):
    d = tmp_path / "NCBI-disease"
    d.mkdir()
    (d / "test.tsv").write_text("Hereditary\tB\nnonpolyposis\tI\ncolorectal\tI\ncancer\tI\nis\tO\nrare\tO\n\n"
                                "The\tO\nATM\tO\ngene\tO\n\nbad line\n", "utf-8")
    (d / "devel.jsonl").write_text(json.dumps({"id": "d1", "tokens": ["breast", "cancer", "risk"],
                                               "ner_tags": [1, 2, 0]}) + "\n", "utf-8")
    r = _load(suite, tmp_path)
    tests = [i for i in r.items if i.split == "test"]
    assert [i.targets for i in tests] == [["Hereditary nonpolyposis colorectal cancer"], []]
    assert [i.line for i in tests] == [1, 8] and tests[1].meta["index"] == 1
    dev = [i for i in r.items if i.split == "dev"]
    assert dev[0].targets == ["breast cancer"]
    assert (r.problems[0].line, r.problems[0].field) == (12, "tags")  # 'bad line': 'line' is no tag


def test_relations_and_hoc(tmp_path, suite):
    (tmp_path / "DDI").mkdir()
    (tmp_path / "DDI" / "test.tsv").write_text("index\tsentence\tlabel\n1\t@DRUG$ increases @DRUG$ levels.\t"
                                               "DDI-mechanism\n2\tNo relation.\tDDI-unknown\n", "utf-8")
    (tmp_path / "GAD").mkdir()
    (tmp_path / "GAD" / "test.tsv").write_text("index\tsentence\tlabel\n7\t@GENE$ variants and @DISEASE$.\t1\n",
                                               "utf-8")
    (tmp_path / "HoC").mkdir()
    (tmp_path / "HoC" / "test.jsonl").write_text("\n".join(json.dumps(x) for x in [
        {"document_id": "h1", "text": "t", "labels": ["resisting cell death", "TPI"]},
        {"document_id": "h2", "text": "t", "labels": "inducing angiogenesis_1,cellular energetics_0"},
        {"document_id": "h3", "text": "t", "labels": []},
        {"document_id": "h4", "text": "t", "labels": ["Warburg effect"]}]) + "\n", "utf-8")
    r = _load(suite, tmp_path)
    got = {(i.task, i.id): (i.answer, i.targets) for i in r.items}
    assert got[("DDI", "1")] == ("DDI-mechanism", None) and got[("GAD", "7")] == ("yes", None)
    assert got[("HoC", "h1")][1] == ["resisting cell death", "tumor promoting inflammation"]
    assert got[("HoC", "h2")][1] == ["inducing angiogenesis"] and got[("HoC", "h3")][1] == []
    assert {(p.task, p.field) for p in r.problems} == {("DDI", "label"), ("HoC", "labels")}


def test_emerging_drug_files(tmp_path, suite):
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["type", "created", "name", "description", "question", "option_A", "option_B", "option_C",
               "option_D", "answer", "explanation"])
    ws.append(["biotech", "2023-10-03", "Zeta-1", "Zeta-1 is a …", "What is the type of Zeta-1?", "Small molecule",
               "Biotech", "Natural product", "Vaccine", "B", "It is a biotech drug."])
    ws.append(["biotech", "2023-10-03", "Zeta-2", "d", "q?", "a", "b", None, "d", "B", "e"])
    wb.save(tmp_path / "Pharmacology-QA.xlsx")
    (tmp_path / "Drug-Interaction-for-Emerging-Drugs.csv").write_text(
        "question,answer\nDoes the efficacy of X decrease with Y?,yes\nDoes Z?,unsure\n", "utf-8")
    r = _load(suite, tmp_path)
    got = {i.task: i for i in r.items}
    assert got["PharmQA"].answer == "B" and got["PharmQA"].context == "Zeta-1 is a …"
    assert got["PharmQA"].rationale == "It is a biotech drug." and got["DIED"].answer == "yes"
    assert {(p.task, p.line, p.field) for p in r.problems} == {("PharmQA", 3, "option_C"), ("DIED", 3, "answer")}
