"""The model repository through the API: explicit load and unload, versions and version policies, a bad new
version that leaves the old one serving, poll mode, and what control mode none refuses."""

from __future__ import annotations

import time

import numpy as np
import pytest

import clients as c
from clients import InferenceServerException
from model_repo import (BROKEN_MODEL_BYTES, FASHION_INPUT, FASHION_ONNX, FASHION_OUTPUT, FASHION_TOLERANCE,
                        SLOW_INPUT, SLOW_OUTPUT, SLOW_WIDTH, fashion_config, fashion_data, slow_config)

PROTOCOLS = pytest.mark.parametrize("protocol", c.PROTOCOLS)


def infer_ok(cl, protocol, model, version="", rows=slice(0, 2)):
    images, reference = fashion_data()
    result = c.infer(cl, protocol, model, {FASHION_INPUT: images[rows]}, version=version)
    np.testing.assert_allclose(result.as_numpy(FASHION_OUTPUT), reference[rows], rtol=0, atol=FASHION_TOLERANCE)
    response = result.get_response() if protocol == "http" else result.get_response(as_json=True)
    return str(response["model_version"])


def infer_fails(cl, protocol, model, *words, version=""):
    images, _ = fashion_data()
    with pytest.raises(InferenceServerException) as e:
        c.infer(cl, protocol, model, {FASHION_INPUT: images[:1]}, version=version)
    for w in words:
        assert w in str(e.value), e.value
    return e.value


def not_ready(cl, model, version=""):
    try:
        return cl.is_model_ready(model, version) is False
    except InferenceServerException:
        return True


@PROTOCOLS
def test_explicit_load_and_unload(serve, repo, protocol):
    repo.add_fashion("fashion")
    repo.add_fashion("other")
    server = serve(repo.path, "--model-control-mode", "explicit")
    cl = c.make_client(protocol, server)
    try:
        assert cl.is_server_ready()  # nothing asked to load: ready
        idx = {e["name"]: e for e in c.repository_index(cl, protocol)}
        assert set(idx) == {"fashion", "other"}, idx  # the index lists what is in the repository, loaded or not
        assert idx["fashion"]["state"] != "READY"
        assert not_ready(cl, "fashion")
        infer_fails(cl, protocol, "fashion", "fashion")

        cl.load_model("fashion")
        assert cl.is_model_ready("fashion")
        assert infer_ok(cl, protocol, "fashion") == "1"
        assert not_ready(cl, "other")
        idx = {e["name"]: e for e in c.repository_index(cl, protocol)}
        assert idx["fashion"]["state"] == "READY" and idx["other"]["state"] != "READY", idx

        cl.unload_model("fashion")
        assert not_ready(cl, "fashion")
        infer_fails(cl, protocol, "fashion", "fashion")
        assert cl.is_server_live()

        cl.load_model("fashion")  # and back
        assert infer_ok(cl, protocol, "fashion") == "1"
    finally:
        cl.close()


def test_load_model_at_startup(serve, repo):
    repo.add_fashion("fashion")
    repo.add_fashion("other")
    server = serve(repo.path, "--model-control-mode", "explicit", "--load-model", "other")
    cl = c.make_client("http", server)
    try:
        assert cl.is_model_ready("other")
        assert not cl.is_model_ready("fashion")
    finally:
        cl.close()


@PROTOCOLS
def test_load_errors_name_the_model(serve, repo, protocol):
    repo.add_fashion("fashion")
    repo.add_broken("broken")
    server = serve(repo.path, "--model-control-mode", "explicit", "--load-model", "fashion")
    cl = c.make_client(protocol, server)
    try:
        with pytest.raises(InferenceServerException) as e:
            cl.load_model("no_such_model")
        assert "no_such_model" in str(e.value)
        with pytest.raises(InferenceServerException) as e:
            cl.load_model("broken")
        assert "broken" in str(e.value)
        assert not_ready(cl, "broken")
        idx = {m["name"]: m for m in c.repository_index(cl, protocol)}
        assert idx["broken"]["state"] == "UNAVAILABLE" and idx["broken"]["reason"], idx
        assert cl.is_server_live()
        assert infer_ok(cl, protocol, "fashion") == "1"
    finally:
        cl.close()


@PROTOCOLS
def test_bad_new_version_leaves_the_old_one_serving(serve, repo, protocol):
    repo.add_fashion("fashion")
    server = serve(repo.path, "--model-control-mode", "explicit", "--load-model", "fashion")
    cl = c.make_client(protocol, server)
    try:
        assert infer_ok(cl, protocol, "fashion") == "1"
        repo.write_version("fashion", 2, BROKEN_MODEL_BYTES)  # the latest version, and broken
        with pytest.raises(InferenceServerException) as e:
            cl.load_model("fashion")
        assert "fashion" in str(e.value)
        assert cl.is_model_ready("fashion", "1")
        assert cl.is_model_ready("fashion")
        assert infer_ok(cl, protocol, "fashion") == "1"
        assert infer_ok(cl, protocol, "fashion", version="1") == "1"
        assert c.model_metadata(cl, protocol, "fashion")["versions"] == ["1"]
        # Fixed: version 2 loads and takes over.
        repo.write_version("fashion", 2, FASHION_ONNX)
        cl.load_model("fashion")
        assert infer_ok(cl, protocol, "fashion") == "2"
    finally:
        cl.close()


