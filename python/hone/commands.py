"""hone's commands as Python functions, run in this process by the same C++ code as the `hone` command.

Keyword arguments are the command's flags with underscores (``concurrency=[1, 8]`` is ``--concurrency 1 8``,
``allow_slower=True`` is ``--allow-slower``; ``False`` turns off a flag that is on by default, and is nothing for one
that is off). Each returns the command's JSON report as a typed object; the whole envelope is ``report.envelope``.

Exit meanings are the command line's: bad usage or input (exit 2) raises `hone.InvalidArgumentError` with the
command's own message; a check that failed (exit 1: a variant that did not pass, an unstable measurement, an SLO not
met) is a report with ``passed`` False, and raises only when the command wrote no report. Ctrl-C stops bench and
tune as it stops the command line's, then raises `hone.Interrupted` (a KeyboardInterrupt) carrying the report of
what finished; the other commands run to their end and the KeyboardInterrupt comes as they return. Progress goes to standard
error as it does for the command; the text report the command prints is ``report.text``.
"""

from __future__ import annotations

import os
from typing import Any, NamedTuple, Optional

from . import _hone
from .errors import Error, InvalidArgumentError, error_class


class Report:
    """A command's report. ``envelope``: the whole JSON document (schemas/ in the repository describe it);
    ``body``: its part named after the command; ``passed``: the command exited 0."""

    def __init__(self, envelope: dict, exit_status: int, text: str, messages: str):
        self.envelope = envelope
        self.exit_status = exit_status
        self.text = text
        self.messages = messages

    @property
    def kind(self) -> str:
        return self.envelope["report"]

    @property
    def body(self) -> dict:
        return self.envelope[self.kind]

    @property
    def passed(self) -> bool:
        return self.exit_status == 0

    @property
    def system(self) -> dict:
        return self.envelope.get("system", {})

    def __repr__(self) -> str:
        return f"<hone {self.kind} report: {'passed' if self.passed else 'exit %d' % self.exit_status}>"


class BenchPoint(NamedTuple):
    """One measured point: latencies in microseconds, throughput in requests and samples per second."""

    label: str
    mode: str
    concurrency: Optional[int]
    rate: Optional[float]
    batch: int
    p50_us: float
    p90_us: float
    p99_us: float
    requests_per_s: float
    samples_per_s: float
    error_rate: float
    stable: bool


class BenchReport(Report):
    @property
    def points(self) -> list[BenchPoint]:
        out = []
        for p in self.body.get("points", []):
            lat = p.get("latency_us", {})
            thr = p.get("throughput", {})
            out.append(BenchPoint(p.get("label", ""), p.get("mode", ""), p.get("concurrency"), p.get("rate"),
                                  p.get("batch", 1), lat.get("p50", float("nan")), lat.get("p90", float("nan")),
                                  lat.get("p99", float("nan")), thr.get("requests_per_s", 0.0),
                                  thr.get("samples_per_s", 0.0), p.get("error_rate", 0.0), p.get("stable", False)))
        return out

    @property
    def all_stable(self) -> bool:
        return bool(self.body.get("all_stable"))


class CompareReport(Report):
    @property
    def passed(self) -> bool:
        return bool(self.body.get("passed")) and self.exit_status == 0


class EvaluateReport(Report):
    @property
    def metrics(self) -> dict:
        return self.body.get("metrics", {})


class VariantReport(Report):
    """quantize and convert: the variant written and its verdict ("passed", "failed", "not verified",
    "nothing changed")."""

    @property
    def verdict(self) -> str:
        return self.body.get("verdict", "")

    @property
    def output(self) -> str:
        return self.body.get("output", "")

    @property
    def passed(self) -> bool:
        return self.verdict == "passed" and self.exit_status == 0


class TuneReport(Report):
    @property
    def met(self) -> bool:
        return bool(self.body.get("verdict", {}).get("met"))

    @property
    def repository(self) -> str:
        """The model repository tune wrote, which `hone serve` (and `hone.serve`) serves as it is."""
        return self.body.get("repository", {}).get("path", "")

    @property
    def winner(self) -> dict:
        return self.body.get("winner", {})


_REPORTS = {"bench": BenchReport, "compare": CompareReport, "evaluate": EvaluateReport, "quantize": VariantReport,
            "convert": VariantReport, "tune": TuneReport}
_FLAGS: dict[str, dict[str, tuple[bool, bool]]] = {}


def _flags(command: str) -> dict[str, tuple[bool, bool]]:
    if command not in _FLAGS:
        _FLAGS[command] = {name: (takes_value, positional)
                           for name, takes_value, positional in _hone.command_flags(command)}
    return _FLAGS[command]


def _value(v: Any) -> str:
    return os.fspath(v) if isinstance(v, os.PathLike) else str(v)


def _arguments(command: str, positional: list, options: dict) -> list[str]:
    flags = _flags(command)
    args = [command, *(_value(p) for p in positional)]
    for key, value in options.items():
        if value is None:
            continue
        name = key.replace("_", "-")
        if value is True:
            args.append(f"--{name}")
        elif value is False:
            # Off: written only where the command has a flag that turns it off; otherwise it is off already.
            if f"no-{name}" in flags:
                args.append(f"--no-{name}")
        elif isinstance(value, (list, tuple)):
            args += [f"--{name}", *(_value(v) for v in value)]
        else:
            args += [f"--{name}", _value(value)]
    return args


