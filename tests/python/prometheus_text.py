"""A small reader of the Prometheus text exposition format, enough for the tests' questions."""

from __future__ import annotations

import re

_SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$')
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse(text: str) -> list[tuple[str, dict[str, str], float]]:
    """(name, labels, value) for each sample line; comments (# HELP, # TYPE) skipped."""
    samples = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = _SAMPLE.match(line)
        if not m:
            raise ValueError(f"not a Prometheus sample line: {line!r}")
        name, labels, value = m.groups()
        samples.append((name, dict(_LABEL.findall(labels or "")), float(value)))
    return samples


def types(text: str) -> dict[str, str]:
    """metric family -> counter | gauge | histogram | ... from the # TYPE lines."""
    out = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 4 and parts[0] == "#" and parts[1] == "TYPE":
            out[parts[2]] = parts[3]
    return out


def value(samples, name: str, **labels) -> float | None:
    """The value of the one sample named `name` whose labels include `labels`; None when there is none."""
    found = [v for n, l, v in samples if n == name and all(l.get(k) == str(x) for k, x in labels.items())]
    if not found:
        return None
    assert len(found) == 1, f"{len(found)} samples {name}{labels}"
    return found[0]
