"""``climedbench build audit | review | refine | rounds``: steps 4–6 of building a benchmark from a hospital's
records (docs/BUILD_REVIEW.md), reached through `climedbench build STEP …` (cli/__init__.py: build_step)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from climedbench.cli.common import csv_list, err, out, print_json

app = typer.Typer(rich_markup_mode=None, no_args_is_help=True, add_completion=False,
                  help="Audit, expert review and refinement rounds of a build's candidate items.")

OUT_HELP = "The build's suite folder (its .build/ holds the candidates, audit, reviews and rounds)."
MODEL_HELP = ("'default' (the embedded model), 'gguf:PATH', or 'openai:NAME' (an OpenAI-compatible server at "
              "--base-url).")


def _cache(path: str | None, off: bool) -> Any:
    if off:
        return None
    from climedbench.cache import ResponseCache, default_cache_path

    return ResponseCache(path or default_cache_path())


async def _with_model(spec: str, base_url: str | None, api_key_env: str, max_concurrency: int, job: Any) -> Any:
    from climedbench.models.registry import ModelOptions, open_backend

    backend = await open_backend(spec, ModelOptions(base_url=base_url, api_key_env=api_key_env,
                                                    max_concurrency=max_concurrency))
    try:
        return await job(backend)
    finally:
        await backend.aclose()


@app.command("audit")
def audit_cmd(
    out_dir: Annotated[Path, typer.Argument(help=OUT_HELP)],
    auditor: Annotated[str | None, typer.Option("--auditor", help="LLM2, the auditing model: " + MODEL_HELP +
                                                " Without it only the rules that need no model run.")] = None,
    base_url: Annotated[str | None, typer.Option("--base-url", help="OpenAI-compatible server URL.")] = None,
    api_key_env: Annotated[str, typer.Option(help="Environment variable holding the API key.")] = "OPENAI_API_KEY",
    max_concurrency: Annotated[int, typer.Option(min=1, help="Requests in flight at once.")] = 4,
    prompt: Annotated[str, typer.Option("--prompt", help="The audit prompt: 'audit' (bundled) or a YAML file.")
                      ] = "audit",
    phi: Annotated[str, typer.Option("--phi", help="The PHI-remnant check (climedbench.deid's detectors): on, off, "
                                                   "or auto (on unless `climedbench deid` wrote the build's notes "
                                                   "with surrogates, which the check would find again).")] = "auto",
    cache: Annotated[str | None, typer.Option(help="Response cache file.")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Neither read nor write the response cache.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Audit every current item: rules without a model (consistency, leakage, alike options, PHI, audit-items
    cues) and, with --auditor, a second model's verdict constrained to a JSON schema. Writes
    .build/audit.jsonl and .build/audit_set.json."""
    import asyncio

    from climedbench.build.audit import run_audit

    if phi not in ("auto", "on", "off"):
        raise typer.BadParameter(f"--phi {phi}: give auto, on or off")
    store = _cache(cache, no_cache) if auditor else None

    async def job(backend: Any) -> Any:
        return await run_audit(out_dir, backend=backend, cache=store, phi=phi, prompt=prompt)

    if auditor:
        summary = asyncio.run(_with_model(auditor, base_url, api_key_env, max_concurrency, job))
    else:
        summary = asyncio.run(run_audit(out_dir, backend=None, cache=None, phi=phi, prompt=prompt))
    if as_json:
        print_json(summary)
        return
    kinds = ", ".join(f"{k} {n}" for k, n in sorted(summary["by_kind"].items())) or "none"
    out.print(f"{summary['items']} items audited, {summary['flagged']} flagged (by kind: {kinds}); PHI check "
              f"{summary['phi_check']}", highlight=False)
    if "auditor" in summary:
        a = summary["auditor"]
        out.print(f"auditor {a['model']}: pass {a['pass']}, fail {a['fail']}, unusable reply {a['unusable']}; "
                  f"{a['cached']} from the cache", highlight=False)


