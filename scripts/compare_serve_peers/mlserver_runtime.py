"""A minimal MLServer custom runtime for ONNX models (MLServer has no ONNX runtime of its own).

model-settings.json: {"name": "fashion", "implementation": "mlserver_runtime.OnnxRuntime",
                      "parameters": {"uri": "model.onnx"}, "max_batch_size": 32, "max_batch_time": 0.001}
(max_batch_size / max_batch_time turn on MLServer's adaptive batching; without them each request runs alone).

load() opens an ONNX Runtime session with its defaults (every core) and fills the model's metadata from it.
predict() decodes each input with MLServer's NumpyCodec, runs the session and returns the outputs as flat lists:
under adaptive batching MLServer has already stacked the requests along the first dimension and splits the outputs
back.

MLServer has no /v2/models/{m}/config (Triton's model configuration, which perf_analyzer reads for max_batch_size
and the input dims), so the runtime adds it as a custom REST handler. A custom handler's path is fixed for the whole
server, so the route takes the model's name as a parameter and answers from a table that every loaded model fills.
"""
import onnxruntime as ort
from mlserver import MLModel
from mlserver.codecs import NumpyCodec
from mlserver.codecs.numpy import to_datatype
from mlserver.errors import ModelNotFound
from mlserver.handlers import custom_handler
from mlserver.types import InferenceRequest, InferenceResponse, MetadataTensor, ResponseOutput
from mlserver.utils import get_model_uri

ORT_TO_KSERVE = {"tensor(float)": "FP32", "tensor(double)": "FP64", "tensor(float16)": "FP16",
                 "tensor(int64)": "INT64", "tensor(int32)": "INT32", "tensor(int8)": "INT8",
                 "tensor(uint8)": "UINT8", "tensor(bool)": "BOOL"}
# Model name -> the Triton-style configuration its /config route returns. MLServer re-imports (reloads) this module
# for every model it loads; a reload runs the code again in the same module namespace, so keep the table it has.
if "_CONFIGS" not in globals():
    _CONFIGS = {}


def _dims(shape):
    return [d if isinstance(d, int) and d > 0 else -1 for d in shape]


class OnnxRuntime(MLModel):
    async def load(self) -> bool:
        path = await get_model_uri(self._settings, wellknown_filenames=["model.onnx"])
        self._session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        self._output_names = [t.name for t in self._session.get_outputs()]
        if not self.inputs:
            self.inputs = [MetadataTensor(name=t.name, datatype=ORT_TO_KSERVE[t.type], shape=_dims(t.shape))
                           for t in self._session.get_inputs()]
        if not self.outputs:
            self.outputs = [MetadataTensor(name=t.name, datatype=ORT_TO_KSERVE[t.type], shape=_dims(t.shape))
                            for t in self._session.get_outputs()]

        def tensor(t):
            return {"name": t.name, "data_type": "TYPE_" + t.datatype, "dims": list(t.shape)[1:]}

        _CONFIGS[self.name] = {"name": self.name, "platform": "onnxruntime_onnx", "backend": "onnxruntime",
                               "max_batch_size": self._settings.max_batch_size or 32,
                               "input": [tensor(t) for t in self.inputs],
                               "output": [tensor(t) for t in self.outputs]}
        return True

    async def predict(self, payload: InferenceRequest) -> InferenceResponse:
        feeds = {inp.name: NumpyCodec.decode_input(inp) for inp in payload.inputs}
        results = self._session.run(self._output_names, feeds)
        # Not NumpyCodec.encode_output: it tags every output with parameters {"content_type": "np"}, and
        # perf_analyzer's HTTP client (tritonclient 2.41) then looks for "binary_data_size" among an output's
        # parameters and fails the request without it. The same data, untagged.
        return InferenceResponse(
            model_name=self.name, id=payload.id,
            outputs=[ResponseOutput(name=name, datatype=to_datatype(r.dtype), shape=list(r.shape),
                                    data=r.reshape(-1).tolist())
                     for name, r in zip(self._output_names, results)])

    @custom_handler(rest_path="/v2/models/{model_name}/config", rest_method="GET")
    async def triton_config(self, model_name: str) -> dict:
        if model_name not in _CONFIGS:
            raise ModelNotFound(model_name)
        return _CONFIGS[model_name]
