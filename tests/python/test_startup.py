"""A server that fails loudly at start-up: a folder that is not a repository, a port in use (found before any
model loads), a model that fails to load (--exit-on-error), a Triton field hone does not support yet, the thread
split over every model, GET /v2's version, and the log options (--log-verbose, --log-info, --log-format json)."""

from __future__ import annotations

import json
import pathlib
import re
import socket
import subprocess

import pytest

from hone_server import free_ports, http_get
from model_repo import fashion_config

ROOT = pathlib.Path(__file__).resolve().parents[2]
RUN_TIMEOUT_S = 60  # a start-up that fails must fail by itself; this only stops a hang


def run_serve(hone_bin, repository, *args, ports: dict | None = None) -> subprocess.CompletedProcess:
    """`hone serve` on free ports (or those of `ports`, by flag), expected to exit by itself (a failure at
    start-up)."""
    chosen = dict(zip(("--http-port", "--grpc-port", "--metrics-port"), free_ports(3)))
    chosen.update(ports or {})
    argv = [str(hone_bin), "serve", "--model-repository", str(repository),
            *[str(x) for flag_port in chosen.items() for x in flag_port], *map(str, args)]
    return subprocess.run(argv, capture_output=True, text=True, timeout=RUN_TIMEOUT_S, stdin=subprocess.DEVNULL)


LAYOUT = "<repository>/<model>/config.pbtxt (optional) and <repository>/<model>/<version>/model.onnx"


# --- the repository ---------------------------------------------------------------------------------------------

def test_empty_repository_fails_saying_what_a_repository_looks_like(hone_bin, tmp_path):
    r = run_serve(hone_bin, tmp_path)
    assert r.returncode == 2, r.stderr
    assert f"model repository '{tmp_path}' holds no model: it is empty" in r.stderr
    assert LAYOUT in r.stderr
    assert "ready" not in r.stderr


def test_a_models_own_folder_points_at_its_parent(hone_bin, repo):
    repo.add_fashion("fashion")
    r = run_serve(hone_bin, repo.path / "fashion")
    assert r.returncode == 2, r.stderr
    assert "it looks like a model's own folder (it has config.pbtxt, version folder '1')" in r.stderr
    assert f"did you mean its parent, '{repo.path}'?" in r.stderr


def test_a_typo_is_no_such_directory(hone_bin, tmp_path):
    r = run_serve(hone_bin, tmp_path / "modles")
    assert r.returncode == 2, r.stderr
    assert f"model repository '{tmp_path / 'modles'}': no such directory" in r.stderr and LAYOUT in r.stderr


def test_explicit_mode_may_start_empty(serve, tmp_path):
    server = serve(tmp_path, "--model-control-mode", "explicit")
    status, _, _ = http_get(server.http_url, "/v2/health/ready")
    assert status == 200


# --- ports ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("flag", ["--http-port", "--grpc-port", "--metrics-port"])
def test_a_port_in_use_is_one_message_before_any_model_loads(hone_bin, repo, flag):
    repo.add_fashion("fashion")
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    try:
        r = run_serve(hone_bin, repo.path, ports={flag: port})
    finally:
        taken.close()
    assert r.returncode == 2, r.stderr
    assert f"hone serve: {flag} {port}: cannot listen on 127.0.0.1:{port}: address already in use" in r.stderr
    assert "loading" not in r.stderr, "a model loaded before the port was found in use"
    assert "chttp2" not in r.stderr, "gRPC's own log of the failure leaked out"


# --- models that fail to load -----------------------------------------------------------------------------------

def test_exit_on_error_is_the_default_and_names_the_model(hone_bin, repo):
    repo.add_fashion("fashion")
    repo.add_broken("broken")
    r = run_serve(hone_bin, repo.path)
    assert r.returncode == 1, r.stderr
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("hone serve: failed to load model 'broken'") and "not an ONNX model" in last, last
    assert "--exit-on-error=false" in last


def test_exit_on_error_false_keeps_serving_live_and_not_ready(serve, repo):
    repo.add_fashion("fashion")
    repo.add_broken("broken")
    server = serve(repo.path, "--exit-on-error", "false", wait="live")
    server.wait_for_log("server live, not ready")  # the start-up loads are done
    assert "serving without the models that failed to load: failed to load model 'broken'" in server.log()
    assert http_get(server.http_url, "/v2/health/ready")[0] != 200
    assert http_get(server.http_url, "/v2/models/fashion/ready")[0] == 200
    assert server.running()


