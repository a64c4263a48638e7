"""The Python side's HTTP front for scripts/compare-pipelines: KServe v2 (Open Inference Protocol) over FastAPI +
uvicorn for one or more pipelines, JSON tensors only, written as a team would write one today. Each pipeline app
(text_app.py; an image app later) defines a Pipeline and calls serve().

A Pipeline has: name; inputs and outputs ([{"name", "datatype", "shape"}], shape with the batch dimension, -1 for
a dynamic one); max_batch_size (what /config reports, for perf_analyzer); and infer(inputs) -> [(name, ndarray)],
where inputs maps each input's name to a numpy array of its shape, or, for BYTES, to a flat list of str in row-major
order (JSON carries BYTES as strings).

Endpoints: /v2, /v2/health/live, /v2/health/ready, /v2/models/{m}, /v2/models/{m}/ready, /v2/models/{m}/config
(Triton's model configuration as JSON, which perf_analyzer reads for max_batch_size and the input dims) and POST
/v2/models/{m}/infer. orjson parses requests and writes responses (numpy arrays serialized directly). One uvicorn
worker (uvloop and httptools), no access log; inference runs inline in the async handler, one request at a time,
as in compare_serve_peers/fastapi_app.py. Requests with binary tensors (an Inference-Header-Content-Length shorter
than the body) are refused with 400.
"""
import math

import numpy as np
import orjson
import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import Response

# KServe v2 numeric data types and the numpy types they decode into; BYTES is handled apart.
DTYPES = {"FP32": np.float32, "FP64": np.float64, "FP16": np.float16, "INT64": np.int64, "INT32": np.int32,
          "INT8": np.int8, "UINT8": np.uint8, "BOOL": np.bool_}
NUMPY_TO_KSERVE = {np.dtype(t): name for name, t in DTYPES.items()}
JSON = "application/json"


class BadRequest(Exception):
    pass


def flatten(data):
    """A JSON tensor's "data", flat or nested, as a flat list."""
    if not isinstance(data, list) or not any(isinstance(v, list) for v in data):
        return data
    out = []
    for v in data:
        out.extend(flatten(v) if isinstance(v, list) else [v])
    return out


def decode_input(tensor, spec):
    datatype, shape = tensor.get("datatype"), tensor.get("shape")
    if datatype != spec["datatype"]:
        raise BadRequest(f"input '{spec['name']}': datatype {datatype}, expected {spec['datatype']}")
    if not isinstance(shape, list) or len(shape) != len(spec["shape"]) or any(
            not isinstance(d, int) or d < 0 or (want != -1 and d != want) for d, want in zip(shape, spec["shape"])):
        raise BadRequest(f"input '{spec['name']}': shape {shape}, expected {spec['shape']}")
    data = flatten(tensor.get("data"))
    if not isinstance(data, list) or len(data) != math.prod(shape):
        raise BadRequest(f"input '{spec['name']}': {len(data) if isinstance(data, list) else 'no'} values for "
                         f"shape {shape}")
    if datatype == "BYTES":
        if not all(isinstance(v, str) for v in data):
            raise BadRequest(f"input '{spec['name']}': BYTES data must be strings")
        return data
    return np.asarray(data, dtype=DTYPES[datatype]).reshape(shape)


def error(status, message):
    return Response(orjson.dumps({"error": message}), status_code=status, media_type=JSON)


def create_app(pipelines):
    models = {p.name: p for p in pipelines}
    described = {}
    for p in pipelines:
        def config_tensor(t):  # Triton's config: dims without the batch dimension
            return {"name": t["name"], "data_type": "TYPE_" + ("STRING" if t["datatype"] == "BYTES" else t["datatype"]),
                    "dims": t["shape"][1:]}
        described[p.name] = (
            orjson.dumps({"name": p.name, "versions": ["1"], "platform": "python", "inputs": p.inputs,
                          "outputs": p.outputs}),
            orjson.dumps({"name": p.name, "platform": "python", "backend": "python",
                          "max_batch_size": p.max_batch_size, "input": [config_tensor(t) for t in p.inputs],
                          "output": [config_tensor(t) for t in p.outputs]}))
    app = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)

    @app.get("/v2")
    async def server_metadata():
        return Response(b'{"name":"fastapi-pipelines","version":"1","extensions":[]}', media_type=JSON)

    @app.get("/v2/health/live")
    async def live():
        return Response(b'{"live":true}', media_type=JSON)

    @app.get("/v2/health/ready")
    async def ready():
        return Response(b'{"ready":true}', media_type=JSON)

    @app.get("/v2/models/{name}")
    async def model_metadata(name: str):
        d = described.get(name)
        return Response(d[0], media_type=JSON) if d else error(404, f"model '{name}' not found")

    @app.get("/v2/models/{name}/ready")
    async def model_ready(name: str):
        return Response(b'{"ready":true}', media_type=JSON) if name in models else error(
            404, f"model '{name}' not found")

    @app.get("/v2/models/{name}/config")
    async def model_config(name: str):
        d = described.get(name)
        return Response(d[1], media_type=JSON) if d else error(404, f"model '{name}' not found")

    @app.post("/v2/models/{name}/infer")
    async def infer(name: str, request: Request):
        pipeline = models.get(name)
        if pipeline is None:
            return error(404, f"model '{name}' not found")
        raw = await request.body()
        # Triton's clients send this header with JSON requests too; it names binary data only when it is shorter
        # than the body.
        header_length = request.headers.get("inference-header-content-length")
        if header_length is not None and header_length != str(len(raw)):
            return error(400, "binary tensors are not supported: send JSON tensors")
        try:
            body = orjson.loads(raw)
            given = {t["name"]: t for t in body["inputs"]}
            inputs = {}
            for spec in pipeline.inputs:
                if spec["name"] not in given:
                    raise BadRequest(f"missing input '{spec['name']}'")
                inputs[spec["name"]] = decode_input(given[spec["name"]], spec)
        except BadRequest as e:
            return error(400, str(e))
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError) as e:
            return error(400, f"bad request: {e}")
        try:
            results = pipeline.infer(inputs)
        except BadRequest as e:
            return error(400, str(e))
        wanted = {o["name"] for o in body.get("outputs", [])}
        outputs = [{"name": n, "datatype": NUMPY_TO_KSERVE[r.dtype], "shape": list(r.shape), "data": r.reshape(-1)}
                   for n, r in results if not wanted or n in wanted]
        response = {"model_name": name, "model_version": "1", "outputs": outputs}
        if "id" in body:
            response["id"] = body["id"]
        return Response(orjson.dumps(response, option=orjson.OPT_SERIALIZE_NUMPY), media_type=JSON)

    return app


def serve(pipelines, host, port):
    uvicorn.run(create_app(pipelines), host=host, port=port, access_log=False, log_level="warning", workers=1)
