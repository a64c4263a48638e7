"""Every hone report keeps one contract: the envelope in schemas/envelope.schema.json around a body described by
schemas/<report>.schema.json. Validates the reports the C++ end-to-end tests wrote (copied to
<build>/test-reports/ by cli/run_hone_test_util.h's ReadReport) and one report of each subcommand run here,
`--json -` included."""

from __future__ import annotations

import json
import pathlib
import subprocess

import jsonschema
import pytest
from referencing import Registry, Resource

from hone_server import ROOT

SCHEMAS = ROOT / "schemas"
MODEL = ROOT / "models" / "fashion_mnist" / "model.onnx"
DATA = ROOT / "models" / "fashion_mnist" / "test.npz"
KINDS = ["info", "bench", "compare", "evaluate", "quantize", "prune", "convert", "profile", "tune"]
# tune writes OUT/report.json rather than --json: tests/python/test_tune.py validates the one it writes.
STDOUT_KINDS = [k for k in KINDS if k != "tune"]
QUICK_BENCH = ["--window-ms", "100", "--min-duration-s", "0.1", "--warmup-s", "0.1", "--min-requests", "10",
               "--quiet"]


def _registry() -> Registry:
    resources = []
    for path in SCHEMAS.glob("*.schema.json"):
        schema = json.loads(path.read_text())
        resources.append((schema["$id"], Resource.from_contents(schema)))
    return Registry().with_resources(resources)


REGISTRY = _registry()


def validate(report: dict) -> None:
    kind = report.get("report")
    assert kind in KINDS, f"unknown report kind {kind!r}"
    schema = json.loads((SCHEMAS / f"{kind}.schema.json").read_text())
    jsonschema.Draft202012Validator(schema, registry=REGISTRY).validate(report)


def test_every_schema_is_a_valid_schema():
    for path in SCHEMAS.glob("*.schema.json"):
        jsonschema.Draft202012Validator.check_schema(json.loads(path.read_text()))
    assert {p.name.split(".")[0] for p in SCHEMAS.glob("*.schema.json")} == set(KINDS) | {"envelope"}


def test_the_reports_the_cpp_tests_wrote(hone_bin):
    reports = sorted((pathlib.Path(hone_bin).parent / "test-reports").glob("*.json"))
    if not reports:
        pytest.skip("no <build>/test-reports/: run ctest first (scripts/test does)")
    kinds = set()
    for path in reports:
        report = json.loads(path.read_text())
        try:
            validate(report)
        except jsonschema.ValidationError as e:
            pytest.fail(f"{path.name}: {e.message} at {list(e.absolute_path)}", pytrace=False)
        kinds.add(report["report"])
    assert kinds == set(KINDS), f"the C++ tests wrote no {set(KINDS) - kinds} report"


def run(hone_bin, *args) -> subprocess.CompletedProcess:
    return subprocess.run([str(hone_bin), *map(str, args)], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("kind", STDOUT_KINDS)
def test_each_subcommand_writes_a_valid_report_to_standard_output(hone_bin, tmp_path, kind):
    args = {
        "info": [MODEL],
        "bench": [MODEL, "--concurrency", "1", *QUICK_BENCH],
        "compare": [MODEL, MODEL, "--data", DATA],
        "evaluate": [MODEL, "--data", DATA],
        # Two bench rounds: the speed comparison and the source's spread are in the report.
        "quantize": [MODEL, "-o", tmp_path / "q.onnx", "--mode", "dynamic", "--data", DATA, "--bench-rounds", "2",
                     "--bench-window-ms", "100", "--quiet"],
        # The bundled CNN loses a quarter of fc1's neurons (its Convs' channels are whole blocks at a quarter); exit 0
        # or 1 by the verdict, a valid report either way.
        "prune": [MODEL, "-o", tmp_path / "p.onnx", "--calibration-data", DATA, "--calibration-samples", "100",
                  "--quiet"],
        "convert": [MODEL, "-o", tmp_path / "h.onnx", "--to", "fp16", "--data", DATA, "--no-bench", "--quiet"],
        "profile": [MODEL, "--data", DATA, "--runs", "5"],
    }[kind]
    r = run(hone_bin, kind, *args, "--json", "-")
    assert r.returncode in (0, 1), r.stderr
    report = json.loads(r.stdout)  # nothing but the report on standard output; the text went to standard error
    assert r.stderr, "the text report should be on standard error"
    validate(report)
    assert report["model"]["path"] == str(MODEL)
    assert report["command"][1:3] == [kind, str(args[0])]


def test_bench_of_a_server_names_the_served_model(hone_bin, serve, repo, tmp_path):
    repo.add_fashion("fashion")
    server = serve(repo.path)
    for protocol, url in (("http", server.http_url), ("grpc", server.grpc_url)):
        out = tmp_path / f"{protocol}.json"
        r = run(hone_bin, "bench", "fashion", "--url", url, "--protocol", protocol, "--concurrency", "1",
                *QUICK_BENCH, "--json", out)
        assert r.returncode in (0, 1), r.stderr
        report = json.loads(out.read_text())
        validate(report)
        model = report["model"]
        assert (model["name"], model["url"], model["protocol"], model["path"]) == ("fashion", url, protocol, None)
        assert model["inputs"][0]["name"] == "image"


def test_profile_of_a_server_splits_the_served_path(hone_bin, serve, repo, tmp_path):
    repo.add_fashion("fashion")
    server = serve(repo.path)
    for protocol, url in (("http", server.http_url), ("grpc", server.grpc_url)):
        out = tmp_path / f"profile-{protocol}.json"
        r = run(hone_bin, "profile", "fashion", "--url", url, "--protocol", protocol, "--json", out)
        assert r.returncode == 0, r.stderr
        assert "server: queue" in r.stdout
        report = json.loads(out.read_text())
        validate(report)
        assert (report["model"]["name"], report["model"]["protocol"]) == ("fashion", protocol)
        body = report["profile"]
        assert body["target"] == "server"
        split = body["served"]["split"]
        assert split["has_server"] and split["total_us"] > 0
        assert body["served"]["requests"] > 0
