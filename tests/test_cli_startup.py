"""The command line imports only the module of the command it runs; the table that says which module that is
must match what each module registers."""

import subprocess
import sys

SCRIPT = """
import importlib, json
from climedbench.cli import MODULES, common

def names():
    app = common.app
    return {c.name or c.callback.__name__.replace("_", "-") for c in app.registered_commands} | {
        g.name for g in app.registered_groups}

found, seen = {}, set()
for module in MODULES:
    importlib.import_module(f"climedbench.cli.{module}")
    now = names()
    for name in now - seen:
        found[name] = module
    seen = now
print(json.dumps(found))
"""


def test_the_command_table_matches_the_modules():
    import json

    from climedbench.cli import COMMANDS

    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == COMMANDS


def test_a_command_line_loads_only_its_module():
    code = ("import sys; from climedbench.cli import load_commands; load_commands(['run', '--help']); "
            "print(sorted(m for m in sys.modules if m.startswith('climedbench.cli.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['climedbench.cli.common', 'climedbench.cli.evaluate']"
    code = ("import sys; from climedbench.cli import app; "
            "print(len({c.name or c.callback.__name__ for c in app.registered_commands} | "
            "{g.name for g in app.registered_groups}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert int(out.stdout) == 20  # `from climedbench.cli import app` has every command
