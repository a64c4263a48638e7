"""The examples and links of hone's documentation, read from the Markdown as a reader sees it.

A ```console block is a session at a shell in the checkout's root: a line that starts with "$ " is a command (it goes
on over the next lines while a quote is open or the line ends with a backslash), and the lines after it, up to the
next command, are what it prints. run_block() runs the block's commands in one bash, in order (so `cmd &` and
`kill %1` work as typed), and checks each command's output against what the page shows, in its stable parts:

  - every line the page shows must appear in the output, in the same order (other lines may come between);
  - numbers match any number, runs of spaces match any run of spaces (timings, sizes and dates change);
  - a shown line "..." stands for lines left out, and a shown line ending in "..." matches any line that starts the
    same way;
  - a command must exit 0, unless its line says otherwise in a comment: "# exits 2", "# exits 0 or 1".

A block may carry tags after "console": `long` (more than about a minute) and `server` (starts a server on the
default ports); test_docs.py runs the untagged ones in scripts/test, scripts/check-docs-examples runs them all.
"""
import dataclasses
import os
import re
import signal
import socket
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TAGS = {"long", "server"}
STEP_MARK = "@@hone-docs-step@@"


def doc_files():
    """README.md, docs/*.md, and the READMEs beside the code (the pages a user reads), relative to the root."""
    files = ["README.md", "CHANGELOG.md", "tests/python/README.md"]
    files += sorted(os.path.join("docs", f) for f in os.listdir(os.path.join(ROOT, "docs")) if f.endswith(".md"))
    for top in ("examples", "models", "deploy", "python"):
        for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, top)):
            dirnames[:] = [d for d in dirnames if not d.startswith(".") and d not in ("out", "__pycache__")]
            files += [os.path.relpath(os.path.join(dirpath, f), ROOT) for f in filenames if f == "README.md"]
    return files


@dataclasses.dataclass
class Step:
    command: str          # as typed, continuation lines included
    shown: list           # the lines the page shows after it
    exit_codes: tuple = (0,)  # what the page allows ("# exits 2", "# exits 0 or 1")


@dataclasses.dataclass
class Block:
    path: str
    line: int             # of the opening fence, 1-based
    tags: set
    steps: list

    @property
    def name(self):
        return f"{self.path}:{self.line}"


def command_complete(text):
    """Whether bash would run `text` as it stands: no quote left open, no trailing backslash."""
    quote = None
    i = 0
    while i < len(text):
        ch = text[i]
        if quote == "'":
            if ch == "'":
                quote = None
        elif ch == "\\":
            i += 1
        elif quote == '"':
            if ch == '"':
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or text[i - 1] in " \t\n;"):  # a comment runs to the end of its line
            while i < len(text) and text[i] != "\n":
                i += 1
            continue
        i += 1
    return quote is None and not text.endswith("\\")


def parse_blocks(path):
    lines = open(os.path.join(ROOT, path), encoding="utf-8").read().split("\n")
    blocks, i = [], 0
    while i < len(lines):
        fence = re.match(r"^```console(.*)$", lines[i])
        if not fence:
            if lines[i].startswith("```"):  # skip other fenced blocks whole (they may hold ```console text)
                i += 1
                while i < len(lines) and not lines[i].startswith("```"):
                    i += 1
            i += 1
            continue
        tags = set(fence.group(1).split())
        if tags - TAGS:
            raise ValueError(f"{path}:{i + 1}: unknown console block tag(s) {sorted(tags - TAGS)} (known: {sorted(TAGS)})")
        start, i, body = i + 1, i + 1, []
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(lines[i])
            i += 1
        i += 1
        steps, j = [], 0
        while j < len(body):
            if not body[j].startswith("$ "):
                if not steps:
                    raise ValueError(f"{path}:{start + j}: a console block must start with a '$ ' command")
                steps[-1].shown.append(body[j])
                j += 1
                continue
            command = body[j][2:]
            j += 1
            while not command_complete(command) and j < len(body):
                command += "\n" + body[j]
                j += 1
            exits = re.search(r"#\s*exits (\d+)(?: or (\d+))?", command)
            codes = tuple(int(c) for c in exits.groups() if c) if exits else (0,)
            steps.append(Step(command, [], codes))
        blocks.append(Block(path, start, tags, steps))
    return blocks


def all_blocks():
    return [b for f in doc_files() for b in parse_blocks(f)]


# a time stamp, or a number that is not part of a name (FP32, avx512 and p99 are words)
NUMBER = re.compile(r"\d{4}-\d\d-\d\dT[\d:.]+Z?|(?<![A-Za-z_\d])[-+]?(\d[\d,]*\.?\d*|\.\d+)([eE][-+]?\d+)?")


def normalise(line):
    return " ".join(NUMBER.sub("#", line).split())


def match_output(shown, got):
    """None when every shown line appears in `got`, in order (see the module's rules); else what is missing."""
    got_lines = [normalise(l) for l in got.split("\n")]
    at = 0
    for want in shown:
        if want.strip() in ("", "..."):
            continue
        prefix = want.rstrip().endswith("...")
        w = normalise(want.rstrip()[:-3] if prefix else want)
        while at < len(got_lines) and not (got_lines[at].startswith(w) if prefix else got_lines[at] == w):
            at += 1
        if at == len(got_lines):
            return f"the line {want!r} (or, from where the previous shown line matched, anything equal to it)"
        at += 1
    return None


