"""The Python side's HTTP front for scripts/compare-pipelines: KServe v2 (Open Inference Protocol) over FastAPI +
uvicorn for one or more pipelines, JSON tensors and the binary tensor extension, written as a team would write one
today. Each pipeline app (text_app.py, image_app.py) defines a Pipeline and calls serve().

A Pipeline has: name; inputs and outputs ([{"name", "datatype", "shape"}], shape with the batch dimension, -1 for
a dynamic one); max_batch_size (what /config reports, for perf_analyzer); and infer(inputs) -> [(name, ndarray)],
where inputs maps each input's name to a numpy array of its shape, or, for BYTES, to a flat list in row-major order:
str for a JSON tensor (JSON carries BYTES as strings), bytes for a binary one (an image file is not text). A BYTES
output is a numpy array of str or bytes (an object array or numpy's unicode/bytes dtypes).

Endpoints: /v2, /v2/health/live, /v2/health/ready, /v2/models/{m}, /v2/models/{m}/ready, /v2/models/{m}/config
(Triton's model configuration as JSON, which perf_analyzer reads for max_batch_size and the input dims) and POST
/v2/models/{m}/infer. orjson parses requests and writes responses (numpy arrays serialized directly). One uvicorn
worker (uvloop and httptools), no access log; inference runs inline in the async handler, one request at a time,
as in compare_serve_peers/fastapi_app.py.

Binary tensors (KServe's binary tensor extension, as Triton and its clients speak it; perf_analyzer's default over
HTTP): a request whose Inference-Header-Content-Length header is shorter than the body has that many bytes of JSON,
then the data of each input whose parameters carry binary_data_size, in the inputs' order: raw little-endian
values, or for BYTES each element as a 4-byte little-endian length and its bytes. An output is answered in binary
when the request asks (binary_data true in the output's parameters, as perf_analyzer asks for every output by
default; or binary_data_output true in the request's parameters, for every output without its own say): the JSON
header with binary_data_size for it, then its bytes in the same layout, and the header's length in
Inference-Header-Content-Length; every other output is answered as JSON.
"""
import math
import struct

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


def parse_bytes(raw, count, name):
    """A binary BYTES tensor's data: count elements, each a 4-byte little-endian length and that many bytes."""
    out, offset, view = [], 0, memoryview(raw)
    for _ in range(count):
        if offset + 4 > len(raw):
            raise BadRequest(f"input '{name}': binary BYTES data ends inside an element's length")
        (length,) = struct.unpack_from("<I", raw, offset)
        offset += 4
        if offset + length > len(raw):
            raise BadRequest(f"input '{name}': binary BYTES element of {length} bytes runs past the data")
        out.append(bytes(view[offset:offset + length]))
        offset += length
    if offset != len(raw):
        raise BadRequest(f"input '{name}': {len(raw) - offset} bytes of binary data left over after {count} elements")
    return out


def serialize_bytes(values):
    """BYTES elements (str or bytes) in the binary layout: each a 4-byte little-endian length, then its bytes."""
    parts = []
    for v in values:
        b = v.encode() if isinstance(v, str) else bytes(v)
        parts.append(struct.pack("<I", len(b)))
        parts.append(b)
    return b"".join(parts)


def decode_input(tensor, spec, binary=None):
    """An input tensor of the request; binary: its bytes when it came as a binary tensor."""
    datatype, shape = tensor.get("datatype"), tensor.get("shape")
    if datatype != spec["datatype"]:
        raise BadRequest(f"input '{spec['name']}': datatype {datatype}, expected {spec['datatype']}")
    if not isinstance(shape, list) or len(shape) != len(spec["shape"]) or any(
            not isinstance(d, int) or d < 0 or (want != -1 and d != want) for d, want in zip(shape, spec["shape"])):
        raise BadRequest(f"input '{spec['name']}': shape {shape}, expected {spec['shape']}")
    if binary is not None:
        if datatype == "BYTES":
            return parse_bytes(binary, math.prod(shape), spec["name"])
        dtype = np.dtype(DTYPES[datatype]).newbyteorder("<")
        if len(binary) != math.prod(shape) * dtype.itemsize:
            raise BadRequest(f"input '{spec['name']}': {len(binary)} bytes of binary data for shape {shape}")
        return np.frombuffer(binary, dtype=dtype).reshape(shape)
    data = flatten(tensor.get("data"))
    if not isinstance(data, list) or len(data) != math.prod(shape):
        raise BadRequest(f"input '{spec['name']}': {len(data) if isinstance(data, list) else 'no'} values for "
                         f"shape {shape}")
    if datatype == "BYTES":
        if not all(isinstance(v, str) for v in data):
            raise BadRequest(f"input '{spec['name']}': BYTES data must be strings")
        return data
    return np.asarray(data, dtype=DTYPES[datatype]).reshape(shape)


