"""Run ids: every committed run's id, recomputed by the one identity function
from what its run.json holds, is the id it was committed under."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from g5net import engines
from g5net.artifacts.images import Image
from g5net.artifacts.kernels import Kernel
from g5net.engines.base import Artifacts, EngineInfo, Outcome
from g5net.engines.qemu import QemuEngine
from g5net.model import identity
from g5net.model import specs
from g5net.runners.execute import execute

REPO = Path(__file__).resolve().parents[1]
RECORDS = sorted([*REPO.glob("tests/fixtures/*/run.json"), *REPO.glob("studies/*/results/*/*/run.json")])


def engine_key(record: dict, run_json: Path) -> dict[str, str]:
    """The engine's part of the id, as run.json records it (`identity`). Runs
    recorded before it was kept hold the engine's name and digest; what a
    sampled run adds, the digest of the sampler's config, is in its study's
    provenance.json (recorded there when the results were saved)."""
    if "identity" in record:
        assert record["identity"]["version"] == identity.IDENTITY_VERSION
        return record["identity"]["engine"]
    key = {"name": record["engine"]["name"], "digest": record["engine"]["digest"]}
    experiment = record["spec"]["experiment"]
    assert experiment.get("processes", "one") == "one", "no per-host run was recorded without it"
    if experiment.get("pc_sample_us"):
        provenance = json.loads((run_json.parent.parent / "provenance.json").read_text())
        key["pc_sampling"] = provenance["sampled_config_digest"]
    return key


def test_there_are_committed_runs_to_check():
    assert len(RECORDS) >= 20
    assert any(json.loads(p.read_text())["spec"]["experiment"].get("pc_sample_us") for p in RECORDS)


@pytest.mark.parametrize("run_json", RECORDS, ids=lambda p: p.parent.name)
def test_a_committed_runs_id_is_recomputed_from_its_record(run_json: Path):
    record = json.loads(run_json.read_text())
    spec = specs.from_dict(record["spec"], source=str(run_json))
    artifacts = {name: a["digest"] for name, a in record["artifacts"].items()}
    assert identity.run_id(spec, artifacts, engine_key(record, run_json)) == record["run_id"]
    if run_json.parent.parent.name == "results":  # a study's runs keep their run directories' names
        assert run_json.parent.name.endswith(record["run_id"][:12])


def test_what_is_a_label_leaves_the_id_as_it_is():
    # A whole-life run, which per-host processes may measure too.
    record = json.loads((REPO / "tests" / "fixtures" / "gem5-quickstart" / "run.json").read_text())
    spec = specs.from_dict(record["spec"])
    artifacts = {name: a["digest"] for name, a in record["artifacts"].items()}
    engine = {"name": "gem5", "digest": "0" * 64}

    def run_id(**experiment) -> str:
        d = json.loads(json.dumps(record["spec"]))
        d["experiment"].update(experiment)
        return identity.run_id(specs.from_dict(d), artifacts, engine)
    same = identity.run_id(spec, artifacts, engine)
    assert run_id(name="renamed") == run_id(pc_sample_us=0) == run_id(processes="one") == same
    assert len({same, run_id(pc_sample_us=50), run_id(processes="per-host"), run_id(timeout_s=7200)}) == 4
    assert identity.run_id(spec, artifacts, {**engine, "digest": "1" * 64}) != same
    # A host key added since: at the value every host had before, no part of the id.
    steered = json.loads(json.dumps(record["spec"]))
    steered["hosts"]["server"]["nic"]["rps_cpus"] = []
    assert identity.run_id(specs.from_dict(steered), artifacts, engine) == same
    steered["hosts"]["server"]["nic"]["rps_cpus"] = [0]
    assert identity.run_id(specs.from_dict(steered), artifacts, engine) != same
    steered["hosts"]["server"]["nic"].update(rps_cpus=[], rx_wthresh=1)
    assert identity.run_id(specs.from_dict(steered), artifacts, engine) == same
    steered["hosts"]["server"]["nic"]["rx_wthresh"] = 63
    assert identity.run_id(specs.from_dict(steered), artifacts, engine) != same


class _SilentEngine(QemuEngine):
    """QEMU as found at /bin/true, whose hosts print nothing."""

    def info(self) -> EngineInfo:
        return EngineInfo("qemu", Path("/bin/true"), "0", "3" * 64)

    def run(self, spec, artifacts, rd, progress) -> Outcome:
        return Outcome(consoles={}, wall_s=0.0)


def test_a_run_records_what_its_id_is_recomputed_from(tmp_path, monkeypatch):
    monkeypatch.setattr(engines, "get", lambda name, options: _SilentEngine())
    spec = specs.load(REPO / "examples" / "quickstart.toml")
    kernel = Kernel("smp", tmp_path / "bz", tmp_path / "vm", tmp_path / "map", "1" * 64)
    arts = Artifacts({"smp": kernel}, Image(tmp_path / "img", "2" * 64))
    record = execute(spec, tmp_path / "results", progress=lambda m: None, arts=arts).read_run()
    assert record["identity"] == {"version": 1, "engine": {"name": "qemu", "digest": "3" * 64}}
    assert identity.run_id(spec, arts.digests(), record["identity"]["engine"]) == record["run_id"]
