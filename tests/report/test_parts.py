"""Pure logic of the report: SVG sanitising, the compressed sample payload, table cells."""

from __future__ import annotations

import base64
import gzip
import json
import xml.etree.ElementTree as ET

from tests.report.conftest import EVIL_SVG
from tests.report.runs import samples

SVG = "{http://www.w3.org/2000/svg}"


def test_sanitised_svg_keeps_the_drawing_and_drops_everything_active():
    from climedbench.report.svg import sanitize_svg

    out = sanitize_svg(EVIL_SVG, "fig")
    tree = ET.fromstring(out)  # still well-formed XML
    tags = [el.tag.replace(SVG, "") for el in tree.iter()]
    assert tags.count("rect") == 3 and tags.count("text") == 1 and "g" in tags
    for gone in ("script", "style", "foreignObject", "image", "use", "a", "div", "img"):
        assert gone not in tags
    attrs = [(k, v) for el in tree.iter() for k, v in el.attrib.items()]
    assert not [k for k, _ in attrs if k.startswith("on")]
    assert not [v for _, v in attrs if "http://127.0.0.1:9" in v or "javascript" in v]
    # Internal references survive, renamed with the figure's prefix; the unsafe style is dropped whole.
    assert ("id", "fig-clip1") in attrs and ("clip-path", "url(#fig-clip1)") in attrs
    assert not [v for k, v in attrs if k == "style"]
    assert tree.find(f"{SVG}text").text == "<script>label</script>"
    assert "&lt;script&gt;label&lt;/script&gt;" in out


def test_a_matplotlib_figure_keeps_every_path_and_text():
    import io
    import warnings

    from climedbench.analyses.figures import pyplot
    from climedbench.report.svg import sanitize_svg

    plt = pyplot()
    fig, ax = plt.subplots()
    ax.errorbar([1, 2, 3], [3, 1, 2], xerr=[0.5, 0.2, 0.1], fmt="o", label="模型 <b>")
    ax.set_title("Scores & ranks")
    ax.legend()
    buf = io.StringIO()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Glyph .* missing from font")  # no CJK font is needed here
        fig.savefig(buf, format="svg")
    plt.close(fig)
    original = ET.fromstring(buf.getvalue())
    clean = ET.fromstring(sanitize_svg(buf.getvalue(), "m"))
    for tag in ("path", "text", "use", "g"):
        assert len(clean.findall(f".//{SVG}{tag}")) == len(original.findall(f".//{SVG}{tag}")), tag
    texts = [t.text for t in clean.iter(f"{SVG}text")]
    assert "Scores & ranks" in texts and "模型 <b>" in texts
    # matplotlib's <use> point at its <path> markers: every reference resolves inside the sanitised figure.
    ids = {el.get("id") for el in clean.iter() if el.get("id")}
    refs = [el.get("href") for el in clean.iter(f"{SVG}use")]
    assert refs and all(r.startswith("#m-") and r[1:] in ids for r in refs)


def test_pack_is_gzip_of_utf8_json_in_base64():
    from climedbench.report.samples import pack, unpack

    data = {"strings": ["<script>alert(1)</script>", "答案：A"], "n": [1, -1, None]}
    text, size = pack(data)
    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()
    assert size == len(raw)
    assert gzip.decompress(base64.b64decode(text)) == raw
    assert unpack(text) == data
    assert text == pack(data)[0]  # deterministic (no timestamp in the gzip header)


def test_sample_blocks_hold_each_runs_answers_and_each_input_once(runs):
    from climedbench.analyses.runs import load_runs
    from climedbench.report.leaderboard import display_names, run_info
    from climedbench.report.samples import ANSWERED, ERROR, MISSING, NO_ANSWER, build_samples, unpack

    loaded = load_runs(runs.all)
    infos = [run_info(r, f"r{i}", n) for i, (r, n) in enumerate(zip(loaded, display_names(loaded), strict=True))]
    browser = build_samples(loaded, infos, loaded[0].suite, block_size=4)
    bkt = next(t for t in browser.tasks if t.code == "BKT")
    index = unpack(browser.chunks[bkt.index])
    files = [samples(r) for r in runs.all]
    assert index["ids"] == [k for k in files[0] if files[0][k]["task"] == "BKT"]
    assert len(bkt.blocks) == 4  # 13 items in blocks of 4
    inputs = {json.loads(x)["id"]: json.loads(x)["input"]
              for x in (runs.data / "BKT.test.jsonl").read_text(encoding="utf-8").splitlines()}
    for i, item_id in enumerate(index["ids"]):
        block = unpack(browser.chunks[bkt.blocks[i // 4]])
        j = i % 4
        strings = block["strings"]
        for r, file in enumerate(files):
            s = file[item_id]
            assert strings[block["raw"][r][j]] == s["raw"]
            assert index["score"][r][i] == round(s["score"], 4)
            assert index["status"][r][i] == (ERROR if s["error"] else NO_ANSWER if s["extraction_failure"]
                                             else ANSWERED)
        # All three runs read the same data: one copy of the input, referred to by all three.
        refs = {block["input"][r][j] for r in range(3)}
        assert len(refs) == 1 and strings[refs.pop()] == inputs[item_id]
        assert strings.count(inputs[item_id]) == 1
    assert MISSING not in {v for row in index["status"] for v in row}


def test_cell_text():
    from climedbench.report.analyses import cell_text

    assert [cell_text(v) for v in (None, float("nan"), 3, 3.0, 46.4, 0.000123, 12345.67, True, "<b>", [1, "a"])] \
        == ["—", "—", "3", "3", "46.4", "0.000123", "12345.7", "yes", "<b>", '[1, "a"]']


def test_a_run_whose_data_is_gone_keeps_its_responses_and_says_so(runs, tmp_path):
    import shutil

    from climedbench.analyses.runs import load_runs
    from climedbench.report.leaderboard import run_info
    from climedbench.report.samples import build_samples, unpack

    moved = tmp_path / "alpha"
    shutil.copytree(runs.alpha, moved)
    spec = json.loads((moved / "run.json").read_text(encoding="utf-8"))
    spec["data"] = str(tmp_path / "no-such-data")
    (moved / "run.json").write_text(json.dumps(spec), encoding="utf-8")
    loaded = load_runs([moved])
    browser = build_samples(loaded, [run_info(loaded[0], "r0", "alpha")], loaded[0].suite)
    assert len(browser.notes) == 1 and "cannot be read any more" in browser.notes[0]
    task = browser.tasks[0]
    block = unpack(browser.chunks[task.blocks[0]])
    assert set(block["input"][0]) == {-1}
    first = next(s for s in samples(moved).values() if s["task"] == task.code)
    assert block["strings"][block["raw"][0][0]] == first["raw"]