def split_binary(raw, header_length):
    """(JSON header, the binary inputs' bytes by name) of a request with an Inference-Header-Content-Length."""
    try:
        n = int(header_length)
    except ValueError:
        raise BadRequest(f"Inference-Header-Content-Length: not a number: {header_length!r}") from None
    if not 0 < n <= len(raw):
        raise BadRequest(f"Inference-Header-Content-Length {n} for a body of {len(raw)} bytes")
    body = orjson.loads(raw[:n])
    binary, offset = {}, n
    for tensor in body["inputs"]:
        size = (tensor.get("parameters") or {}).get("binary_data_size")
        if size is None:
            continue
        if not isinstance(size, int) or size < 0 or offset + size > len(raw):
            raise BadRequest(f"input '{tensor.get('name')}': binary_data_size {size} runs past the body")
        binary[tensor["name"]] = raw[offset:offset + size]
        offset += size
    if offset != len(raw):
        raise BadRequest(f"{len(raw) - offset} bytes after the binary inputs' data")
    return body, binary


def kserve_datatype(array):
    if array.dtype.kind in "OUS":
        return "BYTES"
    return NUMPY_TO_KSERVE[array.dtype]


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
        try:
            if header_length is not None and header_length != str(len(raw)):
                body, binary = split_binary(raw, header_length)
            else:
                body, binary = orjson.loads(raw), {}
            given = {t["name"]: t for t in body["inputs"]}
            inputs = {}
            for spec in pipeline.inputs:
                if spec["name"] not in given:
                    raise BadRequest(f"missing input '{spec['name']}'")
                inputs[spec["name"]] = decode_input(given[spec["name"]], spec, binary.get(spec["name"]))
        except BadRequest as e:
            return error(400, str(e))
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError) as e:
            return error(400, f"bad request: {e}")
        try:
            results = pipeline.infer(inputs)
        except BadRequest as e:
            return error(400, str(e))
        # Outputs named in the request (all when none are), each in binary when asked for: by binary_data in its
        # own parameters (what perf_analyzer and Triton's clients send), else by the request's binary_data_output.
        all_binary = bool((body.get("parameters") or {}).get("binary_data_output", False))
        wanted = {o["name"]: bool((o.get("parameters") or {}).get("binary_data", all_binary))
                  for o in body.get("outputs") or []}
        outputs, chunks = [], []
        for n, r in results:
            if wanted and n not in wanted:
                continue
            datatype = kserve_datatype(r)
            out = {"name": n, "datatype": datatype, "shape": list(r.shape)}
            if wanted.get(n, all_binary):
                chunk = serialize_bytes(r.reshape(-1)) if datatype == "BYTES" else \
                    np.ascontiguousarray(r, dtype=r.dtype.newbyteorder("<")).tobytes()
                out["parameters"] = {"binary_data_size": len(chunk)}
                chunks.append(chunk)
            elif datatype == "BYTES":
                out["data"] = [v.decode(errors="replace") if isinstance(v, bytes) else str(v) for v in r.reshape(-1)]
            else:
                out["data"] = r.reshape(-1)
            outputs.append(out)
        response = {"model_name": name, "model_version": "1", "outputs": outputs}
        if "id" in body:
            response["id"] = body["id"]
        header = orjson.dumps(response, option=orjson.OPT_SERIALIZE_NUMPY)
        if not chunks:
            return Response(header, media_type=JSON)
        return Response(b"".join([header] + chunks), media_type="application/octet-stream",
                        headers={"Inference-Header-Content-Length": str(len(header))})

    return app


def serve(pipelines, host, port):
    uvicorn.run(create_app(pipelines), host=host, port=port, access_log=False, log_level="warning", workers=1)