def test_version_policies(serve, repo):
    for name, policy in [("latest1", ""), ("latest2", "version_policy { latest { num_versions: 2 } }"),
                         ("all", "version_policy { all { } }"), ("specific", "version_policy { specific { versions: [1, 3] } }")]:
        repo.add_fashion(name, versions=[1, 2, 3], config=fashion_config(name, extra=policy))
    server = serve(repo.path)
    for protocol in c.PROTOCOLS:
        cl = c.make_client(protocol, server)
        try:
            expect = {"latest1": ["3"], "latest2": ["2", "3"], "all": ["1", "2", "3"], "specific": ["1", "3"]}
            for name, versions in expect.items():
                md = c.model_metadata(cl, protocol, name)
                assert md["versions"] == versions, (protocol, name, md)
                for v in ("1", "2", "3"):
                    if v in versions:
                        assert cl.is_model_ready(name, v), (name, v)
                        assert infer_ok(cl, protocol, name, version=v) == v, (protocol, name, v)
                    else:
                        assert not_ready(cl, name, v), (name, v)
                        infer_fails(cl, protocol, name, version=v)
                # No version named: the highest ready one.
                assert infer_ok(cl, protocol, name) == versions[-1], (protocol, name)
            stats = {(s["name"], s["version"]) for s in c.statistics(cl, protocol, "all")}
            assert stats == {("all", "1"), ("all", "2"), ("all", "3")}
        finally:
            cl.close()


@PROTOCOLS
def test_unload_lets_in_flight_requests_finish(serve, repo, protocol):
    # About 0.5 s a request on this kind of machine; 4 requests in one batch, in flight when unload is asked.
    repo.add_slow("slow", iterations=40000, config=slow_config("slow", max_batch_size=8))
    repo.add_fashion("fashion")
    server = serve(repo.path, "--model-control-mode", "explicit", "--load-model", "slow", "--load-model", "fashion")
    xs = [np.full((1, SLOW_WIDTH), i + 1, np.float32) for i in range(4)]
    batch = c.Inflight(server, protocol, "slow", xs, SLOW_INPUT)
    c.wait_arrived(server, "slow", 4)
    admin = c.make_client(protocol, server)
    try:
        admin.unload_model("slow")  # returns once unloaded: the in-flight requests are done by then
        assert not_ready(admin, "slow")
        assert infer_ok(admin, protocol, "fashion") == "1"  # other models unaffected
    finally:
        admin.close()
    for i, r, e in batch.collect():
        assert e is None, f"request {i} was in flight when unload was asked, and failed: {e}"
        np.testing.assert_array_equal(r.as_numpy(SLOW_OUTPUT), xs[i])


def test_poll_mode_picks_up_new_models_and_versions(serve, repo):
    repo.add_fashion("fashion")
    server = serve(repo.path, "--model-control-mode", "poll", "--repository-poll-secs", "1")
    cl = c.make_client("http", server)
    try:
        repo.add_fashion("added")
        wait_until(lambda: cl.is_model_ready("added"), "model 'added' ready after it was added")
        assert infer_ok(cl, "http", "added") == "1"
        repo.write_version("fashion", 2, FASHION_ONNX)
        wait_until(lambda: c.model_metadata(cl, "http", "fashion")["versions"] == ["2"], "fashion version 2")
        assert infer_ok(cl, "http", "fashion") == "2"
        # A broken new version: the poller sees it and fails to load it (the index says so, with why), and the
        # served one stays.
        repo.write_version("fashion", 3, BROKEN_MODEL_BYTES)

        def version_3_failed():
            idx = [m for m in c.repository_index(cl, "http") if m["name"] == "fashion" and m["version"] == "3"]
            return idx and idx[0]["state"] == "UNAVAILABLE" and idx[0]["reason"]

        wait_until(version_3_failed, "fashion version 3 seen and refused by the poller")
        assert infer_ok(cl, "http", "fashion") == "2"
        assert c.model_metadata(cl, "http", "fashion")["versions"] == ["2"]
    finally:
        cl.close()


def wait_until(predicate, what, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if predicate():
                return
        except InferenceServerException:
            pass
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


@PROTOCOLS
def test_control_mode_none_refuses_load_and_unload(serve, repo, protocol):
    repo.add_fashion("fashion")
    server = serve(repo.path)
    cl = c.make_client(protocol, server)
    try:
        with pytest.raises(InferenceServerException):
            cl.load_model("fashion")
        with pytest.raises(InferenceServerException):
            cl.unload_model("fashion")
        assert cl.is_model_ready("fashion")
        assert infer_ok(cl, protocol, "fashion") == "1"
    finally:
        cl.close()
