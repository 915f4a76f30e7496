"""The HTML report in a real headless Chromium (Debian's /usr/bin/chromium through Playwright), opened from disk.

Expected values come from the run files read as plain JSON, the suite YAML, the paper's CSV and the instant
server's own answer rule, never from the report code.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import yaml

from tests.report.conftest import EVIL_RECORD, wait_until
from tests.report.runs import GAMMA, MARKUP_INPUT, MARKUP_REPLY, samples

SUITE_YAML = Path(__file__).resolve().parents[2] / "src/climedbench/suites/climedbench/suite.yaml"
PAPER_CSV = SUITE_YAML.parent / "published/paper_table2.csv"


def results(run: Path) -> dict:
    return json.loads((run / "results.json").read_text(encoding="utf-8"))


def suite_yaml() -> dict:
    return yaml.safe_load(SUITE_YAML.read_text(encoding="utf-8"))


def paper_rows() -> list[dict[str, str]]:
    with PAPER_CSV.open(encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def row_names(page) -> list[str]:
    return page.eval_on_selector_all("#board tbody tr th .name", "els => els.map(e => e.textContent)")


def rerender(page, action) -> None:
    """Do `action` and wait until the sample browser has drawn again."""
    before = page.evaluate("window.climedbenchReport.renders")
    action()
    wait_until(page, f"window.climedbenchReport.renders > {before}")


def shown_ids(page) -> list[str]:
    return page.eval_on_selector_all("#s-list article.sample", "els => els.map(e => e.dataset.id)")


def task_option(page, code: str) -> str:
    meta = json.loads(page.text_content("#report-meta"))
    return str([t["code"] for t in meta["tasks"]].index(code))


def test_opens_from_disk_with_no_script_error_and_no_network(opened, report_html):
    page = opened.page
    assert opened.page_errors == [] and opened.console_errors == []
    assert opened.csp_violations() == []
    assert page.evaluate("window.climedbenchReport.errors") == []
    # Nothing but the file itself (and data: URLs decoded by the page) is ever requested.
    assert [u for u in opened.requests if u != report_html.as_uri() and not u.startswith("data:")] == []
    assert page.evaluate("typeof window.__pwned") == "undefined"


def test_charts_exist_with_one_series_per_run_and_the_suite_labels(opened):
    page = opened.page
    dims = suite_yaml()["groups"]
    for lang in ("zh", "en"):
        radar = f"#fig-radar .l-{lang} svg"
        assert page.locator(radar).count() == 1
        assert page.locator(f'{radar} g[id^="radar-{lang}-series-"]').count() == 3
        texts = page.eval_on_selector_all(f"{radar} text", "els => els.map(e => e.textContent)")
        assert {d[lang] for d in dims.values()} <= set(texts)
        forest = f"#fig-forest .l-{lang} svg"
        assert page.locator(f'{forest} g[id^="forest-{lang}-series-"]:not([id*="-ci"])').count() == 3
        labels = " ".join(page.eval_on_selector_all(f"{forest} text", "els => els.map(e => e.textContent)"))
        for code in ("ID#1", "BKT", "CPR", "KE", "CS", "FIT", "MC"):
            assert code in labels
    # Only the page's language is visible.
    assert page.locator("#fig-radar .l-zh svg").is_visible()
    assert not page.locator("#fig-radar .l-en svg").is_visible()


def test_leaderboard_shows_each_runs_figures_and_the_paper_marked_as_published(opened, runs):
    page = opened.page
    run_rows = page.locator("#board tbody tr.run")
    assert run_rows.count() == 3
    for i, run in enumerate(runs.all):
        res = results(run)
        row = run_rows.nth(i)
        overall = row.locator("td.score").first
        lo, hi = res["overall"]["ci"]
        assert overall.locator(".value").text_content() == f"{res['overall']['score']:.1f}"
        assert overall.locator(".ci").text_content() == f"[{lo:.1f}, {hi:.1f}]"
        assert overall.locator(".n").text_content() == f"n={res['overall']['n']}"
        bkt = res["tasks"]["BKT"]
        assert row.locator('a.goto[data-task="BKT"]').text_content() == f"{bkt['score']:.1f}"
    # The model name holding markup is text, not markup.
    assert run_rows.nth(2).locator("th .name").text_content() == GAMMA
    assert run_rows.nth(2).locator("th i").count() == 0
    published = page.locator("#board tbody tr.published")
    paper = paper_rows()
    assert published.count() == len(paper)
    header = page.eval_on_selector_all("#board thead th", "els => els.map(e => e.dataset.key)")
    for i, src in enumerate(paper):
        row = published.nth(i)
        assert row.locator("th .name").text_content() == src["model"]
        assert row.locator(".badge .l-en").text_content() == "published"
        cells = row.locator("td")
        for code in ("ID#1", "BKT", "WTD"):
            assert cells.nth(header.index(code) - 1).text_content() == f"{float(src[code]):.1f}"
        assert row.locator(".ci").count() == 0  # no interval is made up for published scores


def test_sorting_by_overall_and_by_rank(opened, runs):
    page = opened.page
    overall = {results(r)["model"]: results(r)["overall"]["score"] for r in runs.all}
    for src in paper_rows():
        values = [float(v) for k, v in src.items() if k != "model"]
        overall[src["model"]] = round(sum(values) / len(values), 2)  # the paper's overall: mean of the 14 scenarios
    button = page.locator('#board thead th[data-key="overall"] button')
    button.click()
    assert page.get_attribute('#board thead th[data-key="overall"]', "aria-sort") == "descending"
    assert row_names(page) == sorted(overall, key=lambda m: -overall[m])
    button.click()
    assert page.get_attribute('#board thead th[data-key="overall"]', "aria-sort") == "ascending"
    assert row_names(page) == sorted(overall, key=lambda m: overall[m])
    # Rank: runs 1, 2, 3 first; published rows (no rank) stay last in both directions.
    rank = page.locator('#board thead th[data-key="rank"] button')
    for _ in range(2):
        rank.click()
        names = row_names(page)
        assert set(names[:3]) == {results(r)["model"] for r in runs.all}
        assert names[3:] == [n for n in row_names(page) if n in {p["model"] for p in paper_rows()}]


def test_rank_intervals_follow_the_overall_scores(opened, runs):
    page = opened.page
    scores = [results(r)["overall"]["score"] for r in runs.all]
    assert len(set(scores)) == 3
    expected = [sorted(scores, reverse=True).index(s) + 1 for s in scores]
    cells = page.locator("#board tbody tr.run td.rank")
    for i, rank in enumerate(expected):
        text = cells.nth(i).text_content()
        shown, interval = text.split(" ", 1)
        lo, hi = (int(x) for x in interval.strip("[]").split("–"))
        assert int(shown) == rank and 1 <= lo <= rank <= hi <= 3
    assert set(page.eval_on_selector_all("#board tbody tr.published td.rank", "els => els.map(e => e.textContent)")) \
        == {"—"}


def test_sample_browser_shows_the_response_the_model_gave_for_an_item(opened, runs):
    from climedbench.run.plan import RunOptions, plan_run
    from tests.support.instant_server import answer_letter

    page = opened.page
    rerender(page, lambda: page.select_option("#s-task", task_option(page, "BKT")))
    rerender(page, lambda: page.select_option("#s-a", "1"))  # beta
    rerender(page, lambda: page.select_option("#s-b", "0"))  # alpha
    plan = plan_run(RunOptions(data=str(runs.data), model="openai:beta", limit=0, max_tokens=400))
    for item_id in ("BKT-002", "BKT-009"):
        request = next(r for r in plan.requests if r.item.id == item_id)
        letter = answer_letter(request.messages(plan.suite), "ABZ")  # the instant server's rule for beta
        card = page.locator(f'#s-list article.sample[data-id="{item_id}"]')
        beta, alpha = card.locator('section.answer[data-run="r1"]'), card.locator('section.answer[data-run="r0"]')
        assert beta.locator("pre.raw").text_content() == f"答案：{letter}" == samples(runs.beta)[item_id]["raw"]
        assert alpha.locator("pre.raw").text_content() == samples(runs.alpha)[item_id]["raw"]
        source = next(json.loads(x) for x in (runs.data / "BKT.test.jsonl").read_text(encoding="utf-8").splitlines()
                      if json.loads(x)["id"] == item_id)
        assert card.locator("pre.input").text_content() == source["input"]
        assert card.locator("pre.gold").text_content() == source["reference"]
        expected_score = 1.0 if letter == source["reference"] else 0.0
        assert beta.locator("dd.score").text_content().split(" ")[0] == str(int(expected_score))
        # alpha logged its prompts (--log-prompts): every message the model was sent is shown; beta did not.
        prompt = alpha.locator("details.prompt pre").text_content()
        assert all(m["content"] in prompt for m in request.messages(plan.suite))
        assert beta.locator("details.prompt").count() == 0


def test_filters_wrong_answers_extraction_failures_and_disagreements(opened, runs):
    page = opened.page
    rerender(page, lambda: page.select_option("#s-task", task_option(page, "BKT")))
    rerender(page, lambda: page.select_option("#s-a", "1"))  # beta answers Z sometimes: no usable answer
    rerender(page, lambda: page.select_option("#s-b", "0"))
    beta = {k: v for k, v in samples(runs.beta).items() if v["task"] == "BKT"}
    alpha = {k: v for k, v in samples(runs.alpha).items() if v["task"] == "BKT"}
    wrong = sorted(k for k, v in beta.items() if v["score"] < 1)
    failed = sorted(k for k, v in beta.items() if v["extraction_failure"])
    differ = sorted(k for k in beta if beta[k]["score"] != alpha[k]["score"])
    assert failed and wrong != failed and differ  # the data exercise each filter
    rerender(page, lambda: page.select_option("#s-filter", "wrong"))
    assert sorted(shown_ids(page)) == wrong
    rerender(page, lambda: page.select_option("#s-filter", "noanswer"))
    assert sorted(shown_ids(page)) == failed
    rerender(page, lambda: page.select_option("#s-filter", "differ"))
    assert sorted(shown_ids(page)) == differ
    rerender(page, lambda: page.select_option("#s-filter", "all"))
    rerender(page, lambda: page.fill("#s-search", "markup"))
    assert shown_ids(page) == ["BKT-markup"]


def test_pages_through_a_task_decoding_only_the_blocks_it_shows(opened, runs):
    page = opened.page
    rerender(page, lambda: page.select_option("#s-task", task_option(page, "BKT")))
    rerender(page, lambda: page.select_option("#s-size", "10"))
    first = shown_ids(page)
    assert page.text_content("#s-status") == "items 1–10 of 13 · page 1 of 2"
    rerender(page, lambda: page.click("#s-next"))
    second = shown_ids(page)
    assert page.text_content("#s-status") == "items 11–13 of 13 · page 2 of 2"
    assert page.is_disabled("#s-next") and not page.is_disabled("#s-prev")
    in_order = [k for k, v in samples(runs.alpha).items() if v["task"] == "BKT"]  # samples.jsonl: plan order
    assert first + second == in_order


def test_markup_in_items_responses_and_records_is_shown_as_text_and_never_runs(opened):
    page = opened.page
    rerender(page, lambda: page.select_option("#s-task", task_option(page, "BKT")))
    rerender(page, lambda: page.select_option("#s-a", "2"))  # gamma: every response is markup
    rerender(page, lambda: page.fill("#s-search", "markup"))
    card = page.locator('#s-list article.sample[data-id="BKT-markup"]')
    assert card.locator("pre.input").text_content() == MARKUP_INPUT
    assert card.locator('section.answer[data-run="r2"] pre.raw').text_content() == MARKUP_REPLY
    assert page.locator("#s-list img, #s-list script, #s-list svg, #s-list b").count() == 0
    # The hostile analysis record: its text is text, its figure keeps the drawing and loses everything active.
    record = page.locator('#analyses article[data-kind="ratings"]')
    assert EVIL_RECORD["title"] in record.locator("h3").text_content()
    assert record.locator("ul.notes li").text_content() == EVIL_RECORD["notes"][0]
    assert record.locator("tbody tr").first.locator("td").first.text_content() == EVIL_RECORD["table"]["rows"][0][0]
    assert record.locator("svg rect").count() == 3
    assert page.locator("#analyses script, #analyses img, #analyses foreignObject, #analyses a").count() == 0
    attributes = page.eval_on_selector_all(
        "#analyses svg, #analyses svg *", "els => els.flatMap(e => Array.from(e.attributes).map(a => a.name + '=' + a.value))")
    assert not [a for a in attributes if a.startswith("on") or "javascript" in a
                or ("http" in a.split("=", 1)[1] and a.split("=", 1)[0] != "xmlns")]
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert opened.csp_violations() == [] and opened.page_errors == []


def test_every_analysis_record_is_rendered_in_index_order(opened, analyses_dir):
    page = opened.page
    kinds = page.eval_on_selector_all("#analyses article.analysis", "els => els.map(e => e.dataset.kind)")
    assert kinds == ["ranks", "compare", "ratings"]  # index.json first, then the others by file name
    for kind in ("ranks", "compare"):
        record = json.loads((analyses_dir / f"{kind}.json").read_text(encoding="utf-8"))
        art = page.locator(f'#analyses article[data-kind="{kind}"]')
        assert art.locator("thead th").all_text_contents() == record["table"]["columns"]
        assert art.locator("tbody tr").count() == len(record["table"]["rows"])
        assert art.locator("svg path").count() > 0
    assert "cot: no CoT run" in page.text_content("#analyses")


def test_language_switch_relabels_the_page_from_the_suite_names(opened):
    page = opened.page
    dims = suite_yaml()["groups"]
    head = page.locator('#board thead th[data-key="clinical_qa"]')
    assert head.locator(".l-zh").is_visible() and head.locator(".l-zh").text_content() == dims["clinical_qa"]["zh"]
    page.click('button[data-set-lang="en"]')
    assert head.locator(".l-en").is_visible() and not head.locator(".l-zh").is_visible()
    assert head.locator(".l-en").text_content() == dims["clinical_qa"]["en"]
    assert page.locator("#fig-radar .l-en svg").is_visible() and not page.locator("#fig-radar .l-zh svg").is_visible()
    assert page.get_attribute("html", "lang") == "en"


def test_clicking_a_task_score_opens_its_samples(opened):
    page = opened.page
    rerender(page, lambda: page.click('#board tbody tr.run[data-key="r0"] a.goto[data-task="KE"]'))
    assert page.input_value("#s-task") == task_option(page, "KE") and page.input_value("#s-a") == "0"
    ids = shown_ids(page)
    assert ids and all(i.startswith("KE-") for i in ids)


def test_run_details_show_run_json_accounting_and_errors(opened, runs):
    page = opened.page
    for i, run in enumerate(runs.all):
        details = page.locator(f'#details details[data-run="r{i}"]')
        if i:
            details.locator("summary").click()
        assert json.loads(details.locator("pre.spec").text_content()) == json.loads((run / "run.json").read_text())
        rows = dict(zip(details.locator("table.accounting th").all_text_contents(),
                        details.locator("table.accounting td").all_text_contents(), strict=True))
        res = results(run)
        assert rows["items answered"] == str(len(samples(run)))
        assert rows["prompt tokens"] == f"{res['run']['prompt_tokens']:,}"
        assert rows["cache hits (last session)"] == str(res["run"]["cache_hits"])
        assert details.locator("p.none").text_content() == "none"  # no request errors
