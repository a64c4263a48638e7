"""hone's tokenizer (the `tokenize` tool) against Hugging Face `tokenizers` on real tokenizer.json files.

For every tokenizer.json found — the reference ones checked in under src/process/testdata/ (always) and
examples/text-embedding/minilm_tokenize/1/tokenizer.json (the real all-MiniLM-L6-v2 tokenizer, when a fetch script
has put it there) and examples/llm/smollm2/1/tokenizer.json (the real SmolLM2 one, built from its GGUF by
scripts/fetch-models) — every text of tests/data/tokenizer_texts.jsonl is encoded by both, and ids, type ids and
attention masks must be identical. A failure names the first differing text and token.

The tool: $HONE_TOKENIZE, default `tokenize` beside $HONE_BINARY (default build/tokenize). Set
HONE_ALLOW_MISSING_TOKENIZE=1 to skip (instead of fail) when it has not been built.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess

import pytest

from hone_server import ROOT, hone_binary

tokenizers = pytest.importorskip("tokenizers")

TEXTS = ROOT / "tests" / "data" / "tokenizer_texts.jsonl"
MINILM = ROOT / "examples" / "text-embedding" / "minilm_tokenize" / "1" / "tokenizer.json"
SMOLLM2 = ROOT / "examples" / "llm" / "smollm2" / "1" / "tokenizer.json"
CHECKED_IN = sorted((ROOT / "src" / "process" / "testdata").glob("*.tokenizer.json"))


def tokenize_binary() -> pathlib.Path:
    if "HONE_TOKENIZE" in os.environ:
        return pathlib.Path(os.environ["HONE_TOKENIZE"])
    return hone_binary().parent / "tokenize"


@pytest.fixture(scope="module")
def tool() -> pathlib.Path:
    binary = tokenize_binary()
    if not binary.exists():
        problem = f"{binary} does not exist (build the `tokenize` target, or set HONE_TOKENIZE)"
        if os.environ.get("HONE_ALLOW_MISSING_TOKENIZE") == "1":
            pytest.skip(problem)
        pytest.fail(problem, pytrace=False)
    return binary


def read_texts() -> list[str]:
    # Split on "\n" only: a text may hold U+2028 and other characters str.splitlines() would cut at.
    return [json.loads(line) for line in TEXTS.read_text(encoding="utf-8").split("\n") if line.strip()]


def run_tool(tool: pathlib.Path, tokenizer_json: pathlib.Path, texts: list[str], *flags: str) -> list[dict]:
    stdin = "".join(json.dumps(t) + "\n" for t in texts)
    r = subprocess.run([str(tool), *flags, str(tokenizer_json)], input=stdin, capture_output=True, text=True,
                       encoding="utf-8", timeout=120)
    assert r.returncode == 0, f"tokenize exited {r.returncode}: {r.stderr}\n{r.stdout[-2000:]}"
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    assert len(lines) == len(texts), f"tokenize gave {len(lines)} lines for {len(texts)} texts"
    return lines


def first_difference(texts, ours, theirs, reference) -> str | None:
    for i, (text, a, b) in enumerate(zip(texts, ours, theirs)):
        for field in ("ids", "type_ids", "attention_mask"):
            want = getattr(b, field)
            got = a[field]
            if got != want:
                k = next((j for j, (x, y) in enumerate(zip(got, want)) if x != y), min(len(got), len(want)))
                tokens = b.tokens[max(0, k - 3):k + 3]
                return (f"text {i} {json.dumps(text)[:200]}: {field} differ at token {k} "
                        f"(hone {got[k:k + 5]}, tokenizers {want[k:k + 5]}; tokenizers' tokens there: {tokens}); "
                        f"lengths hone {len(got)}, tokenizers {len(want)}")
    return None


def tokenizer_files():
    params = [pytest.param(p, id=p.name.removesuffix(".tokenizer.json")) for p in CHECKED_IN]
    params.append(pytest.param(MINILM, id="minilm", marks=pytest.mark.skipif(
        not MINILM.exists(), reason=f"{MINILM.relative_to(ROOT)} is absent (the text-embedding example's fetch "
                                    "script puts the real all-MiniLM-L6-v2 tokenizer there)")))
    params.append(pytest.param(SMOLLM2, id="smollm2-real", marks=pytest.mark.skipif(
        not SMOLLM2.exists(), reason=f"{SMOLLM2.relative_to(ROOT)} is absent (scripts/fetch-models writes the real "
                                     "SmolLM2 tokenizer there, from its GGUF)")))
    return params


def test_checked_in_tokenizers_exist():
    assert len(CHECKED_IN) >= 3, "src/process/testdata/make_parity.py writes the reference tokenizers"


@pytest.mark.parametrize("tokenizer_json", tokenizer_files())
@pytest.mark.parametrize("add_special_tokens", [True, False], ids=["special", "no_special"])
def test_same_ids_as_tokenizers(tool, tokenizer_json, add_special_tokens):
    texts = read_texts()
    reference = tokenizers.Tokenizer.from_file(str(tokenizer_json))
    # One by one, as the tool encodes: a file's padding then applies only when it is to a fixed length.
    theirs = [reference.encode(t, add_special_tokens=add_special_tokens) for t in texts]
    flags = [] if add_special_tokens else ["--no-special-tokens"]
    ours = run_tool(tool, tokenizer_json, texts, *flags)
    problem = first_difference(texts, ours, theirs, reference)
    assert problem is None, f"{tokenizer_json.name}: {problem}"


@pytest.mark.parametrize("tokenizer_json", tokenizer_files())
def test_same_truncation_as_tokenizers(tool, tokenizer_json):
    texts = read_texts()
    reference = tokenizers.Tokenizer.from_file(str(tokenizer_json))
    direction = reference.truncation["direction"] if reference.truncation else "right"
    reference.enable_truncation(max_length=16, direction=direction)
    theirs = [reference.encode(t) for t in texts]
    ours = run_tool(tool, tokenizer_json, texts, "--max-length", "16")
    problem = first_difference(texts, ours, theirs, reference)
    assert problem is None, f"{tokenizer_json.name} at --max-length 16: {problem}"
