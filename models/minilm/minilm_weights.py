"""The checkpoint side of the MiniLM encoder, with numpy only (no torch, no safetensors package), so that both
export_minilm.py (Debian's /usr/bin/python3) and check_minilm.py (the tests' venv) can use it.

  read_safetensors(path)  -> {name: read-only numpy array}; the file format is an 8-byte little-endian header length,
                             a JSON header {name: {dtype, shape, data_offsets: [begin, end]}, "__metadata__": {...}}
                             whose offsets are relative to the end of the header, then the raw little-endian data
  resolve(weights)        -> (model.safetensors, config.json) from a checkpoint folder or a .safetensors file (its
                             config.json must sit beside it)
  check_config(path, ...) -> raises ValueError naming every field of config.json that the module does not implement
"""
import json
import math
import os

import numpy as np

# what transformers assumes when config.json leaves a field out
_CONFIG_DEFAULTS = {"position_embedding_type": "absolute"}
_DTYPES = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "I64": "<i8", "I32": "<i4", "I16": "<i2", "I8": "i1",
           "U8": "u1", "BOOL": "?"}


def read_safetensors(path):
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        raw = f.read(8)
        if len(raw) != 8:
            raise ValueError(f"{path}: {size} bytes, too short for a safetensors header")
        header_len = int.from_bytes(raw, "little")
        if header_len > min(size - 8, 100 * 2**20):
            raise ValueError(f"{path}: header length {header_len} does not fit a {size}-byte file")
        header = json.loads(f.read(header_len))
        data = f.read()
    header.pop("__metadata__", None)
    tensors, spans = {}, []
    for name, info in header.items():
        dtype = _DTYPES.get(info.get("dtype"))
        if dtype is None:
            raise ValueError(f"{path}: tensor '{name}': dtype {info.get('dtype')!r} not supported "
                             f"(expected one of {', '.join(_DTYPES)})")
        shape = [int(d) for d in info["shape"]]
        begin, end = (int(o) for o in info["data_offsets"])
        expected = math.prod(shape) * np.dtype(dtype).itemsize
        if not 0 <= begin <= end <= len(data) or end - begin != expected:
            raise ValueError(f"{path}: tensor '{name}': data_offsets [{begin}, {end}] do not hold {dtype} {shape} "
                             f"({expected} bytes) inside the {len(data)}-byte data section")
        tensors[name] = np.frombuffer(data, dtype=dtype, count=math.prod(shape), offset=begin).reshape(shape)
        spans.append((begin, end, name))
    spans.sort()
    position = 0
    for begin, end, name in spans:  # the format requires the tensors to tile the data section exactly
        if begin != position:
            raise ValueError(f"{path}: tensor '{name}' starts at byte {begin}, expected {position} "
                             "(overlapping tensors or a hole in the data section)")
        position = end
    if position != len(data):
        raise ValueError(f"{path}: {len(data) - position} bytes after the last tensor")
    return tensors


def resolve(weights):
    if os.path.isdir(weights):
        safetensors = os.path.join(weights, "model.safetensors")
    else:
        safetensors = weights
    config = os.path.join(os.path.dirname(os.path.abspath(safetensors)), "config.json")
    for path in (safetensors, config):
        if not os.path.isfile(path):
            raise FileNotFoundError(f"--weights {weights}: {path} not found (expected a sentence-transformers "
                                    "folder with model.safetensors and config.json, or a .safetensors file with "
                                    "config.json beside it)")
    return safetensors, config


def check_config(path, expected):
    """expected: {field: value}; floats compare with a relative tolerance of 1e-6."""
    with open(path, encoding="utf-8") as f:
        config = json.load(f)
    wrong = []
    for field, want in expected.items():
        got = config.get(field, _CONFIG_DEFAULTS.get(field))
        same = (isinstance(want, float) and isinstance(got, (int, float)) and math.isclose(got, want, rel_tol=1e-6)) \
            or got == want
        if not same:
            wrong.append(f"{field}: the module implements {want!r}, config has {got!r}")
    if wrong:
        raise ValueError(f"{path}: the checkpoint is not the architecture export_minilm.py builds: " + "; ".join(wrong))
    return config
