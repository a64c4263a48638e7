"""hone.serve: the server `hone serve` runs, in this process, for as long as a `with` block."""

from __future__ import annotations

import os

from . import _hone


class Server:
    """A running hone server: KServe v2 over HTTP and gRPC (Triton's clients work on it), OpenAI's API for LLMs.

    >>> with hone.serve("out/tune/repository") as server:
    ...     requests.post(f"{server.http_url}/v2/models/model/infer", json=...)
    """

    def __init__(self, repository: str | os.PathLike, *, host: str = "127.0.0.1", http_port: int = 0,
                 grpc_port: int = 0):
        self._impl = _hone.Server(os.fspath(repository), host, http_port, grpc_port)
        self.host = host

    @property
    def http_port(self) -> int:
        return self._impl.http_port

    @property
    def grpc_port(self) -> int:
        return self._impl.grpc_port

    @property
    def http_url(self) -> str:
        """``http://HOST:PORT``: KServe v2 under /v2, OpenAI's under /v1, /metrics."""
        return f"http://{self.host}:{self.http_port}"

    @property
    def grpc_url(self) -> str:
        """``HOST:PORT`` for tritonclient.grpc and other KServe v2 gRPC clients."""
        return f"{self.host}:{self.grpc_port}"

    @property
    def openai_url(self) -> str:
        """The base URL OpenAI's SDK takes (``openai.OpenAI(base_url=server.openai_url)``)."""
        return f"{self.http_url}/v1"

    def stop(self, grace: float = 5.0) -> None:
        """Stops taking requests, lets those in flight finish for up to ``grace`` seconds, then closes."""
        self._impl.stop(grace)

    def __enter__(self) -> "Server":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = self.http_url if self._impl.running else "stopped"
        return f"<hone.Server {state}>"


def serve(repository: str | os.PathLike, *, host: str = "127.0.0.1", http_port: int = 0,
          grpc_port: int = 0) -> Server:
    """Starts a server on ``repository`` (Triton's layout, as `hone serve --model-repository`) and loads every
    model; returns once they are ready. Ports 0 (the default) pick free ones. Use it in a ``with`` block, or call
    ``stop()``. A model that fails to load raises with the server's message, and nothing keeps running."""
    return Server(repository, host=host, http_port=http_port, grpc_port=grpc_port)
