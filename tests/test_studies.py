"""Every study folder is consistent with the code as it is: each scale's sweep
expands to valid specs, each expected relation compares values its sweep
takes, and each finding names a relation that exists. Fast: no run."""

from __future__ import annotations

import pytest

from g5net import check, sweep
from g5net.report.runs import fmt_value
from g5net.study import catalog

STUDIES = catalog.names()


def _scales(study: catalog.Study) -> list[str]:
    return [s for s in catalog.SCALES if (study.path / f"{s}.toml").is_file()]


def test_there_are_five_studies():
    assert len(STUDIES) == 5, STUDIES


@pytest.mark.parametrize("name", STUDIES)
def test_each_scale_expands_and_each_relation_compares_swept_values(name):
    """A relation whose key a scale does not sweep is not tested at that scale
    (the quick 10GbE study has no switch); some scale must sweep it."""
    study = catalog.load(name)
    relations = check.load(study.expect).relations
    swept_somewhere: set[str] = set()
    for scale in _scales(study):
        taken: dict[str, set[str]] = {}
        for p in sweep.load(study.spec(scale)).points:
            for key, value in p.params.items():
                taken.setdefault(key, set()).add(fmt_value(value))
        swept_somewhere |= set(taken)
        for r in relations:
            for label in (r.left_label, r.right_label) if r.by in taken else ():
                assert label in taken[r.by], \
                    f"{name} {scale}: relation {r.name!r}: {r.by} never takes {label!r} ({taken[r.by]})"
        for f in study.figures:
            assert f.x in taken, f"{name} {scale}: figure {f.name!r} plots against {f.x}, not swept"
    for r in relations:
        assert r.by in swept_somewhere, f"{name}: relation {r.name!r} is by {r.by}, swept by no scale"


@pytest.mark.parametrize("name", STUDIES)
def test_each_finding_names_a_relation_that_exists(name):
    study = catalog.load(name)
    relations = {r.name for r in check.load(study.expect).relations}
    for finding in study.findings:
        assert not finding.relation or finding.relation in relations, (name, finding.name)
