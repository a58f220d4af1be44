"""`g5net study`: the published studies, each a resumable sweep with the
paper's figures beside ours."""

from __future__ import annotations

import argparse
import functools
import json
import sys
from pathlib import Path

from .. import runners
from ..errors import StudyError
from ..report import runs as runsmod
from ..study import builtin as catalog
from ..study import estimate, results
from ..study.report import write
from . import add_gem5_args
from .completion import words
from . import sweep as sweepcmd

EPILOG = """\
A study is a folder under studies/ (study.toml says what it holds): the sweep
at up to three scales, the paper's figures as data (paper.csv), the expected
directions as a g5net check file (expect.toml), and each scale's committed
results (results/SCALE/) and report (report/SCALE/).

  quick    one 2-core machine within 90 minutes from an empty checkpoint cache:
           one comparison of every finding the model can express
  medium   every finding in the paper's regime, within 150 minutes on 2 cores
           from an empty cache (kernel build and boots included)
  full     the paper's own grid, for SLURM

A scale's run takes the points its committed results already have instead of
running them, so a scale stopped on one machine, its finished points saved
and committed, resumes on another; a point two scales share (the same spec)
is taken from the other scale's committed results too.

  g5net study list
  g5net study run 10gbe --scale quick            # resumable: kill it, run it again
  g5net study run niagara2-nic --scale full --runner slurm --dry-run
  g5net study save 10gbe --scale quick           # commit the runs' small files
  g5net study report 10gbe                        # figures + summary table

Exit status: 0 done, 1 a point failed, 2 an unknown study or scale, stale
committed results, or a spec error.
"""