@app.command("review")
def review_cmd(
    out_dir: Annotated[Path, typer.Argument(help=OUT_HELP)],
    raters: Annotated[str | None, typer.Option("--raters", help="The reviewers, comma-separated (at least three: "
                                                                "two per item, a third on disagreement).")] = None,
    sample: Annotated[int, typer.Option("--sample", min=1, help="Unflagged items drawn at random for the round's "
                                                                "pass rate.")] = 20,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the sample and the assignment.")] = 0,
    target: Annotated[float, typer.Option("--target", min=0.0, max=1.0, help="Pass rate that ends the rounds.")
                      ] = 0.9,
    require_lower: Annotated[bool, typer.Option("--require-lower", help="Ask the 95% interval's lower end, not "
                                                                        "the pass rate, to reach --target.")] = False,
    do_sync: Annotated[bool, typer.Option("--sync", help="Read the open round's study: assign third reviewers, "
                                                         "write .build/reviews.jsonl, close a finished round.")
                       ] = False,
    link_base: Annotated[str, typer.Option("--link-base", help="Where `climedbench rate serve` is reached, for "
                                                               "the links.")] = "http://127.0.0.1:8765",
    lang: Annotated[str, typer.Option("--lang", help="zh or en: the reviewers' pages.")] = "zh",
) -> None:
    """Start the next review round (a rater-app study: flagged and refined items plus a random sample, two
    reviewers each), or with --sync bring the open round's reviews into the build."""
    from climedbench.build.review import study_path
    from climedbench.build.rounds import start_round, sync_round

    if do_sync:
        record = sync_round(out_dir)
        _print_round(record)
        return
    names = csv_list(raters)
    if not names:
        raise typer.BadParameter("give the reviewers with --raters (or --sync to read the open round)")
    record, tokens = start_round(out_dir, names, sample, seed, target, require_lower, lang)
    out.print(f"round {record['round']}: {len(record['queued'])} flagged or refined item(s) and a sample of "
              f"{len(record['sample'])}; study {study_path(out_dir, record['round'])}", highlight=False)
    out.print(f"serve it: climedbench rate serve --db {study_path(out_dir, record['round'])}", highlight=False)
    base = link_base.rstrip("/")
    out.print("Personal links (shown only now; `climedbench rate links` makes new ones):", highlight=False)
    for name, token in tokens.raters.items():
        out.print(f"  {name}: {base}/r/{token}", highlight=False)
    out.print(f"  admin: {base}/admin/{tokens.admin}", highlight=False)


def _print_round(record: dict[str, Any]) -> None:
    decisions = ", ".join(f"{k} {v}" for k, v in sorted(record.get("decisions", {}).items())) or "none"
    out.print(f"round {record['round']} ({record['status']}): {decisions}", highlight=False)
    for uid, rater in (record.get("third_assigned") or {}).items():
        out.print(f"  third reviewer for {uid}: {rater}", highlight=False)
    res = record.get("result")
    if res and res["n"]:
        out.print(f"  sample pass rate {res['passed']}/{res['n']} = {100 * res['rate']:.1f}% "
                  f"(95% Jeffreys {100 * res['lower']:.1f}–{100 * res['upper']:.1f}%); "
                  f"{'criterion met' if res['met'] else 'criterion not met'}", highlight=False)


@app.command("refine")
def refine_cmd(
    out_dir: Annotated[Path, typer.Argument(help=OUT_HELP)],
    generator: Annotated[str, typer.Option("--generator", help="LLM1, the model that rewrites: " + MODEL_HELP)],
    base_url: Annotated[str | None, typer.Option("--base-url", help="OpenAI-compatible server URL.")] = None,
    api_key_env: Annotated[str, typer.Option(help="Environment variable holding the API key.")] = "OPENAI_API_KEY",
    max_concurrency: Annotated[int, typer.Option(min=1, help="Requests in flight at once.")] = 4,
    prompt: Annotated[str, typer.Option("--prompt", help="'refine' (bundled) or a YAML file.")] = "refine",
    cache: Annotated[str | None, typer.Option(help="Response cache file.")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Neither read nor write the response cache.")] = False,
) -> None:
    """Send every rejected item, with its reasons, to the refine prompt of its failure kind; the new revisions
    go to .build/refined.jsonl (audit and review them in the next round)."""
    import asyncio

    from climedbench.build.refine import refine
    from climedbench.build.rounds import load_state

    state = load_state(out_dir)
    round_no = state["rounds"][-1]["round"] if state["rounds"] else None
    store = _cache(cache, no_cache)

    async def job(backend: Any) -> Any:
        return await refine(out_dir, backend, store, prompt, round_no)

    counts = asyncio.run(_with_model(generator, base_url, api_key_env, max_concurrency, job))
    out.print(", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "no rejected item to refine",
              highlight=False)


def rounds_cmd(
    out_dir: Annotated[Path, typer.Argument(help=OUT_HELP)],
    stop_now: Annotated[bool, typer.Option("--stop", help="Stop the rounds here (the user's decision).")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print .build/rounds.json.")] = False,
) -> None:
    """Each review round: its queue, the sample's pass rate with its 95% interval, and whether rounds go on."""
    from climedbench.build.rounds import load_state, stop

    state = stop(out_dir) if stop_now else load_state(out_dir)
    if as_json:
        print_json(state)
        return
    if not state["rounds"]:
        err.print("no review round yet (`climedbench build review OUT --raters a,b,c`)")
    for record in state["rounds"]:
        _print_round(record)
    crit = "the interval's lower end" if state.get("require_lower") else "the pass rate"
    out.print(f"target: {crit} ≥ {100 * state['target']:.0f}%; "
              f"{'stopped: ' + state['stopped'] if state.get('stopped') else 'rounds go on'}", highlight=False)


app.command("rounds")(rounds_cmd)
