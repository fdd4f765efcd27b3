"""The JSON Schema of `manifest.json` (features/bundle/schema.py): real manifests, whole and sharded,
validate against it, and the ways a manifest can be wrong are refused by it."""

from __future__ import annotations

import copy

import jsonschema
import pytest

from promptc.features import bundle

from support.bundles import read_manifest
from support.paths import EXAMPLES

SCHEMA = bundle.manifest_schema()


def _errors(document: object) -> list[str]:
    validator = jsonschema.Draft202012Validator(SCHEMA)
    return [error.message for error in validator.iter_errors(document)]


def test_the_schema_is_a_valid_draft_2020_12_schema_naming_its_version():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["properties"]["format_version"] == {"const": bundle.FORMAT_VERSION}
    assert SCHEMA["$id"].endswith(f":{bundle.FORMAT_VERSION}")


def test_real_manifests_validate(run_cli, bundle_args, write_yaml, tmp_path):
    assert run_cli(*bundle_args)[0] == 0
    assert _errors(read_manifest(tmp_path / "bundle")) == []
    matrix = write_yaml("tiers.yaml", "modes: [full, minimal, none]\nchat_types: [direct, group]\n")
    args = ["bundle", "--matrix", matrix, "--workspace", EXAMPLES / "workspace", "--shard", "2/2"]
    assert run_cli(*args, "--out", tmp_path / "shard")[0] == 0
    shard = read_manifest(tmp_path / "shard")
    assert shard["shard"]["index"] == 2 and _errors(shard) == []


@pytest.mark.parametrize(
    ("change", "complaint"),
    [
        (lambda m: m.update(format_version=1), "2 was expected"),
        (lambda m: m.pop("default_agent"), "'default_agent' is a required property"),
        (lambda m: m["variants"][0].update(stable_sha256="abc"), "does not match '^[0-9a-f]{64}$'"),
        (lambda m: m["variants"][0].update(session="nightly"), "'nightly' is not one of"),
        (lambda m: m["variants"][0]["tiers"][0].update(ttl="2h"), "'2h' is not one of ['5m', '1h']"),
        (lambda m: m["variants"][0].update(extra=1), "Additional properties are not allowed ('extra' was unexpected)"),
    ],
)
def test_a_manifest_gone_wrong_is_refused(run_cli, small_args, tmp_path, change, complaint):
    assert run_cli(*small_args, "--out", tmp_path / "b")[0] == 0
    manifest = copy.deepcopy(read_manifest(tmp_path / "b"))
    change(manifest)
    assert any(complaint in error for error in _errors(manifest)), _errors(manifest)
