"""Triton's classification extension with Triton's own clients: InferRequestedOutput(..., class_count=k) over HTTP
and gRPC returns the output's top k classes as "<value>:<index>:<label>" strings, labels from the config's
label_filename; the server metadata lists the extension."""

from __future__ import annotations

import numpy as np
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from tritonclient.utils import InferenceServerException

from model_repo import FASHION_INPUT, FASHION_OUTPUT, fashion_config, fashion_data

LABELS = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"]


@pytest.fixture(scope="module")
def server(module_serve, tmp_path_factory):
    from model_repo import ModelRepo

    repo = ModelRepo(tmp_path_factory.mktemp("repo"))
    config = fashion_config("fashion").replace('dims: [ 10 ] }', 'dims: [ 10 ] label_filename: "labels.txt" }')
    repo.add_fashion("fashion", config=config)
    (repo.model_dir("fashion") / "labels.txt").write_text("\n".join(LABELS) + "\n")
    return module_serve(repo.path)


@pytest.mark.parametrize("module", [httpclient, grpcclient], ids=["http", "grpc"])
def test_class_count_returns_the_top_classes_with_labels(server, module):
    url = server.http_url if module is httpclient else server.grpc_url
    client = module.InferenceServerClient(url)
    images, _ = fashion_data()
    batch = images[:3]
    inp = module.InferInput(FASHION_INPUT, list(batch.shape), "FP32")
    inp.set_data_from_numpy(batch)
    raw = client.infer("fashion", [inp]).as_numpy(FASHION_OUTPUT)
    top = client.infer("fashion", [inp], outputs=[module.InferRequestedOutput(FASHION_OUTPUT, class_count=3)])
    got = top.as_numpy(FASHION_OUTPUT)
    assert got.shape == (3, 3)
    for row in range(3):
        best = np.argsort(-raw[row], kind="stable")[:3]
        for k, entry in enumerate(got[row]):
            value, index, label = entry.decode().split(":", 2)
            assert int(index) == best[k] and label == LABELS[best[k]]
            assert abs(float(value) - raw[row][best[k]]) < 1e-5


def test_the_extension_is_listed_and_bad_counts_are_refused(server):
    client = httpclient.InferenceServerClient(server.http_url)
    assert "classification" in client.get_server_metadata()["extensions"]
    images, _ = fashion_data()
    inp = httpclient.InferInput(FASHION_INPUT, [1, 1, 28, 28], "FP32")
    inp.set_data_from_numpy(images[:1])
    with pytest.raises(InferenceServerException) as e:
        client.infer("fashion", [inp], outputs=[httpclient.InferRequestedOutput(FASHION_OUTPUT, class_count=11)])
    assert "classification 11 asked, the output has 10 classes a row" in e.value.message()
    assert client.is_server_ready()
