"""A template without Jinja syntax is returned as Jinja would render it, without compiling it (prompts.render's plain
text path, issue 24 part 4: the per-item Jinja context was 10% of the HTTP path's sending time)."""

from __future__ import annotations

from jinja2 import StrictUndefined
from jinja2.sandbox import SandboxedEnvironment

from climedbench import prompts
from climedbench.core.suite import load_suite

EDGES = ["", "a", "a\n", "a\n\n", "\n", "\n\n\n", "  x  \t", "中文\n\n\n", "x%y #z }} %}", "a\x0bb\n", "a\u2028b\n",
         "a\x0c\n", " \n ", "trailing spaces   \n"]


def jinja(source: str) -> str:
    env = SandboxedEnvironment(undefined=StrictUndefined, keep_trailing_newline=False, autoescape=False)
    return str(env.from_string(source).render())


def bundled_sources() -> list[str]:
    out = []
    for name in ("climedbench", "clinicbench"):
        for task in load_suite(name).tasks:
            spec = task.prompt
            out += [s for s in (spec.instruction, spec.answer_format, spec.cot, spec.logprob, spec.system,
                                spec.template, spec.demonstration, spec.shot_template) if isinstance(s, str)]
    return out


def test_plain_text_renders_as_jinja_renders_it_and_is_not_compiled():
    plain = [s for s in bundled_sources() + EDGES if "{" not in s and "\r" not in s]
    assert len(plain) > len(EDGES)  # the bundled suites have plain instructions
    prompts._template.cache_clear()
    for source in plain:
        assert prompts.render(source, {}) == jinja(source), repr(source)
    assert prompts._template.cache_info().currsize == 0  # no template was compiled for them


def test_templates_and_carriage_returns_still_go_through_jinja():
    prompts._template.cache_clear()
    assert prompts.render("a\r\nb\rc\n", {}) == "a\nb\nc"  # Jinja rewrites \r\n and \r
    assert prompts.render("{{ letters }}\n", {"letters": "A/B"}) == "A/B"
    assert prompts._template.cache_info().currsize == 2
