"""report.html of `hone tune`, rendered by a real browser: headless Chromium (Debian's `chromium`) loads the page the
C++ test wrote from the fixture report (<build>/test-reports/tune_report_fixture.html, by tune_test's
TuneReportToHtmlTest.TheFixtureHasEverySectionAndWritesItsPage), its DOM must hold the verdict, the stage table and
the rejected candidates, and its screenshot must have content: several colours, a share of non-white pixels, the
green of a met verdict and the blue of the charts. The PNG is read with zlib and struct alone.

Skipped only when chromium is not installed (scripts/setup installs it)."""

from __future__ import annotations

import html.parser
import shutil
import struct
import subprocess
import zlib

import pytest

from hone_server import hone_binary

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FIXTURE_TEST = "TuneReportToHtmlTest.TheFixtureHasEverySectionAndWritesItsPage"


@pytest.fixture(scope="module")
def page():
    """The fixture's page, written by tune_test now if ctest has not written it yet."""
    build = hone_binary().parent
    path = build / "test-reports" / "tune_report_fixture.html"
    if not path.exists():
        tune_test = build / "src" / "tune" / "tune_test"
        assert tune_test.exists(), f"neither {path} nor {tune_test} exists: build hone first (scripts/build)"
        r = subprocess.run([str(tune_test), f"--gtest_filter={FIXTURE_TEST}"], capture_output=True, text=True,
                           timeout=120)
        assert r.returncode == 0 and path.exists(), f"{tune_test} did not write {path}:\n{r.stdout}{r.stderr}"
    return path


def chromium(tmp_path, *args) -> subprocess.CompletedProcess:
    if not CHROMIUM:
        pytest.skip("chromium is not installed (scripts/setup installs Debian's chromium)")
    # A profile of its own: no state shared with another run or the user's browser.
    command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1280,2400", *args]
    r = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"{' '.join(command)} exited {r.returncode}:\n{r.stderr[-4000:]}"
    return r


class SectionText(html.parser.HTMLParser):
    """The visible text of each <section id=...>, whitespace collapsed."""

    def __init__(self):
        super().__init__()
        self.sections: dict[str, list[str]] = {}
        self.current: str | None = None
        self.skip = 0  # inside <style> or <title>: not visible text

    def handle_starttag(self, tag, attrs):
        if tag == "section":
            self.current = dict(attrs).get("id")
            self.sections.setdefault(self.current, [])
        if tag in ("style", "title"):
            self.skip += 1

    def handle_endtag(self, tag):
        if tag == "section":
            self.current = None
        if tag in ("style", "title"):
            self.skip -= 1

    def handle_data(self, data):
        if self.current is not None and not self.skip:
            self.sections[self.current].append(data)

    def text(self, section: str) -> str:
        return " ".join(" ".join(self.sections.get(section, [])).split())


