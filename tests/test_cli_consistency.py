"""What every g5net command shares: -q and -v, --json where it reports, --out
for folders and -o for files, flag combinations refused by name, and shell
completion generated from the same parser."""

import json
import subprocess
import sys

import pytest

from g5net import cli
from conftest import REPO
from test_metrics_fixtures import make_sweep

# Commands that print a result without --json, and why.
NO_JSON = {
    "console": "a live serial console, not a report",
    "spec": "prints the reference as Markdown; --schema is its JSON form",
    "completion": "prints a shell script",
    "artifacts build": "being reworked beside this change (issue 15, item 9)",
}


def commands():
    """(name, parser) of every command that runs, `artifacts build` included."""
    out = []
    for name, p in cli.build_parser()._subparsers._group_actions[0].choices.items():
        leaves = cli.leaves(p)
        out += [(name if leaf is p else f"{name} {leaf.prog.split()[-1]}", leaf) for leaf in leaves]
    return out


def options(p):
    return {o for a in p._actions for o in a.option_strings}


def test_every_command_has_quiet_and_verbose_and_json_where_it_reports():
    found = commands()
    assert len(found) >= 18
    for name, p in found:
        assert {"-q", "--quiet", "-v", "--verbose"} <= options(p), name
        assert ("--json" in options(p)) != (name in NO_JSON), name


def test_out_is_a_folder_and_o_a_file_everywhere():
    for name, p in commands():
        for a in p._actions:
            if "--out" in a.option_strings:
                assert a.metavar == "DIR", name
            if "-o" in a.option_strings:
                assert a.metavar == "FILE" and "--out" not in a.option_strings, name


def test_quiet_and_verbose_together_is_an_error_naming_both(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["status", "x", "-q", "-v"])
    assert e.value.code == 2
    assert "argument -v/--verbose: not allowed with argument -q/--quiet" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["--no-wait"], "--no-wait apply to --runner slurm only"),
    (["--slurm-flag", "partition=long"], "--slurm-flag apply to --runner slurm only"),
    (["--runner", "slurm", "--dry-run", "--no-wait"], "--dry-run submits nothing: --no-wait does not go with it"),
])
def test_sweep_flags_that_do_not_go_together_are_errors(tmp_path, capsys, argv, message):
    spec = REPO / "examples" / "sweep-quick.toml"
    assert cli.main(["sweep", str(spec), "--out", str(tmp_path / "s"), *argv]) == 2
    assert capsys.readouterr().err == f"g5net sweep: error: {message}\n"
    assert not (tmp_path / "s").exists()


def test_verbose_prints_the_cause_of_an_error(tmp_path, capsys):
    assert cli.main(["status", str(tmp_path / "missing"), "-v"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"g5net status: error: {tmp_path / 'missing'}: no such directory")
    assert "Traceback (most recent call last)" in err and "StoreError" in err
    assert cli.main(["status", str(tmp_path / "missing")]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_collect_check_and_report_print_json(tmp_path, capsys):
    sweep = make_sweep(tmp_path / "sweep")
    assert cli.main(["collect", str(sweep), "-o", str(tmp_path / "t.csv"), "--json"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and json.loads(out)["rows"] == 6 and json.loads(out)["output"] == str(tmp_path / "t.csv")

    expect = tmp_path / "expect.toml"
    expect.write_text('bounds = ["throughput_mbps > 100"]\n')
    assert cli.main(["check", str(sweep), "--expect", str(expect), "--json"]) == 1
    result = json.loads(capsys.readouterr().out)
    assert result["runs"] == 6 and result["failures"] and all("throughput_mbps" in f for f in result["failures"])

    assert cli.main(["report", str(sweep), "--out", str(tmp_path / "r"), "--json"]) == 0
    files = json.loads(capsys.readouterr().out)
    assert str(tmp_path / "r" / "report.md") in files and str(tmp_path / "r" / "breakdown.svg") in files


@pytest.mark.parametrize("shell, marker", [("bash", "complete -o"), ("zsh", "#compdef g5net")])
def test_completion_scripts_know_every_command_and_its_flags(shell, marker):
    pytest.importorskip("shtab")
    done = subprocess.run([sys.executable, "-m", "g5net", "completion", shell], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert marker in done.stdout
    for name in cli.COMMANDS:
        assert name in done.stdout
    assert "--retry-failed" in done.stdout and "--hue" in done.stdout


def test_bash_completes_study_names_and_dump_words(tmp_path):
    """The generated script in a real bash: what TAB offers after a partial word."""
    pytest.importorskip("shtab")
    script = tmp_path / "g5net.bash"
    script.write_text(subprocess.run([sys.executable, "-m", "g5net", "completion", "bash"],
                                     cwd=REPO, capture_output=True, text=True, timeout=60,
                                     check=True).stdout)

    def offered(line):
        words = line.split(" ")
        probe = (f'source {script}; COMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; '
                 f'COMP_LINE="{line}"; COMP_POINT=${{#COMP_LINE}}; _shtab_g5net; '
                 f'printf "%s\\n" "${{COMPREPLY[@]}}"')
        done = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return sorted(done.stdout.split())

    assert offered("g5net study run ni") == ["niagara2-nic"]
    assert offered("g5net study report ") == sorted(p.parent.name for p in REPO.glob("studies/*/study.toml"))
    assert offered("g5net stats m5out/stats.txt --dump a") == ["all"]
    assert offered("g5net stats m5out/stats.txt --dump ") == ["all", "last"]


def test_every_command_shows_an_example_in_its_help():
    for name, p in commands():
        text = f"{p.description or ''}\n{p.epilog or ''}"
        assert "Example" in text and f"g5net {name.split()[0]}" in text, name