SCALE_HELP = ("quick: one 2-core machine within 90 minutes, one comparison of every finding; "
              "medium: every finding in the paper's regime within 150 minutes on 2 cores; "
              "full: the paper's own grid, for --runner slurm")


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("study", help="run and report the published studies (studies/)",
                       description="The published host-networking studies, redone in g5net: "
                                   "list them, run one at a scale, save and report its results.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    verbs = p.add_subparsers(dest="verb", metavar="VERB", required=True)
    studies = words(catalog.names())
    ls = verbs.add_parser("list", help="the studies, their scales and findings",
                          epilog="Example: g5net study list --json")
    ls.add_argument("--json", action="store_true", help="print the studies as a JSON list")
    ls.set_defaults(func=_list)

    run = verbs.add_parser(
        "run", help="run a study's sweep (resumable)",
        description="Run the sweep of one study at one scale, like `g5net sweep` on its "
                    "spec: points that already have a run are kept (a failed one too, unless "
                    "--retry-failed), so a run killed "
                    "part-way goes on where it stopped when started again; points whose run "
                    "the scale's committed results (studies/NAME/results/SCALE) hold, or "
                    "another scale's (a point both scales have), are copied from there "
                    "instead of run. Progress (points done of all, "
                    "elapsed, an estimate of what is left) goes to stderr. A dry run also "
                    "estimates each point's host hours from the committed runs' measured rates.",
        epilog="Then: g5net study save NAME --scale SCALE (commit the runs' small files; "
               "also while the sweep runs), g5net study report NAME (figures and summary table).\n"
               "Example: g5net study run 10gbe --scale quick\n"
               "         g5net study run 10gbe --scale quick --retry-failed\n"
               "         g5net study run 10gbe --scale full --dry-run",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    run.add_argument("name", help=f"the study: {', '.join(catalog.names())} (g5net study list)"
                     ).complete = studies
    run.add_argument("--scale", choices=catalog.SCALES, default="quick",
                     help=f"{SCALE_HELP} (default: %(default)s)")
    run.add_argument("--runner", choices=runners.RUNNERS, default="local",
                     help="run points on this machine, or as a SLURM job array "
                          "(default: %(default)s)")
    run.add_argument("--out", type=Path, metavar="DIR",
                     help="sweep directory (default: results/studies/NAME-SCALE)")
    run.add_argument("--jobs", type=sweepcmd._positive, metavar="N",
                     help="points run at once by the local runner (as for g5net sweep)")
    run.add_argument("--retry-failed", action="store_true",
                     help="also run again the points whose run failed or timed out (a point that "
                          "ran out of experiment.timeout_s while its boot was being made on a "
                          "busy machine restores that boot the second time)")
    run.add_argument("--dry-run", action="store_true",
                     help="list the points, run ids, boots and the resources each asks for, "
                          "with an estimate of the host hours each takes")
    run.add_argument("--json", action="store_true",
                     help="with --dry-run: a JSON list, one object per point (host_hours: the "
                          "estimate, null where there is none; what it rests on goes to stderr); "
                          "else, once the study's sweep ends, its summary as `g5net status "
                          "--json` prints it")
    run.add_argument("--slurm-flag", action="append", default=[], type=sweepcmd._flag,
                     metavar="KEY=VALUE",
                     help="extra sbatch flag for this site, e.g. partition=long (repeatable)")
    add_gem5_args(run)
    run.set_defaults(func=_run)

    save = verbs.add_parser(
        "save", help="commit a sweep's finished runs' small files under studies/NAME/results/SCALE",
        description="Replace the study's committed results of one scale with the finished runs "
                    "of its sweep directory: each run's run.json and results.json, and its "
                    "metrics.json derived again by this g5net (a run taken from the committed "
                    "results keeps its files as they are), with provenance.json (gem5 version, "
                    "configs digest). No stats.txt, consoles or checkpoints: a few hundred KB a "
                    "point. Cheap to repeat while the sweep runs: the points finished so far.",
        epilog="Then: g5net study report NAME --scale SCALE.\n"
               "Example: g5net study save 10gbe --scale quick\n"
               "         g5net study save 10gbe --from /shared/10gbe-quick --json",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    save.add_argument("name", help="the study (g5net study list)").complete = studies
    save.add_argument("--scale", choices=catalog.SCALES, default="quick",
                      help="the scale whose runs to save, into studies/NAME/results/SCALE "
                           "(default: %(default)s)")
    save.add_argument("--from", dest="source", type=Path, metavar="DIR",
                      help="sweep directory (default: results/studies/NAME-SCALE)")
    save.add_argument("--json", action="store_true",
                      help="print {\"results\": folder, \"runs\": count} as JSON")
    save.set_defaults(func=_save)

    report = verbs.add_parser(
        "report", help="figures with the paper's points, and the summary table",
        description="Draw the study's figures with the paper's points beside ours and write "
                    "report.md: every finding with the paper's figure, ours, and whether it "
                    "is reproduced, with the measured reason. From the committed results of "
                    "a scale unless --from names runs of your own.",
        epilog="Example: g5net study report niagara2-nic\n"
               "         g5net study report 10gbe --scale quick\n"
               "         g5net study report 10gbe --from results/studies/10gbe-quick --out /tmp/r",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    report.add_argument("name", help="the study (g5net study list)").complete = studies
    report.add_argument("--scale", choices=catalog.SCALES,
                        help="the scale whose committed results to report (default: the largest "
                             "scale that has committed results)")
    report.add_argument("--from", dest="source", type=Path, metavar="DIR",
                        help="a sweep directory or folder of runs (default: the committed results)")
    report.add_argument("--out", type=Path, metavar="DIR",
                        help="report folder (default: studies/NAME/report/SCALE under the working "
                             "directory: in a checkout's root, the committed report)")
    report.add_argument("--json", action="store_true",
                        help="print the report's path and the summary table's rows as JSON")
    report.set_defaults(func=_report)


def _default_dir(name: str, scale: str) -> Path:
    return Path("results") / "studies" / f"{name}-{scale}"


def _list(args: argparse.Namespace) -> int:
    studies, damaged = [], []
    for name in catalog.names():
        try:
            studies.append(catalog.load(name))
        except StudyError as e:  # the others are still worth listing
            damaged.append(str(e))
    for line in damaged:
        print(f"g5net study list: damaged study: {line}", file=sys.stderr)
    if args.json:
        print(json.dumps([{"name": s.name, "title": s.title, "paper": s.paper, "scales": s.scales,
                           "figures": [f.name for f in s.figures],
                           "findings": [f.name for f in s.findings]} for s in studies], indent=1))
        return 2 if damaged else 0
    for s in studies:
        print(f"{s.name:<16} {s.title}\n{'':<16} {s.paper}\n{'':<16} scales: {', '.join(s.scales)}; "
              f"{len(s.figures)} figures, {len(s.findings)} findings")
    return 2 if damaged else 0


def _run(args: argparse.Namespace) -> int:
    """`g5net sweep` on the study's spec, its arguments parsed by the CLI's own
    parser: every option of the sweep keeps its default. The committed results
    of the scale stand in for the points they hold."""
    from .. import cli  # the CLI imports this module: not at import time
    study = catalog.load(args.name)
    argv = ["sweep", str(study.spec(args.scale)), "--runner", args.runner,
            "--out", str(args.out or _default_dir(args.name, args.scale))]
    argv += ["--jobs", str(args.jobs)] * bool(args.jobs) + ["--dry-run"] * args.dry_run
    argv += ["--retry-failed"] * args.retry_failed
    argv += ["--json"] * args.json
    argv += ["-q"] * args.quiet + [f"--gem5-arg={a}" for a in args.gem5_arg]
    argv += [f"--slurm-flag={k}={v}" for k, v in args.slurm_flag]
    return sweepcmd.main(cli.build_parser().parse_args(argv),
                         adopt=functools.partial(results.adopt, study, args.scale),
                         estimate=estimate.host_time)


def _save(args: argparse.Namespace) -> int:
    study = catalog.load(args.name)
    n = results.save(study, args.scale, args.source or _default_dir(args.name, args.scale))
    if args.json:
        print(json.dumps({"results": str(study.results(args.scale)), "runs": n}))
    else:
        print(f"{study.results(args.scale)}: {n} runs saved")
    return 0


def _report(args: argparse.Namespace) -> int:
    study = catalog.load(args.name)
    if args.source:
        # Where no results are committed, the report of runs of one's own goes beside the smallest scale's.
        scale = args.scale or (results.committed(study) or study.scales[:1] or [catalog.SCALES[0]])[-1]
        source, label, made = args.source, str(args.source), {}
    else:
        scale = args.scale or results.largest(study)
        source, label, made = study.results(scale), results.label(study, scale), \
            results.check_current(study, scale)
    out = args.out or Path("studies") / study.name / "report" / scale
    path, rows = write(study, runsmod.load(source), label, made, out)
    if args.json:
        print(json.dumps({"report": str(path), "findings": [
            {"name": r.finding.name, "finding": r.finding.text, "paper": r.finding.paper,
             "g5net": r.g5net, "reproduced": r.verdict, "why": r.finding.why_at(scale)} for r in rows]}, indent=1))
        return 0
    print(f"{path}: {sum(r.verdict == 'yes' for r in rows)} of {len(rows)} findings reproduced")
    return 0