def read_png(path) -> tuple[int, int, list[bytes], int]:
    """(width, height, rows of raw pixel bytes, bytes per pixel) of an 8-bit RGB or RGBA, non-interlaced PNG."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    pos, idat, header = 8, [], b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IHDR":
            header = data[pos + 8:pos + 8 + length]
        elif kind == b"IDAT":
            idat.append(data[pos + 8:pos + 8 + length])
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8 and colour in (2, 6) and interlace == 0, f"unexpected PNG format {depth=} {colour=}"
    bpp = 3 if colour == 2 else 4
    stride = width * bpp
    raw = zlib.decompress(b"".join(idat))
    # "Up" rows add the row above byte by byte: done on whole-row integers with the carries masked off.
    low7, high1 = int.from_bytes(b"\x7f" * stride, "big"), int.from_bytes(b"\x80" * stride, "big")
    rows, prev = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        if kind == 1:  # Sub
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif kind == 2:  # Up
            a, b = int.from_bytes(line, "big"), int.from_bytes(prev, "big")
            line = bytearray((((a & low7) + (b & low7)) ^ ((a ^ b) & high1)).to_bytes(stride, "big"))
        elif kind == 3:  # Average
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif kind == 4:  # Paeth
            for i in range(stride):
                a, c = (line[i - bpp], prev[i - bpp]) if i >= bpp else (0, 0)
                b = prev[i]
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        else:
            assert kind == 0, f"row {y}: unknown PNG filter {kind}"
        rows.append(bytes(line))
        prev = line
    return width, height, rows, bpp


def test_the_dom_holds_the_verdict_the_stages_and_the_rejected_candidates(page, tmp_path):
    dom = chromium(tmp_path, "--dump-dom", page.as_uri()).stdout
    parser = SectionText()
    parser.feed(dom)
    assert list(parser.sections) == ["verdict", "loads", "curves", "pareto", "profile", "stages", "rejected",
                                     "skipped", "repository", "system"]
    verdict = parser.text("verdict")
    assert "SLO met" in verdict
    assert "p99<=5ms@concurrency=8 2.1 ms 5 ms 58% headroom 5,400 samples/s met" in verdict
    assert "$0.00020 $0.000060 3.33x cheaper" in verdict
    stages = parser.text("stages")
    # Each stage with the signal that decided it and its paired rounds ("-" where the stage does not say).
    for row in ["batching improved batch32-delay0 throughput 4 2.10x 2.10x 41.2 s max_batch_size 32",
                "graph no gain none - - no change no change 22.7 s",
                "precision improved int8-dynamic+batch32 - - 3.40x 1.60x 96.5 s"]:
        assert row in stages, f"{row!r} not in the stages table: {stages}"
    assert "batching: 3 trials" in stages and "batch32-delay500" in stages
    # A trial's p99 with the requests it rests on, its CPU per sample and its paired intervals.
    assert "3 ms over 1204 requests 118.4 us 2.10x (1.90-2.30x, 4 rounds) 1.80x (1.70-1.90x, 4 rounds)" in stages
    rejected = parser.text("rejected")
    for row in ["int8-static+batch32 precision slower: 0.71x the throughput of its source",
                "batch32-delay500 batching throughput spread 12% > 10%: not stable"]:
        assert row in rejected, f"{row!r} not in the rejected candidates: {rejected}"
    assert "Conv takes 71% of the kernel time" in parser.text("profile")
    # Three inline charts and the split's bars, drawn by the browser as SVG.
    assert dom.count("<svg") == 4


def test_the_screenshot_has_content(page, tmp_path):
    shot = tmp_path / "report.png"
    chromium(tmp_path, f"--screenshot={shot}", page.as_uri())
    width, height, rows, bpp = read_png(shot)
    assert (width, height) == (1280, 2400)
    colours, non_white, green, blue, total = set(), 0, 0, 0, 0
    for row in rows[::2]:  # every other row and pixel: plenty for these figures, a quarter of the work
        for x in range(0, width * bpp, 2 * bpp):
            r, g, b = row[x], row[x + 1], row[x + 2]
            total += 1
            colours.add((r >> 4, g >> 4, b >> 4))
            if min(r, g, b) < 235:
                non_white += 1
            if g > r + 60 and g > b + 30:  # the met verdict's border and headline (#2e7d32, #1b5e20)
                green += 1
            if b > r + 80 and b > g + 30:  # the charts' first colour (#1f77b4)
                blue += 1
    share = non_white / total
    print(f"screenshot {width}x{height}: {len(colours)} distinct colours (4 bits a channel), "
          f"{share:.1%} non-white, {green} green and {blue} blue pixels (of {total} sampled)")
    assert len(colours) >= 20, f"only {len(colours)} distinct colours: blank or broken page"
    assert 0.03 <= share <= 0.9, f"{share:.1%} of the pixels are not white"
    assert green >= 100, f"{green} green pixels: no met verdict box"
    assert blue >= 100, f"{blue} blue pixels: no chart drawn"
