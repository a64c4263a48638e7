"""A new version loaded while clients keep asking: in explicit model-control mode, with version 1 of the fashion
model serving unversioned requests from several HTTP and gRPC clients at once, version 2 is added to the
repository and the model is loaded again through the repository API. No request may fail, every answer must be
right, the answers before the load come from version 1 and those asked after it returned from version 2, and no
client sees version 1 again once it has seen version 2."""

from __future__ import annotations

import threading
import time

import numpy as np

import clients as c
from model_repo import FASHION_INPUT, FASHION_ONNX, FASHION_OUTPUT, FASHION_TOLERANCE, fashion_data

CLIENTS_PER_PROTOCOL = 2
BEFORE_S = 1.0  # load before the new version is added (and at least MIN_BEFORE answers per client)
AFTER_S = 1.0  # load after the load returned (and at least MIN_AFTER answers per client)
MIN_BEFORE = 5
MIN_AFTER = 5
ROWS = 2  # images a request


def version_of(result, protocol: str) -> str:
    response = result.get_response() if protocol == "http" else result.get_response(as_json=True)
    return str(response["model_version"])


class Sender(threading.Thread):
    """One client sending unversioned requests one after another until told to stop; records
    (sent, answered, version or None, error or None, first row) for each."""

    def __init__(self, server, protocol: str, k: int):
        super().__init__(daemon=True, name=f"{protocol}-{k}")
        self.server, self.protocol, self.k = server, protocol, k
        self.records: list[tuple] = []
        self.stop = threading.Event()
        self.crash: BaseException | None = None

    def answers_since(self, t: float) -> int:
        return sum(1 for r in list(self.records) if r[0] >= t)

    def run(self):
        images, reference = fashion_data()
        try:
            cl = c.make_client(self.protocol, self.server)
        except BaseException as e:  # noqa: BLE001 — reported by the test
            self.crash = e
            return
        try:
            i = 0
            while not self.stop.is_set():
                # Each client walks its own stretch of the test images.
                row = (self.k * 500 + i * ROWS) % (len(images) - ROWS)
                sent = time.monotonic()
                try:
                    r = c.infer(cl, self.protocol, "fashion", {FASHION_INPUT: images[row:row + ROWS]})
                    answered = time.monotonic()
                    out = r.as_numpy(FASHION_OUTPUT)
                    err = np.abs(out - reference[row:row + ROWS]).max() if out is not None else None
                    wrong = None if err is not None and err <= FASHION_TOLERANCE else f"max abs error {err}"
                    self.records.append((sent, answered, version_of(r, self.protocol), wrong, row))
                except Exception as e:  # noqa: BLE001 — a failed request, reported by the test
                    self.records.append((sent, time.monotonic(), None, f"{type(e).__name__}: {e}", row))
                i += 1
        except BaseException as e:  # noqa: BLE001
            self.crash = e
        finally:
            cl.close()


def runs(items) -> str:
    """["1", "1", "2"] -> "1 x2, 2 x1"."""
    out = []
    for x in items:
        if out and out[-1][0] == x:
            out[-1][1] += 1
        else:
            out.append([x, 1])
    return ", ".join(f"{x} x{n}" for x, n in out) or "none"


def wait_for(predicate, what: str, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def test_new_version_loaded_under_load_loses_no_request(serve, repo):
    repo.add_fashion("fashion", versions=[1])
    server = serve(repo.path, "--model-control-mode", "explicit", "--load-model", "fashion")
    senders = [Sender(server, p, k) for p in c.PROTOCOLS for k in range(CLIENTS_PER_PROTOCOL)]
    admin = c.make_client("http", server)
    try:
        start = time.monotonic()
        for s in senders:
            s.start()
        wait_for(lambda: time.monotonic() - start >= BEFORE_S and all(len(s.records) >= MIN_BEFORE for s in senders),
                 f"{MIN_BEFORE} answers from every client")
        repo.write_version("fashion", 2, FASHION_ONNX)
        load_asked = time.monotonic()
        admin.load_model("fashion")
        load_done = time.monotonic()
        wait_for(lambda: time.monotonic() - load_done >= AFTER_S and
                 all(s.answers_since(load_done) >= MIN_AFTER for s in senders),
                 f"{MIN_AFTER} answers to every client after the load")
        assert c.model_metadata(admin, "http", "fashion")["versions"] == ["2"]
    finally:
        for s in senders:
            s.stop.set()
        for s in senders:
            s.join(timeout=60)
        admin.close()

    lines = []
    failures = []
    for s in senders:
        assert s.crash is None, f"client {s.name}: {type(s.crash).__name__}: {s.crash}"
        assert not s.is_alive(), f"client {s.name} still sending 60 s after it was told to stop"
        before = [r for r in s.records if r[1] < load_asked]
        after = [r for r in s.records if r[0] > load_done]
        during = [r for r in s.records if r not in before and r not in after]
        lines.append(f"{s.name}: {len(s.records)} requests; answered before the load was asked {len(before)} "
                     f"(versions {sorted({r[2] for r in before}, key=str)}), sent after it returned {len(after)} "
                     f"(versions {sorted({r[2] for r in after}, key=str)}), around it {len(during)} "
                     f"(versions in order {runs([r[2] for r in during])})")
        for r in s.records:
            if r[2] is None or r[3] is not None:
                failures.append(f"{s.name} request at +{r[0] - start:.3f} s (rows {r[4]}..): {r[3]}")
        for r in before:
            if r[2] not in (None, "1"):
                failures.append(f"{s.name}: answered by version {r[2]} before version 2 was loaded")
        for r in after:
            if r[2] not in (None, "2"):
                failures.append(f"{s.name}: sent {r[0] - load_done:.3f} s after the load returned, answered by "
                                f"version {r[2]}")
        versions = [r[2] for r in s.records if r[2] is not None]
        if "2" in versions and "1" in versions[versions.index("2"):]:
            failures.append(f"{s.name}: version 1 answered again after version 2 had: {versions}")
    summary = (f"load asked at +{load_asked - start:.3f} s, returned after {load_done - load_asked:.3f} s\n"
               + "\n".join(lines))
    print(summary)
    assert not failures, "\n".join(failures[:20]) + f"\n({len(failures)} problems)\n" + summary
