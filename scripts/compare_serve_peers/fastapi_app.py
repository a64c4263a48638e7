"""The comparison's hand-written peer: a KServe v2 (Open Inference Protocol) HTTP server in FastAPI + uvicorn +
onnxruntime, JSON tensors only, written as a team would write one today.

    python fastapi_app.py --port 18510 --model fashion=path/model.onnx [--model wide=path/other.onnx ...]

Endpoints: /v2, /v2/health/live, /v2/health/ready, /v2/models/{m}, /v2/models/{m}/ready, /v2/models/{m}/config
(Triton's model configuration as JSON, which perf_analyzer reads to learn max_batch_size and the input dims) and
POST /v2/models/{m}/infer with JSON tensors (flat or nested "data"). orjson parses requests and writes responses
(numpy arrays serialized directly). One uvicorn worker (uvloop and httptools, as uvicorn[standard] installs them),
no access log. Inference runs inline in the async handler: one request at a time, the ONNX Runtime session
with its default threads (every core), no batching. Requests with binary tensors (an Inference-Header-Content-Length
shorter than the body) are refused with 400: the app speaks JSON only, like MLServer's REST API.
"""
import argparse
import sys

import numpy as np
import onnxruntime as ort
import orjson
import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import Response

# KServe v2 data types and the numpy types they decode into.
DTYPES = {"FP32": np.float32, "FP64": np.float64, "FP16": np.float16, "INT64": np.int64, "INT32": np.int32,
          "INT8": np.int8, "UINT8": np.uint8, "BOOL": np.bool_}
NUMPY_TO_KSERVE = {np.dtype(t): name for name, t in DTYPES.items()}
ORT_TO_KSERVE = {"tensor(float)": "FP32", "tensor(double)": "FP64", "tensor(float16)": "FP16",
                 "tensor(int64)": "INT64", "tensor(int32)": "INT32", "tensor(int8)": "INT8",
                 "tensor(uint8)": "UINT8", "tensor(bool)": "BOOL"}
MAX_BATCH_SIZE = 32  # what /config reports; the models take any batch


def dims(shape):
    return [d if isinstance(d, int) and d > 0 else -1 for d in shape]


class Model:
    def __init__(self, name, path):
        self.name = name
        self.session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        self.inputs = [{"name": t.name, "datatype": ORT_TO_KSERVE[t.type], "shape": dims(t.shape)}
                       for t in self.session.get_inputs()]
        self.outputs = [{"name": t.name, "datatype": ORT_TO_KSERVE[t.type], "shape": dims(t.shape)}
                        for t in self.session.get_outputs()]
        self.metadata = orjson.dumps({"name": name, "versions": ["1"], "platform": "onnxruntime_onnx",
                                      "inputs": self.inputs, "outputs": self.outputs})

        def config_tensor(t):
            return {"name": t["name"], "data_type": "TYPE_" + t["datatype"],
                    "dims": t["shape"][1:]}
        self.config = orjson.dumps({"name": name, "platform": "onnxruntime_onnx", "backend": "onnxruntime",
                                    "max_batch_size": MAX_BATCH_SIZE,
                                    "input": [config_tensor(t) for t in self.inputs],
                                    "output": [config_tensor(t) for t in self.outputs]})


def error(status, message):
    return Response(orjson.dumps({"error": message}), status_code=status, media_type="application/json")


def create_app(models):
    app = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)
    json = "application/json"

    @app.get("/v2")
    async def server_metadata():
        return Response(orjson.dumps({"name": "fastapi-onnxruntime", "version": ort.__version__,
                                      "extensions": []}), media_type=json)

    @app.get("/v2/health/live")
    async def live():
        return Response(b'{"live":true}', media_type=json)

    @app.get("/v2/health/ready")
    async def ready():
        return Response(b'{"ready":true}', media_type=json)

    @app.get("/v2/models/{name}")
    async def model_metadata(name: str):
        model = models.get(name)
        return Response(model.metadata, media_type=json) if model else error(404, f"model '{name}' not found")

    @app.get("/v2/models/{name}/ready")
    async def model_ready(name: str):
        return Response(b'{"ready":true}', media_type=json) if name in models else error(
            404, f"model '{name}' not found")

    @app.get("/v2/models/{name}/config")
    async def model_config(name: str):
        model = models.get(name)
        return Response(model.config, media_type=json) if model else error(404, f"model '{name}' not found")

    @app.post("/v2/models/{name}/infer")
    async def infer(name: str, request: Request):
        model = models.get(name)
        if model is None:
            return error(404, f"model '{name}' not found")
        raw = await request.body()
        # Triton's clients send this header with JSON requests too; it names binary data only when it is shorter
        # than the body.
        header_length = request.headers.get("inference-header-content-length")
        if header_length is not None and header_length != str(len(raw)):
            return error(400, "binary tensors are not supported: send JSON tensors")
        try:
            body = orjson.loads(raw)
            feeds = {}
            for tensor in body["inputs"]:
                dtype = DTYPES.get(tensor["datatype"])
                if dtype is None:
                    return error(400, f"input '{tensor['name']}': unsupported datatype {tensor['datatype']}")
                feeds[tensor["name"]] = np.asarray(tensor["data"], dtype=dtype).reshape(tensor["shape"])
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError) as e:
            return error(400, f"bad request: {e}")
        wanted = [o["name"] for o in body.get("outputs", [])] or [o["name"] for o in model.outputs]
        try:
            results = model.session.run(wanted, feeds)
        except Exception as e:  # ONNX Runtime's errors (a wrong shape, a missing input) are the client's fault
            return error(400, str(e))
        outputs = [{"name": n, "datatype": NUMPY_TO_KSERVE[r.dtype], "shape": list(r.shape), "data": r.reshape(-1)}
                   for n, r in zip(wanted, results)]
        response = {"model_name": name, "model_version": "1", "outputs": outputs}
        if "id" in body:
            response["id"] = body["id"]
        return Response(orjson.dumps(response, option=orjson.OPT_SERIALIZE_NUMPY), media_type=json)

    return app


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--model", action="append", required=True, metavar="NAME=PATH")
    args = parser.parse_args()
    models = {}
    for spec in args.model:
        name, sep, path = spec.partition("=")
        if not sep:
            sys.exit(f"fastapi_app: --model {spec!r}: expected NAME=PATH")
        models[name] = Model(name, path)
    uvicorn.run(create_app(models), host=args.host, port=args.port, access_log=False, log_level="warning",
                workers=1)


if __name__ == "__main__":
    main()
