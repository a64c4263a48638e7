"""The documentation holds: every link resolves, every docs page is reachable from the README, the README stays
short, and every untagged ```console example of README.md and docs/ runs as written against build/hone and prints
what the page shows in its stable parts (docs_examples.py has the rules). The tagged ones (`long`, `server`) run in
scripts/check-docs-examples.

The examples run the release binary as the pages write it (build/hone), so the ASan pass of scripts/test, which sets
HONE_BINARY to another build, skips them rather than run the same thing twice.
"""
import os
import re

import pytest

import docs_examples as d

UNTAGGED = [b for b in d.all_blocks() if not b.tags]


def test_links_resolve():
    problems = [p for f in d.doc_files() for p in d.broken_links(f)]
    assert not problems, "\n".join(problems)


def test_a_broken_link_is_found(tmp_path, monkeypatch):
    page = tmp_path / "docs" / "page.md"
    page.parent.mkdir()
    page.write_text("# Title\n\n## A section\n\n[ok](#a-section) [bad anchor](#nowhere) [gone](missing.md)\n"
                    "`[in code](missing.md)`\n```\n[in a block](missing.md)\n```\n")
    monkeypatch.setattr(d, "ROOT", str(tmp_path))
    problems = d.broken_links("docs/page.md")
    assert len(problems) == 2, problems
    assert "#nowhere" in problems[0] and "missing.md" in problems[1]


def test_every_docs_page_is_linked_from_the_readme():
    readme = open(os.path.join(d.ROOT, "README.md"), encoding="utf-8").read()
    linked = set(re.findall(r"\]\((docs/[^)#]+)", readme))
    pages = {os.path.join("docs", f) for f in os.listdir(os.path.join(d.ROOT, "docs")) if f.endswith(".md")}
    assert not pages - linked, f"docs pages the README does not link: {sorted(pages - linked)}"


def test_readme_is_short():
    lines = open(os.path.join(d.ROOT, "README.md"), encoding="utf-8").read().count("\n")
    assert lines <= 250, f"README.md has {lines} lines; the reference belongs in docs/"


def test_output_matching_rules():
    got = "model  m.onnx (415.2 KiB)\nnoise\ninputs (1)\n  image  FP32  [batch, 1, 28, 28]\n"
    assert d.match_output(["model m.onnx (1 KiB)", "...", "  image FP32 [batch, 1, 28, 28]"], got) is None
    assert d.match_output(["inputs ..."], got) is None
    assert d.match_output(["image FP32 [batch, 3, 28, 28]"], got) is None  # numbers are not stable parts
    assert d.match_output(["image FP16 [batch, 1, 28, 28]"], got) is not None  # words are
    assert d.match_output(["inputs (1)", "model m.onnx (1 KiB)"], got) is not None  # so is the order


def test_commands_span_quotes_and_backslashes():
    assert d.command_complete("echo 'a b'")
    assert not d.command_complete("python3 -c '\nimport x")
    assert not d.command_complete("build/hone tune m.onnx \\")
    assert d.command_complete("echo ok   # a comment's quote does not open one")
    assert d.command_complete("curl -w '%{http_code}#x'")


@pytest.mark.skipif(os.environ.get("HONE_BINARY", "build/hone").rstrip("/").endswith(("build-asan/hone",
                                                                                       "build-tsan/hone")),
                    reason="the examples run build/hone as written; the sanitizer pass would run them again")
@pytest.mark.parametrize("block", UNTAGGED, ids=[b.name for b in UNTAGGED])
def test_console_example(block):
    if not os.path.exists(os.path.join(d.ROOT, "build", "hone")):
        pytest.fail("build/hone does not exist (scripts/build)")
    problems = d.run_block(block, timeout=300)
    assert not problems, "\n\n".join(problems)
