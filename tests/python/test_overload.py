"""Overload: an open-loop load at 5x a model's capacity against a bounded queue. What should hold ("keep what
works"): every request gets exactly one answer, 200 or 503; the 200s are right; the 503s name the full queue
(how fast they come is printed, not asserted); the admitted requests wait no longer than their queue allows; the
server's memory stays flat; the statistics add up; the server is still ready afterwards.

HONE_OVERLOAD_SECONDS (default 30) sets how long the overload lasts.

The load comes from one asyncio loop over raw HTTP/1.1 keep-alive connections (JSON KServe v2 bodies): request i
is due at t0 + i / rate whatever happened to the ones before it (open loop); it goes out on an idle connection,
or on a new one when every connection is waiting for an answer.
"""

from __future__ import annotations

import asyncio
import collections
import json
import os
import socket
import statistics as pystats
import time

import numpy as np
import pytest

import clients as c
from hone_server import http_get
from model_repo import SLOW_INPUT, SLOW_OUTPUT, SLOW_WIDTH, slow_config

OVERLOAD_SECONDS = float(os.environ.get("HONE_OVERLOAD_SECONDS", "30"))
OVERLOAD_FACTOR = 5.0
MAX_BATCH = 2
MAX_QUEUE = 4
# The slow model at several sizes; the test uses the smallest whose request alone takes TARGET_EXEC_MS or more on
# this machine (the time per iteration differs several-fold between machines and builds), so that an execution takes
# a few ms and 5x the capacity stays a rate one Python process can send (hundreds to ~2000 a second).
CANDIDATE_ITERATIONS = (300, 900, 2700, 8100)
TARGET_EXEC_MS = 3.0
CAPACITY_CLIENTS = 4
CAPACITY_SECONDS = 2.0
MAX_CONNECTIONS = 512  # past this, a request waits for a connection to come free (the client has 1024+ descriptors)
RSS_PERIOD_S = 0.5
# RSS in the last third of the overload may exceed the most of the first third by this much. What the server holds
# under this load is bounded: MAX_QUEUE queued requests of 16 bytes of tensor, one batch of MAX_BATCH, and a buffer
# or two per client connection (the pool opens tens of connections, ~150 when a busy machine stalls this client
# and it then sends a burst; even at 64 KiB a connection that is ~10 MiB). Allocator and thread-arena noise is a
# few MiB (growth seen here: ~1 MiB on ~53 MiB). Over the ~20 s between the thirds the test sends 10,000-50,000
# requests, most of them rejected, so a leak of a few KiB per request (a parsed request, its error string and
# reply) goes past the bound; a smaller one may not.
RSS_GROWTH_BOUND_MIB = 32
ANSWER_TIMEOUT_S = 30.0  # after the last request is sent, how long the answers may take


def config(name):
    return slow_config(name, max_batch_size=MAX_BATCH,
                       dynamic_batching=f"default_queue_policy {{ max_queue_size: {MAX_QUEUE} }}",
                       extra="instance_group [ { count: 1 kind: KIND_CPU } ]\n")


def values(i: int) -> list[float]:
    # Distinct per request and exact in FP32 (and in JSON).
    return [float(i), i + 0.25, -float(i), float(i % 7) - 3.5]


