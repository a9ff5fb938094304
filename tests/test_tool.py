"""cdmasim as a tool: every option says what it does, the examples describe
themselves in a sentence, the README's outputs table is what `--out`
writes, a scenario given to `sweep` says so, and the README's commands name
examples that resolve from anywhere."""

import argparse
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def cli(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "cdmasim.cli", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=300, env={"PYTHONPATH": str(ROOT / "python"), "PATH": "/usr/bin:/bin"})


def test_every_option_and_argument_has_help():
    from cdmasim.cli import build_parser

    missing = []

    def walk(p, path):
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                for name, sp in a.choices.items():
                    walk(sp, path + [name])
            elif not isinstance(a, (argparse._HelpAction, argparse._VersionAction)) and not a.help:
                missing.append((" ".join(path), a.option_strings or a.dest))

    walk(build_parser(), ["cdmasim"])
    assert missing == []


def test_each_example_is_described_by_a_whole_sentence():
    from cdmasim import examples_data

    for name in examples_data.names():
        line = examples_data.summary(name)
        # A sentence: it ends with a full stop, not in "Fig." or "et al.".
        assert line.endswith(".") and not re.search(r"(Fig|al|eq)\.$", line), (name, line)
        assert len(line) > 40, (name, line)


def test_the_readme_lists_every_file_out_writes(tmp_path):
    # The README's list of tables is the one the schema generates, and it
    # names every file `--out` writes (summary.json in the text above it).
    import cdmasim
    from cdmasim.result import markdown

    written = cdmasim.run(EXAMPLES / "generic.toml").to_dir(tmp_path / "out")
    names = sorted(Path(p).name for p in written)
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## Outputs"):readme.index("## Channel statistics")]
    begin, end = "<!-- tables: python -m cdmasim.result -->\n", "<!-- /tables -->"
    block = section[section.index(begin) + len(begin):section.index(end)]
    assert block == markdown(), "README.md's list of tables is stale: regenerate it with python -m cdmasim.result"
    listed = {"summary.json"} | set(re.findall(r"^\| `([a-z0-9_]+\.parquet)` \|", block, re.M))
    assert sorted(listed) == names
    assert "`summary.json`" in section[:section.index(begin)]


def test_the_column_reference_is_current_and_describes_every_column():
    # docs/results.md is what the schema generates, and every column of
    # every table (wide and long, as Result builds them) has its text.
    from cdmasim.result import column_docs, columns, long_columns, reference, table_names

    assert (ROOT / "docs" / "results.md").read_text() == reference(), \
        "docs/results.md is stale: regenerate it with python -m cdmasim.result --reference > docs/results.md"
    for name in table_names():
        docs = column_docs(name)
        try:
            cols = columns(name)
        except KeyError:  # a long table
            cols = [c for c, _ in long_columns(name)]
        assert set(cols) <= set(docs) and all(docs[c].strip() for c in cols), name


def test_a_scenario_given_to_sweep_says_what_it_is(tmp_path):
    p = cli("sweep", EXAMPLES / "dumbbell.toml", "--store", tmp_path / "st")
    assert p.returncode == 2 and p.stderr.count("\n") == 1
    assert "this is a scenario, not a sweep" in p.stderr and "cdmasim run" in p.stderr
    assert not (tmp_path / "st").exists()


def test_the_readmes_example_names_resolve_from_any_folder(tmp_path):
    # `cdmasim run examples/dumbbell.toml` and `cdmasim run dumbbell` from a
    # folder that has no examples/ (as from a wheel): the shipped example.
    for name in ("examples/dumbbell.toml", "dumbbell", "dumbbell.toml"):
        p = cli("run", name, "--json", "--quiet", cwd=tmp_path)
        assert p.returncode == 0 and '"seed": 1' in p.stdout, (name, p.stderr)
    # A file of that name in the folder wins.
    (tmp_path / "dumbbell.toml").write_text((EXAMPLES / "generic.toml").read_text())
    p = cli("run", "dumbbell.toml", "--json", "--quiet", cwd=tmp_path)
    assert p.returncode == 0 and '"seed": 7' in p.stdout, p.stderr
    # A name that is neither a file nor an example is the usual one line.
    p = cli("run", "examples/nosuch.toml", cwd=tmp_path)
    assert p.returncode == 2 and "examples/nosuch.toml: cannot read: No such file or directory" in p.stderr


def test_the_scenario_reference_shows_the_keys_the_parser_takes():
    # docs/scenario.md's tables of keys are what the core describes (the
    # parser takes those keys, with the defaults shown), every described
    # table is under a mark, and a stale table is named.
    from cdmasim import scenario_doc

    text = (ROOT / "docs" / "scenario.md").read_text()
    assert scenario_doc.update(text) == text, \
        "docs/scenario.md's tables of keys are stale: regenerate them with python -m cdmasim.scenario_doc"
    names = [t["name"] for t in scenario_doc.tables()]
    assert {"simulation", "link", "queue.red", "flow", "tcp", "tcp.rbsmq", "dumbbell", "sector", "sector.rab",
            "user.reverse_mac", "sch.demand", "drc", "http", "is2000_sector.power.link_budget"} <= set(names)
    for t in scenario_doc.tables():
        assert f"| key ({t['heading']}) |" in text, t["name"]
        for k in t["keys"]:
            assert k["help"].strip() and (k["default"] == "required" or k["default"]), (t["name"], k)
            assert f"| `{k['key']}` |" in text, (t["name"], k["key"])
    stale = text.replace("| `alpha` | `0.001` |", "| `alpha` | `0.01` |")
    assert stale != text and scenario_doc.update(stale) == text
    assert scenario_doc.main(["--check", str(ROOT / "docs" / "scenario.md")]) == 0
    unmarked = text.replace("<!-- keys: user -->", "")
    with pytest.raises(KeyError, match="user"):
        scenario_doc.update(unmarked)



def test_the_scenario_reference_tool_writes_whole_and_fails_in_one_line(tmp_path, capsys):
    # It rewrites a stale copy in place (through a link, the file linked
    # to), leaves a user's files beside it alone, and a file it cannot
    # read or that has no mark is one line on stderr with exit code 2.
    from cdmasim import scenario_doc

    current = (ROOT / "docs" / "scenario.md").read_text()
    doc = tmp_path / "scenario.md"
    doc.write_text(current.replace("| `alpha` | `0.001` |", "| `alpha` | `0.01` |"))
    link = tmp_path / "link.md"
    link.symlink_to(doc)
    mine = tmp_path / "scenario.md.tmp"
    mine.write_text("the user's")
    assert scenario_doc.main(["--check", str(link)]) == 1
    assert scenario_doc.main([str(link)]) == 0
    assert link.is_symlink() and doc.read_text() == current and mine.read_text() == "the user's"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.md", "scenario.md", "scenario.md.tmp"]
    capsys.readouterr()
    for bad, says in [(tmp_path / "missing.md", "No such file"), (tmp_path, "Is a directory"), (mine, "no <!-- keys: NAME --> mark")]:
        assert scenario_doc.main([str(bad)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and says in err and err.startswith("cdmasim.scenario_doc: "), err