def run_block(block, timeout):
    """Runs the block's commands in one bash from the root; returns a list of problems (empty: the block holds)."""
    # the pages' examples write into out/ (ignored by git), and cli.md asks for `mkdir -p out` once, first
    script = ["cd " + _quote(ROOT), "mkdir -p out"]
    for k, step in enumerate(block.steps):
        script.append(f"printf '\\n{STEP_MARK} {k}\\n'")
        script.append(step.command)
        script.append(f"printf '\\n{STEP_MARK} rc %s\\n' \"$?\"")
    # a server a block started in the background and did not stop must not outlive it
    script.append("kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; true")
    with tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False) as f:
        f.write("\n".join(script) + "\n")
    env = dict(os.environ, COLUMNS="120", LC_ALL="C.UTF-8")
    # Output to a file, not a pipe: a server the block left running would hold a pipe open after bash has ended.
    with tempfile.TemporaryFile("w+") as log:
        proc = subprocess.Popen(["bash", f.name], stdout=log, stderr=subprocess.STDOUT, text=True, cwd=ROOT, env=env,
                                start_new_session=True)
        timed_out = False
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            os.unlink(f.name)
            for sig in (signal.SIGTERM, signal.SIGKILL):  # whatever the block left behind, in its process group
                try:
                    os.killpg(proc.pid, sig)
                except ProcessLookupError:
                    break
                time.sleep(1)
            proc.wait()
        log.seek(0)
        out = log.read()
    if timed_out:
        return [f"{block.name}: still running after {timeout} s; output so far:\n{out[-2000:]}"]
    if "server" in block.tags:
        _wait_ports_free((8000, 8001, 8002), 60)  # a stopped server drains first; the next block needs its ports
    problems = []
    parts = out.split(f"\n{STEP_MARK} ")
    outputs, codes, current = {}, {}, None
    for part in parts[1:]:
        head, _, rest = part.partition("\n")
        if head.isdigit():
            current = int(head)
            outputs[current] = rest
        elif head.startswith("rc ") and current is not None:
            codes[current] = int(head[3:])
    for k, step in enumerate(block.steps):
        first = step.command.split("\n")[0]
        if k not in codes:
            problems.append(f"{block.name}: `{first}` did not finish (the block stopped before it)")
            break
        if codes[k] not in step.exit_codes:
            problems.append(f"{block.name}: `{first}` exited {codes[k]}, the page says "
                            f"{' or '.join(map(str, step.exit_codes))}; it printed:\n"
                            f"{outputs.get(k, '')[-2000:]}")
            continue
        missing = match_output(step.shown, outputs.get(k, ""))
        if missing:
            problems.append(f"{block.name}: `{first}` printed no {missing}; it printed:\n{outputs.get(k, '')[-3000:]}")
    return problems


def _wait_ports_free(ports, seconds):
    deadline = time.monotonic() + seconds
    for port in ports:
        while time.monotonic() < deadline:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) != 0:
                    break
            time.sleep(0.2)


def _quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


# --- links -----------------------------------------------------------------------------------------------------

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")


def slug(heading):
    """GitHub's anchor for a heading."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", lambda m: m.group(1) or "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    seen, out = {}, set()
    in_fence = False
    for line in open(os.path.join(ROOT, path), encoding="utf-8"):
        if line.startswith("```"):
            in_fence = not in_fence
        m = None if in_fence else re.match(r"^#{1,6} (.*)$", line.rstrip("\n"))
        if m:
            s = slug(m.group(1))
            n = seen.get(s, 0)
            seen[s] = n + 1
            out.add(s if n == 0 else f"{s}-{n}")
    return out


def broken_links(path):
    problems = []
    text = open(os.path.join(ROOT, path), encoding="utf-8").read()
    text = re.sub(r"```.*?```", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)  # not in code blocks
    for n, line in enumerate(text.split("\n"), 1):
        line = re.sub(r"`[^`]*`", "", line)  # nor in inline code
        for target in LINK.findall(line):
            if re.match(r"^[a-z]+:", target):
                continue  # https:, mailto:
            file_part, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
            if not os.path.exists(os.path.join(ROOT, dest)):
                problems.append(f"{path}:{n}: link to {target}: {dest} does not exist")
            elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                problems.append(f"{path}:{n}: link to {target}: {dest} has no heading with the anchor #{anchor}")
    return problems


def main():
    import argparse
    ap = argparse.ArgumentParser(description="run the console examples of README.md and docs/, check the links")
    ap.add_argument("--all", action="store_true", help="the tagged blocks too (long runs, servers)")
    ap.add_argument("--only", help="a block's path:line, or a path")
    ap.add_argument("--timeout", type=int, default=900)
    args = ap.parse_args()
    problems = [p for f in doc_files() for p in broken_links(f)]
    ran = 0
    for block in all_blocks():
        if args.only and args.only not in (block.name, block.path):
            continue
        if block.tags and not args.all:
            continue
        t = time.time()
        got = run_block(block, args.timeout)
        ran += 1
        print(f"{'ok  ' if not got else 'FAIL'} {block.name} [{' '.join(sorted(block.tags)) or 'untagged'}] "
              f"{len(block.steps)} command(s), {time.time() - t:.1f} s", flush=True)
        problems += got
    for p in problems:
        print(p)
    print(f"docs examples: {ran} block(s) run, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