@pytest.mark.parametrize("config, said", [
    ('name: "ens"\nsequence_batching { }\n',
     "/ens/config.pbtxt:2:1: hone does not support 'sequence_batching' in ModelConfig yet"),
    ('name: "ens"\nplatform: "ensemble"\nensemble_scheduling { step [ ] }\n',
     "/ens/config.pbtxt: platform 'ensemble': expected ensemble_scheduling with at least one step"),
    ('name: "ens"\nbackend: "python"\n',
     "/ens/config.pbtxt: hone does not support backend 'python' (Triton's Python backend) yet"),
    ('name: "ens"\nmax_batch: 4\n',
     "/ens/config.pbtxt:2:1: unknown field 'max_batch' in ModelConfig (did you mean 'max_batch_size'?)"),
])
def test_triton_fields_hone_lacks_say_not_supported_yet(hone_bin, repo, config, said):
    repo.add_fashion("ens", config=config)
    r = run_serve(hone_bin, repo.path)
    assert r.returncode == 1, r.stderr
    assert "model 'ens'" in r.stderr and said in r.stderr, r.stderr


# --- threads ----------------------------------------------------------------------------------------------------

def test_threads_are_split_over_every_model(serve, repo):
    repo.add_fashion("a")
    repo.add_fashion("b", config=fashion_config("b", extra="instance_group [ { count: 2 } ]\n"))
    server = serve(repo.path, "--cores", "6")
    log = server.log()
    for model in ("a", "b"):
        status, body, _ = http_get(server.http_url, f"/v2/models/{model}/config")
        assert status == 200
        assert json.loads(body)["parameters"]["intra_op_thread_count"]["string_value"] == "2", body
        assert (f"model '{model}': 2 intra-op thread(s) per instance x {1 if model == 'a' else 2} instance(s): "
                "6 core(s) split over 3 instance(s) of 2 model(s)") in log, log


# --- GET /v2 ----------------------------------------------------------------------------------------------------

def test_server_version_is_the_project_version(serve, repo):
    repo.add_fashion("fashion")
    server = serve(repo.path)
    status, body, _ = http_get(server.http_url, "/v2")
    assert status == 200
    project = re.search(r"project\(hone VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text()).group(1)
    assert json.loads(body)["version"] == project


# --- logs -------------------------------------------------------------------------------------------------------

def test_json_log_format_is_one_object_a_line_with_the_model(serve, repo):
    repo.add_fashion("fashion")
    server = serve(repo.path, "--log-format", "json")
    http_get(server.http_url, "/v2/health/ready")
    server.stop()
    lines = [line for line in server.log().splitlines() if not line.startswith("$ ")]
    records = [json.loads(line) for line in lines]  # every line parses
    assert all({"timestamp", "level", "message"} <= r.keys() for r in records), records
    assert all(r["timestamp"].endswith("Z") for r in records)
    ready = [r for r in records if r["message"] == "model 'fashion': ready"]
    assert ready and ready[0]["level"] == "INFO" and ready[0]["model"] == "fashion", records


def test_json_log_format_carries_start_up_failures(hone_bin, tmp_path):
    r = run_serve(hone_bin, tmp_path, "--log-format", "json")
    assert r.returncode == 2
    record = json.loads(r.stderr.strip().splitlines()[-1])
    assert record["level"] == "ERROR" and "holds no model" in record["message"]


def test_log_verbosity_and_levels(serve, repo):
    repo.add_fashion("fashion")
    server = serve(repo.path, "--log-verbose", "2", "--log-info", "false")
    http_get(server.http_url, "/v2/models/fashion")
    server.stop()
    log = server.log()
    assert re.search(r"^V \S+Z http: GET /v2/models/fashion ", log, re.M), log
    assert not re.search(r"^I ", log, re.M), log


def test_bad_log_format_is_a_usage_error(hone_bin, repo):
    repo.add_fashion("fashion")
    r = run_serve(hone_bin, repo.path, "--log-format", "xml")
    assert r.returncode == 2 and "--log-format 'xml': expected text or json" in r.stderr
