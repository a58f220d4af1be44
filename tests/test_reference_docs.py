"""docs/spec.md and docs/metrics.md are what the code says, and `g5net spec
--schema` describes every spec we ship."""

import contextlib
import io
import json
import tomllib

import jsonschema
import pytest
from conftest import EXAMPLES, REPO

from g5net import cli
from g5net.errors import SpecError
from g5net.model import specs
from g5net.model.keys import tables, undocumented
from g5net.report.reference_docs import FILES, REGENERATE

SHIPPED = sorted([*EXAMPLES.glob("*.toml"), *REPO.glob("studies/*/quick.toml"),
                  *REPO.glob("studies/*/full.toml")])


@pytest.mark.parametrize("name", sorted(FILES))
def test_the_docs_are_current(name):
    path = REPO / "docs" / name
    assert path.is_file() and path.read_text() == FILES[name](), \
        f"docs/{name} is not what the code says: regenerate it with `{REGENERATE}`"


def test_every_spec_key_has_a_doc():
    assert undocumented() == [], "give these fields a doc= in g5net/spec.py"


def test_the_spec_reference_names_every_key():
    text = FILES["spec.md"]()
    for t in tables():
        assert f"## `[{t.path}]`" in text
        for k in t.keys:
            assert f"| `{k.name}` |" in text


@pytest.fixture(scope="module")
def validator():
    """A validator of the schema `g5net spec --schema` prints."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["spec", "--schema"]) == 0
    schema = json.loads(out.getvalue())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(REPO)))
def test_the_schema_accepts_every_shipped_spec(validator, path):
    errors = [f"{'.'.join(map(str, e.absolute_path))}: {e.message}"
              for e in validator.iter_errors(tomllib.loads(path.read_text()))]
    assert not errors


BAD = [
    ({"experiment": {"engine": "bochs"}}, "experiment.engine"),
    ({"experiment": {"colour": "red"}}, "experiment.colour"),
    ({"host": {"cpu": {"cores": 0}}}, "host.cpu.cores"),
    ({"host": {"nic": {"mtu": 20000}}}, "host.nic.mtu"),
    ({"link": {"speed_gbps": "fast"}}, "link.speed_gbps"),
    ({"workloads": {"stream": {"kind": "ping"}}}, "workloads.stream.kind"),
]


@pytest.mark.parametrize("change,key", BAD, ids=[k for _, k in BAD])
def test_the_schema_rejects_what_g5net_rejects(validator, quickstart_text, change, key):
    data = tomllib.loads(quickstart_text)
    for table, values in change.items():
        for k, v in values.items():
            if isinstance(v, dict):
                data.setdefault(table, {}).setdefault(k, {}).update(v)
            else:
                data.setdefault(table, {})[k] = v
    assert not list(validator.iter_errors(tomllib.loads(quickstart_text)))
    assert list(validator.iter_errors(data)), f"the schema takes a bad {key}"
    with pytest.raises(SpecError, match=r"\.".join(key.split(".")[1:])):
        specs.from_dict(data)