def run(command: str, *positional: Any, **options: Any) -> Report:
    """Runs ``hone COMMAND POSITIONAL... --OPTION VALUE...`` in this process and returns its report."""
    import tempfile  # here, not at import: it costs milliseconds a Session-only user need not pay

    if command == "serve":
        # The command line's serve owns the process's signals until it exits; hone.serve is the in-process server.
        raise InvalidArgumentError("use hone.serve(repository) to serve from Python (hone.run('serve') would take "
                                   "over the process's signals)")
    if not _flags(command) and command not in ("version", "help"):
        raise InvalidArgumentError(f"hone has no command '{command}'")
    with tempfile.TemporaryDirectory(prefix="hone-") as tmp:
        wants_json = "json" in _flags(command) and "json" not in options
        json_path = os.path.join(tmp, "report.json")
        args = _arguments(command, list(positional), options)
        if wants_json:
            args += ["--json", json_path]
        status, out, err = _hone.run_command(args)
        # Where the report is: --json's file, or (tune) report.json in the --out folder.
        report_file = options.get("json", json_path if wants_json else None)
        if report_file is None and options.get("out") is not None:
            report_file = os.path.join(os.fspath(options["out"]), "report.json")
        envelope = None
        if report_file not in (None, "-") and os.path.exists(report_file):
            import json
            with open(report_file, encoding="utf-8") as f:
                envelope = json.load(f)
    if status == 2 or envelope is None:
        message = err.strip() or out.strip() or f"hone {command} exited with status {status}"
        if status == 0:
            return Report({"report": command, command: {}}, status, out, err)
        cls = InvalidArgumentError if status == 2 else Error
        e = cls(message)
        e.exit_status = status
        raise e
    report = _REPORTS.get(envelope.get("report", command), Report)(envelope, status, out, err)
    if status == 130:
        # Ctrl-C: the command stopped as it does on the command line, reporting what finished; Python's way is to
        # raise, with that report on the exception.
        raise Interrupted(f"hone {command} was interrupted; what finished is in .report", report)
    return report


class Interrupted(KeyboardInterrupt):
    """Ctrl-C while a command ran: ``report`` holds what it finished (its ``interrupted`` is true)."""

    def __init__(self, message: str, report: Report):
        super().__init__(message)
        self.report = report


def info(model, **options) -> Report:
    """`hone info MODEL`: inputs, outputs, operators, parameters.

    >>> hone.info("model.onnx").body["parameter_count"]
    105868
    """
    return run("info", model, **options)


def bench(model=None, **options) -> BenchReport:
    """`hone bench MODEL`: latency percentiles, throughput, errors and memory at each point.

    >>> r = hone.bench("model.onnx", concurrency=[1, 4])
    >>> [(p.concurrency, round(p.p99_us)) for p in r.points]
    """
    return run("bench", *([] if model is None else [model]), **options)


def compare(reference, candidate, **options) -> CompareReport:
    """`hone compare REFERENCE CANDIDATE`: outputs on the same inputs against tolerances (``passed``).

    >>> hone.compare("model.onnx", "model.int8.onnx", data="test.npz", atol=["logits:1e-3"]).passed
    True
    """
    return run("compare", reference, candidate, **options)


def evaluate(model, **options) -> EvaluateReport:
    """`hone evaluate MODEL --data D.npz`: task metrics, slices, calibration, robustness.

    >>> hone.evaluate("model.onnx", data="test.npz").metrics["accuracy"]["value"]
    0.9025
    """
    return run("evaluate", model, **options)


def quantize(model, output, **options) -> VariantReport:
    """`hone quantize MODEL -o OUTPUT --mode ...`: the variant, verified against its source (``verdict``).

    >>> r = hone.quantize("model.onnx", "model.int8.onnx", mode="dynamic", data="test.npz")
    >>> r.verdict, r.output          # "failed" when it is slower or less accurate than its source
    """
    return run("quantize", model, output=output, **options)


def convert(model, output, **options) -> VariantReport:
    """`hone convert MODEL -o OUTPUT --to fp16|bf16`: the variant, verified against its source.

    >>> hone.convert("model.onnx", "model.bf16.onnx", to="bf16", data="test.npz").verdict
    """
    return run("convert", model, output=output, **options)


def profile(model, **options) -> Report:
    """`hone profile MODEL`: where the time goes, per operator.

    >>> [op["op_type"] for op in hone.profile("model.onnx", batch=8).body["op_types"][:3]]
    """
    return run("profile", model, **options)


def tune(model, data, output, **options) -> TuneReport:
    """`hone tune MODEL --data D.npz --slo ... -o OUTPUT`: the whole workflow; ``repository`` is what it wrote.

    >>> r = hone.tune("model.onnx", "data.npz", "out/", slo="p99<=5ms@concurrency=8", quick=True)
    >>> r.met, r.repository
    """
    return run("tune", model, data=data, out=output, **options)


__all__ = ["run", "info", "bench", "compare", "evaluate", "quantize", "convert", "profile", "tune", "Report",
           "BenchReport", "BenchPoint", "CompareReport", "EvaluateReport", "VariantReport", "TuneReport",
           "error_class"]