def request_bytes(model: str, i: int) -> bytes:
    body = ('{"id":"%d","inputs":[{"name":"%s","shape":[1,%d],"datatype":"FP32","data":%s}]}'
            % (i, SLOW_INPUT, SLOW_WIDTH, json.dumps(values(i)))).encode()
    return (f"POST /v2/models/{model}/infer HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body


class Pool:
    """Keep-alive connections to the server's HTTP port: an idle one when there is one, else a new one; past
    MAX_CONNECTIONS, the next one that comes free (handed over in the order asked)."""

    def __init__(self, host: str, port: int):
        self.host, self.port = host, port
        self.idle: list = []
        self.waiters: collections.deque = collections.deque()  # futures: a connection, or None: open one
        self.opened = 0
        self.closed_by_server = 0
        self.open_now = 0  # open or being opened
        self.most_open = 0
        self.waited = 0  # requests that waited for a connection to come free

    async def acquire(self):
        if self.idle:
            return self.idle.pop()
        if self.open_now >= MAX_CONNECTIONS:
            self.waited += 1
            waiter = asyncio.get_running_loop().create_future()
            self.waiters.append(waiter)
            conn = await waiter
            if conn is not None:
                return conn
        else:
            self.open_now += 1
            self.most_open = max(self.most_open, self.open_now)
        try:
            reader, writer = await asyncio.open_connection(self.host, self.port)
        except BaseException:
            self._closed()
            raise
        writer.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.opened += 1
        return reader, writer

    def _next_waiter(self):
        while self.waiters:
            waiter = self.waiters.popleft()
            if not waiter.done():  # not cancelled
                return waiter
        return None

    def _closed(self):
        waiter = self._next_waiter()
        if waiter is not None:
            waiter.set_result(None)  # its turn to open one
        else:
            self.open_now -= 1

    def release(self, conn, keep: bool):
        if not keep:
            conn[1].close()
            self._closed()
            return
        waiter = self._next_waiter()
        if waiter is not None:
            waiter.set_result(conn)
        else:
            self.idle.append(conn)

    def close(self):
        while self.idle:
            self.idle.pop()[1].close()
            self.open_now -= 1


async def exchange(pool: Pool, data: bytes, where: list | None = None):
    """One request on a pooled connection: (status, body, seconds from the write to the last byte of the answer).
    Raises on a connection error or a malformed answer. where[0], if given, says how far it got."""
    if where is not None:
        where[0] = "waiting for a connection"
    conn = await pool.acquire()
    reader, writer = conn
    ok = False
    try:
        if where is not None:
            where[0] = f"sent on the connection from port {writer.get_extra_info('sockname')[1]}, no answer"
        start = time.perf_counter()
        writer.write(data)
        head = await reader.readuntil(b"\r\n\r\n")
        if where is not None:
            where[0] = f"status line and headers read, not the body: {head!r}"
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        headers = {}
        for line in lines[1:]:
            if line:
                k, _, v = line.partition(":")
                headers[k.strip().lower()] = v.strip()
        if "content-length" not in headers:
            raise AssertionError(f"answer without Content-Length: {head!r}")
        body = await reader.readexactly(int(headers["content-length"]))
        seconds = time.perf_counter() - start
        ok = headers.get("connection", "").lower() != "close"
        if not ok:
            pool.closed_by_server += 1
        return status, body, seconds
    finally:
        pool.release(conn, ok)  # ok False: closed (a connection error, a cancelled wait, or the server said close)


async def assert_nothing_more(pool):
    """No idle connection has bytes the client did not ask for (a second answer to one request)."""

    async def extra(conn):
        try:
            return await asyncio.wait_for(conn[0].read(1), 0.05)
        except asyncio.TimeoutError:
            return None

    got = await asyncio.gather(*(extra(conn) for conn in pool.idle))
    unasked = [b for b in got if b is not None]
    assert not unasked, f"{len(unasked)} of {len(got)} idle connections had more to read: {unasked[:5]}"


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError(f"no VmRSS in /proc/{pid}/status")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of the process so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def stats_of(server, model) -> dict:
    cl = c.make_client("http", server)
    try:
        (s,) = c.statistics(cl, "http", model)
        return s
    finally:
        cl.close()


def delta(after: dict, before: dict) -> dict:
    """after - before: counts and durations of the requests in between."""
    inf = {k: {f: after["inference_stats"][k][f] - before["inference_stats"][k][f] for f in ("count", "ns")}
           for k in after["inference_stats"]}
    before_batches = {b["batch_size"]: b for b in before["batch_stats"]}
    batches = {}
    for b in after["batch_stats"]:
        p = before_batches.get(b["batch_size"])
        batches[b["batch_size"]] = {
            k: {f: b[k][f] - (p[k][f] if p else 0) for f in ("count", "ns")}
            for k in ("compute_input", "compute_infer", "compute_output")}
    return {"inference_stats": inf, "batch_stats": batches,
            "execution_count": after["execution_count"] - before["execution_count"],
            "inference_count": after["inference_count"] - before["inference_count"]}


def mean_ms(d: dict) -> float:
    return d["ns"] / d["count"] / 1e6 if d["count"] else 0.0


async def calibrate(pool) -> tuple[str, dict]:
    """The model to overload (see CANDIDATE_ITERATIONS): the smallest whose quickest of 8 requests, one at a time,
    took TARGET_EXEC_MS or more at the client (the quickest: a machine shared with other work slows some)."""
    seen = {}
    for iterations in CANDIDATE_ITERATIONS:
        name = f"slow{iterations}"
        times = []
        for i in range(8):
            status, body, seconds = await exchange(pool, request_bytes(name, i))
            assert status == 200, (name, status, body)
            times.append(seconds)
        seen[name] = round(min(times) * 1e3, 2)
        if min(times) * 1e3 >= TARGET_EXEC_MS:
            break
    return name, seen


async def closed_loop(pool, model, clients: int, seconds: float) -> tuple[int, int, float]:
    """`clients` senders, each one request at a time, for `seconds`: (successes, rejections, elapsed s)."""
    counts = {200: 0, 503: 0}
    start = time.perf_counter()
    stop = start + seconds

    async def one_client(k):
        i = 1_000_000 * (k + 1)
        while time.perf_counter() < stop:
            status, body, _ = await exchange(pool, request_bytes(model, i))
            assert status in counts, (status, body)
            counts[status] += 1
            i += 1

    await asyncio.gather(*(one_client(k) for k in range(clients)))
    return counts[200], counts[503], time.perf_counter() - start


async def open_loop(pool, model, rate: float, seconds: float, pid: int):
    """Sends round(rate * seconds) requests, request i due at t0 + i / rate. Returns (n, answers, errors, send
    times, lags, rss samples): answers[i] = (status, body, seconds); errors [(i, what)]; rss [(s, KiB)]."""
    n = int(round(rate * seconds))
    answers: dict[int, tuple] = {}
    errors: list[tuple[int, str]] = []
    sent_at: list[float] = [0.0] * n
    lags: list[float] = [0.0] * n
    rss: list[tuple[float, int]] = []
    sending = True

    async def sample_rss():
        t0 = time.perf_counter()
        while sending:
            rss.append((time.perf_counter() - t0, rss_kib(pid)))
            await asyncio.sleep(RSS_PERIOD_S)

    where: dict[int, list] = {}

    async def one(i, data):
        where[i] = [""]
        try:
            answers[i] = await exchange(pool, data, where[i])
        except Exception as e:  # noqa: BLE001 — the failure to report
            errors.append((i, f"{type(e).__name__}: {e} ({where[i][0]})"))

    sampler = asyncio.ensure_future(sample_rss())
    tasks = []
    t0 = time.perf_counter() + 0.05
    for i in range(n):
        data = request_bytes(model, i)
        due = t0 + i / rate
        wait = due - time.perf_counter()
        if wait > 0:
            await asyncio.sleep(wait)
        else:
            await asyncio.sleep(0)  # behind schedule: send now, but let the answers in
        now = time.perf_counter()
        sent_at[i] = now
        lags[i] = max(0.0, now - due)
        tasks.append(asyncio.ensure_future(one(i, data)))
    done, pending = await asyncio.wait(tasks, timeout=ANSWER_TIMEOUT_S) if tasks else (set(), set())
    for t in pending:
        t.cancel()
    if pending:
        await asyncio.wait(pending)
    sending = False
    await sampler
    answered = set(answers) | {i for i, _ in errors}
    for i in range(n):
        if i not in answered:
            errors.append((i, f"nothing {ANSWER_TIMEOUT_S:.0f} s after the last request was due: {where[i][0]}"))
    return n, answers, errors, sent_at, lags, rss


@pytest.mark.timeout(OVERLOAD_SECONDS + 150)
def test_overload_keeps_what_works(serve, repo):
    for iterations in CANDIDATE_ITERATIONS:
        repo.add_slow(f"slow{iterations}", iterations=iterations, config=config(f"slow{iterations}"))
    server = serve(repo.path)

    async def scenario():
        pool = Pool("127.0.0.1", server.http_port)
        try:
            model, seen = await calibrate(pool)
            cap_before = stats_of(server, model)
            ok, rejected, elapsed = await closed_loop(pool, model, CAPACITY_CLIENTS, CAPACITY_SECONDS)
            before = stats_of(server, model)
            cap = delta(before, cap_before)["batch_stats"]
            cap_batches = {size: b["compute_infer"]["count"] for size, b in sorted(cap.items())}
            cap_exec_ms = sum(b["compute_infer"]["ns"] for b in cap.values()) / max(1, sum(cap_batches.values())) / 1e6
            capacity = ok / elapsed
            rate = OVERLOAD_FACTOR * capacity
            cpu = cpu_seconds(server.proc.pid)
            result = await open_loop(pool, model, rate, OVERLOAD_SECONDS, server.proc.pid)
            cpu = cpu_seconds(server.proc.pid) - cpu
            await assert_nothing_more(pool)
            return dict(model=model, seen=seen, capacity=capacity, cap_rejected=rejected, cap_batches=cap_batches,
                        cap_exec_ms=cap_exec_ms, rate=rate, cpu=cpu, before=before, result=result, pool=pool)
        finally:
            pool.close()

    wall = time.perf_counter()
    run = asyncio.run(scenario())
    wall = time.perf_counter() - wall
    model, capacity, rate, before, pool = run["model"], run["capacity"], run["rate"], run["before"], run["pool"]
    n, answers, errors, sent_at, lags, rss = run["result"]

    figures = []

    def say(line):
        figures.append(line)
        print(line)

    send_span = sent_at[-1] - sent_at[0] if n > 1 else 0.0
    achieved = (n - 1) / send_span if send_span > 0 else 0.0
    say(f"model {model} (quickest request alone, ms, by candidate: {run['seen']}); capacity {capacity:.0f}/s "
        f"({CAPACITY_CLIENTS} closed-loop clients for {CAPACITY_SECONDS:.0f} s, {run['cap_rejected']} rejected; "
        f"executions by batch size {run['cap_batches']}, {run['cap_exec_ms']:.2f} ms each)")
    say(f"open loop: {n} requests over {OVERLOAD_SECONDS:.0f} s at {rate:.0f}/s ({OVERLOAD_FACTOR:.0f}x); sent at "
        f"{achieved:.0f}/s, schedule lag median {pystats.median(lags) * 1e3:.1f} ms, p99 "
        f"{sorted(lags)[int(0.99 * (n - 1))] * 1e3:.1f} ms, max {max(lags) * 1e3:.1f} ms; connections opened "
        f"{pool.opened}, most open at once {pool.most_open} (cap {MAX_CONNECTIONS}; {pool.waited} requests waited for "
        f"one), closed by the server {pool.closed_by_server}")
    report = "\n".join(figures)

    # Every request sent got exactly one answer, from the server, 200 or 503.
    assert not errors, f"{len(errors)} of {n} requests got no answer, e.g. {errors[:5]}\n{report}"
    assert len(answers) == n, f"{len(answers)} answers to {n} requests\n{report}"
    by_status: dict[int, list[int]] = {}
    for i, (status, _, _) in answers.items():
        by_status.setdefault(status, []).append(i)
    counts = {s: len(v) for s, v in sorted(by_status.items())}
    say(f"answers by status: {counts}")
    report = "\n".join(figures)
    assert set(by_status) <= {200, 503}, f"statuses other than 200 and 503: {counts}\n" + "\n".join(
        f"request {i}: {answers[i][0]} {answers[i][1][:300]!r}" for s, v in by_status.items() if s not in (200, 503)
        for i in v[:3])
    ok, rejected = by_status.get(200, []), by_status.get(503, [])
    # At 5x the measured capacity about 4 requests in 5 find the queue full. The capacity measured in 2 s on a
    # machine shared with other work can be low by 2x or more, so this asks only for a quarter: an overload of at
    # least 4/3 of what the server could serve.
    assert ok and len(rejected) >= n / 4, \
        f"expected mostly rejections at {OVERLOAD_FACTOR:.0f}x capacity, got {counts}\n{report}"

    # The successes are right (the slow model returns its input); the rejections name the full queue.
    for i in ok:
        doc = json.loads(answers[i][1])
        assert doc.get("id") == str(i), (i, doc)
        (out,) = doc["outputs"]
        assert out["name"] == SLOW_OUTPUT and out["shape"] == [1, SLOW_WIDTH] and out["datatype"] == "FP32", (i, doc)
        assert [float(x) for x in out["data"]] == values(i), (i, doc)
    for i in rejected:
        doc = json.loads(answers[i][1])
        error = doc.get("error", "")
        assert "queue" in error.lower() and "full" in error.lower(), (i, doc)

    # The statistics add up, and say how long rejections and queueing took in the server.
    deadline = time.monotonic() + 5.0
    while True:
        d = delta(stats_of(server, model), before)
        inf = d["inference_stats"]
        if (inf["success"]["count"], inf["fail"]["count"]) == (len(ok), len(rejected)) or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    executions = sum(b["compute_infer"]["count"] for b in d["batch_stats"].values())
    exec_ns = sum(b[k]["ns"] for b in d["batch_stats"].values()
                  for k in ("compute_input", "compute_infer", "compute_output"))
    exec_mean_ms = exec_ns / executions / 1e6 if executions else 0.0
    batch_sizes = {size: b["compute_infer"]["count"] for size, b in sorted(d["batch_stats"].items())}
    queue_mean_ms = mean_ms(inf["queue"])
    queue_bound_ms = (MAX_QUEUE / MAX_BATCH + 1) * exec_mean_ms
    fail_mean_ms = mean_ms(inf["fail"])
    reject_latencies = sorted(answers[i][2] for i in rejected)
    ok_latencies = sorted(answers[i][2] for i in ok)
    client_reject_median_ms = pystats.median(reject_latencies) * 1e3
    say(f"server: success {inf['success']['count']}, fail {inf['fail']['count']}; failed requests took "
        f"{fail_mean_ms * 1e3:.0f} us on average; executions {executions} by batch size {batch_sizes}, "
        f"{exec_mean_ms:.2f} ms each (input {mean_ms(inf['compute_input']):.3f} + infer "
        f"{mean_ms(inf['compute_infer']):.2f} + output {mean_ms(inf['compute_output']):.3f} ms a request); "
        f"queue {queue_mean_ms:.2f} ms on average for a success (bound {queue_bound_ms:.2f} ms = "
        f"{MAX_QUEUE}/{MAX_BATCH}+1 executions)")
    say(f"client: rejection latency median {client_reject_median_ms:.2f} ms, p99 "
        f"{reject_latencies[int(0.99 * (len(reject_latencies) - 1))] * 1e3:.2f} ms; success latency median "
        f"{pystats.median(ok_latencies) * 1e3:.2f} ms, max {ok_latencies[-1] * 1e3:.1f} ms; "
        f"successes {len(ok) / send_span:.0f}/s while sending (sent {achieved / (len(ok) / send_span):.1f}x that)")
    say(f"server CPU during the overload {run['cpu']:.1f} s (user + system), {run['cpu'] / n * 1e6:.0f} us a request "
        f"(the executions took {exec_ns / 1e9:.1f} s of wall time: more than the CPU they got means waiting for a core)")
    rss_mib = [(round(t, 1), round(kib / 1024, 1)) for t, kib in rss]
    third = max(1, len(rss) // 3)
    first_max = max(kib for _, kib in rss[:third]) / 1024
    last_max = max(kib for _, kib in rss[-third:]) / 1024
    say(f"RSS MiB (s, MiB): {rss_mib}; most of the first third {first_max:.1f}, of the last third {last_max:.1f} "
        f"(bound +{RSS_GROWTH_BOUND_MIB})")
    say(f"calibration, capacity and overload took {wall:.1f} s")
    report = "\n".join(figures)

    assert inf["success"]["count"] == len(ok), f"statistics: {inf['success']['count']} successes, {len(ok)} 200s\n{report}"
    assert inf["fail"]["count"] == len(rejected), \
        f"statistics: {inf['fail']['count']} failures, {len(rejected)} 503s\n{report}"
    assert d["inference_count"] == len(ok), f"inference_count {d['inference_count']}, {len(ok)} 200s\n{report}"

    # How fast rejections are, in the server and at the client, is printed above (the figures), not asserted: on a
    # shared or sanitized machine it measures the machine. What is asserted is behaviour: every request answered
    # once, every rejection counted, memory flat.

    # Admitted requests wait no longer than their queue allows.
    assert executions > 0 and queue_mean_ms <= queue_bound_ms, \
        f"mean queue time of a success {queue_mean_ms:.2f} ms > {queue_bound_ms:.2f} ms\n{report}"

    # Memory stays flat.
    assert len(rss) >= 3, f"only {len(rss)} RSS samples\n{report}"
    assert last_max <= first_max + RSS_GROWTH_BOUND_MIB, \
        f"RSS grew from {first_max:.1f} MiB (first third) to {last_max:.1f} MiB (last third)\n{report}"

    # Still ready, and still serving.
    status, body, _ = http_get(server.http_url, "/v2/health/ready")
    assert status == 200, (status, body)
    cl = c.make_client("http", server)
    try:
        x = np.arange(SLOW_WIDTH, dtype=np.float32).reshape(1, SLOW_WIDTH)
        r = c.infer(cl, "http", model, {SLOW_INPUT: x})
        np.testing.assert_array_equal(r.as_numpy(SLOW_OUTPUT), x)
    finally:
        cl.close()
