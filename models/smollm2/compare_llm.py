#!/usr/bin/env python3
"""Glue for scripts/compare-llm (hone serve vs llama.cpp's OpenAI server on SmolLM2-135M-Instruct, measured by
hone bench --protocol openai and by NVIDIA's aiperf). Runs in the script's venv (.venv-compare-llm: tokenizers).

  compare_llm.py prompts --tokenizer tokenizer.json --count N --tokens 128 --out DIR
      N prompts of exactly --tokens tokens (counted with that tokenizer, which is the GGUF's own vocabulary; neither
      server adds a BOS for SmolLM2): English sentences below, each prompt starting with a different sentence and
      the rest in a seeded order, cut at a token boundary. No two prompts share their first sentence, so a server
      that reuses the previous request's KV cache for a common prefix (llama-cpp-python does) gains nothing.
      Writes DIR/prompts.jsonl (one JSON string a line: hone bench --prompts), DIR/aiperf.jsonl ({"text": ...}:
      aiperf --custom-dataset-type single_turn) and DIR/tokenizer/ (tokenizer.json and a tokenizer_config.json
      naming PreTrainedTokenizerFast, so that aiperf's transformers loads it from disk, not from a hub).
      --shared-prefix-tokens N puts the first N tokens of --shared-prefix-text (GPL-3) and a blank line before
      each prompt: a system prompt every request shares, for scripts/compare-prefix-cache.
  compare_llm.py npz --tokenizer tokenizer.json --prompts DIR/prompts.jsonl --out inputs.npz [--layers 30 ...]
      the prompts as decoder inputs for hone quantize's verification (--data): input_ids, attention_mask and
      position_ids per sample ([N, 1, tokens]), num_logits_to_keep 1 (the next-token logits only) and empty
      past_key_values.{i}.key/.value [1, kv_heads, 0, head_size] given once: real text instead of random ids.
      With --layout paged (build_decoder.py --layout paged): input_ids, position_ids and num_logits_to_keep as
      above, and given once an empty pool kv_cache FP16 [blocks, layers, 2, kv_heads, 16, head_size] just large
      enough for a prompt, block_table [[0, 1, ...]] and past_lengths [0] (every sample writes the same blocks
      from position 0, so a run never reads what another left).
      With --kv-dtype int8 (build_decoder.py --kv-dtype int8): kv_cache INT8 and its kv_scales FP16 [.., 2].
  compare_llm.py ppl --hone BIN --model model.onnx --tokenizer tokenizer.json [--kv-dtype int8] --out F
      perplexity of a paged decoder (check_llama_cpp.py measures the dense one's and llama.cpp's): the first 1,500
      tokens of GPL-3 in windows of 512, each from an empty cache, run by hone compare (--save-outputs); JSON to F.
  compare_llm.py probe --url http://HOST:PORT --model NAME --max-tokens 64 --out F
      two non-streamed /v1/completions requests at temperature 0 with a ChatML question that the model answers in
      a few tokens and then ends (<|im_end|>): one with ignore_eos, one without. usage.completion_tokens and
      finish_reason of each, written to F (JSON): whether the server honours vLLM's ignore_eos. Then greedy
      continuations (temperature 0, 16 tokens) of GREEDY_PROMPTS, raw completions, for collect to set the servers'
      texts side by side: the same GGUF weights should continue the same way.
  compare_llm.py rss PID
      the process's VmRSS, VmHWM, RssAnon and RssFile from /proc/PID/status, in MiB, as JSON on stdout.
  compare_llm.py collect --dir RUN_DIR --out results.json
      reads RUN_DIR/points/*.json (one per server, client, concurrency and round, written by the script: the hone
      bench JSON or aiperf's profile_export_aiperf.json, with the client's CPU seconds), RUN_DIR/memory/*.json and
      RUN_DIR/probe.*.json; prints the side-by-side table (medians over rounds) and writes results.json.
"""
import argparse
import glob
import json
import math
import os
import random
import statistics
import sys
import urllib.request

SENTENCES = [
    "The old lighthouse keeper climbed the spiral stairs every evening to light the lamp before the fog rolled in.",
    "Researchers measured the temperature of the lake at dawn and noticed that the surface was warmer than the air.",
    "A small bakery on the corner sells bread made from grain grown on farms less than twenty miles away.",
    "When the train stopped between two stations, the passengers opened their books and waited patiently.",
    "The committee agreed to postpone the vote until every member had read the full report on the budget.",
    "Children in the village learn to swim in the river during the long and quiet summer holidays.",
    "The engineer explained that the bridge was designed to sway slightly in strong winds without breaking.",
    "Our neighbour planted tomatoes, beans and sunflowers along the fence that faces the afternoon sun.",
    "In the museum, a glass case holds a map drawn by sailors who crossed the ocean three centuries ago.",
    "The orchestra rehearsed the final movement twice, because the violins kept rushing the tempo.",
    "After the storm, volunteers cleared branches from the roads and checked on elderly residents.",
    "The recipe calls for two cups of flour, a pinch of salt, one egg and enough milk to make a smooth batter.",
    "Astronomers pointed the telescope at a faint galaxy whose light left it before the Earth had formed.",
    "The library extended its opening hours so that students could study late during the examination period.",
    "A fox crossed the snowy field at midnight, leaving a neat line of footprints that led into the forest.",
    "The software team fixed the bug by adding a check that rejects requests larger than the configured limit.",
    "Farmers in the valley rotate their crops each year to keep the soil healthy and reduce the need for fertiliser.",
    "The detective noticed that the clock on the mantelpiece had stopped at exactly a quarter past nine.",
    "Most of the city's electricity now comes from wind turbines on the hills and solar panels on the roofs.",
    "She packed a thermos of tea, a wool hat and a paper map before setting out on the mountain trail.",
    "The history teacher asked the class to compare two accounts of the same battle written by opposing sides.",
    "Bees visit thousands of flowers in a single day, carrying pollen from one plant to the next.",
    "The new tram line connects the university with the hospital and the central railway station.",
    "During the long voyage, the crew kept a careful log of the weather, the currents and the stars.",
    "The chef tasted the soup, added a little more pepper and let it simmer for another ten minutes.",
    "A recent survey found that most commuters would cycle to work if the roads felt safer.",
    "The painter mixed blue and yellow on the palette until she found the exact green of the spring leaves.",
    "Every autumn, thousands of birds stop at the marsh to rest before flying south for the winter.",
    "The mechanic replaced the worn brake pads and reminded the driver to check the tyre pressure monthly.",
    "In the final chapter, the two brothers meet again after twenty years and share a quiet meal.",
    "The town council published the minutes of the meeting so that residents could follow the discussion.",
    "Glaciers in the northern mountains have retreated by several hundred metres over the past century.",
    "The pianist practised scales for an hour each morning before working on the difficult sonata.",
    "Visitors to the island must take the ferry, which leaves the harbour twice a day in calm weather.",
    "The nurse recorded the patient's pulse and blood pressure and wrote the results in the chart.",
    "A group of students built a small robot that can sort recycled bottles by colour and size.",
    "The river flooded the lower streets in spring, so the shops moved their goods to the upper floors.",
    "The archaeologists found pottery, coins and tools beneath the floor of an ancient farmhouse.",
    "His grandmother kept every letter she had ever received in a wooden box under the bed.",
    "The weather forecast promised clear skies, but by noon a cold wind was blowing from the north.",
    "The startup rented a small office above a bookshop and hired its first three employees.",
    "Owls hunt at night, relying on their sharp hearing to locate mice moving beneath the grass.",
    "The debate ended without agreement, but both sides promised to meet again next month.",
    "Sailors tied the boat to the pier and carried the morning's catch to the market in baskets.",
    "The scientist repeated the experiment five times to be sure that the result was not an accident.",
    "A narrow path winds through the vineyard to a stone chapel at the top of the hill.",
    "The factory switched to electric delivery vans and cut its fuel costs by almost half.",
    "On the first day of school, the teacher asked everyone to write down one thing they hoped to learn.",
]


def cmd_prompts(a):
    from tokenizers import Tokenizer
    tok = Tokenizer.from_file(a.tokenizer)
    if a.count > len(SENTENCES):
        raise SystemExit(f"--count {a.count}: at most {len(SENTENCES)} prompts (one for each first sentence)")
    prompts = []
    for i in range(a.count):
        rest = [s for j, s in enumerate(SENTENCES) if j != i]
        random.Random(i).shuffle(rest)
        text = " ".join([SENTENCES[i]] + rest)
        ids = tok.encode(text, add_special_tokens=False).ids
        if len(ids) < a.tokens + 8:
            raise SystemExit(f"the sentences make only {len(ids)} tokens; --tokens {a.tokens} is too many")
        # cut at a token boundary; decoding and encoding again may merge differently at the cut, so move it
        for cut in [a.tokens] + [a.tokens + d for d in (-1, 1, -2, 2, -3, 3)]:
            piece = tok.decode(ids[:cut])
            if len(tok.encode(piece, add_special_tokens=False).ids) == a.tokens:
                break
        else:
            raise SystemExit(f"prompt {i}: no cut gives exactly {a.tokens} tokens")
        prompts.append(piece)
    if a.shared_prefix_tokens:
        # the same first tokens of a text (a system prompt every request shares) before each distinct prompt
        with open(a.shared_prefix_text, encoding="utf-8") as f:
            head = tok.encode(f.read(), add_special_tokens=False).ids[:a.shared_prefix_tokens]
        prefix = tok.decode(head)
        prompts = [prefix + "\n\n" + p for p in prompts]
    os.makedirs(os.path.join(a.out, "tokenizer"), exist_ok=True)
    with open(os.path.join(a.out, "prompts.jsonl"), "w") as f:
        for p in prompts:
            f.write(json.dumps(p) + "\n")
    with open(os.path.join(a.out, "aiperf.jsonl"), "w") as f:
        for p in prompts:
            f.write(json.dumps({"text": p}) + "\n")
    with open(a.tokenizer, "rb") as src, open(os.path.join(a.out, "tokenizer", "tokenizer.json"), "wb") as dst:
        dst.write(src.read())
    with open(os.path.join(a.out, "tokenizer", "tokenizer_config.json"), "w") as f:
        json.dump({"tokenizer_class": "PreTrainedTokenizerFast", "model_max_length": 8192,
                   "bos_token": "<|im_start|>", "eos_token": "<|im_end|>", "add_bos_token": False}, f)
    shared = f" after a shared prefix of {a.shared_prefix_tokens} tokens" if a.shared_prefix_tokens else ""
    print(f"compare_llm: {len(prompts)} prompts of {a.tokens} tokens{shared} in {a.out}")


def empty_pool(n, layers, kv_heads, head_size, kv_dtype):
    """A paged decoder's cache inputs for one row of n positions from position 0, given once: a pool of blocks of 16
    just large enough (FP16, or INT8 with its FP16 kv_scales), block_table [[0, 1, ...]], past_lengths [0]. Every
    sample writes the same blocks from position 0, so a run never reads what another left."""
    import numpy as np
    blocks = (n + 15) // 16
    shape = (blocks, layers, 2, kv_heads, 16, head_size)
    out = {"block_table": np.arange(blocks, dtype=np.int32)[None, :], "past_lengths": np.zeros(1, dtype=np.int32)}
    if kv_dtype == "int8":
        out["kv_cache"] = np.zeros(shape, dtype=np.int8)
        out["kv_scales"] = np.zeros(shape[:-1] + (head_size // 32,), dtype=np.float16)
    else:
        out["kv_cache"] = np.zeros(shape, dtype=np.float16)
    return out


def cmd_ppl(a):
    """Perplexity of a paged decoder, as check_llama_cpp.py measures it for the dense one (which Python's
    onnxruntime runs; this one needs hone's operators): the first --tokens tokens of --text in non-overlapping
    windows of --window, each from an empty cache, every token but a window's first scored. hone compare runs the
    model on the windows (--save-outputs keeps its logits); the log-likelihoods are computed here in float64."""
    import subprocess
    import tempfile
    import numpy as np
    from tokenizers import Tokenizer
    tok = Tokenizer.from_file(a.tokenizer)
    with open(a.text, encoding="utf-8") as f:
        ids = tok.encode(f.read()).ids[:a.tokens]
    windows = [ids[i:i + a.window] for i in range(0, len(ids), a.window) if len(ids[i:i + a.window]) >= 2]
    nll, scored = 0.0, 0
    with tempfile.TemporaryDirectory() as tmp:
        for length in sorted({len(w) for w in windows}):  # one run per window length (a sample's shape is fixed)
            x = np.array([w for w in windows if len(w) == length], dtype=np.int64)[:, None, :]
            arrays = {"input_ids": x, "position_ids": np.broadcast_to(np.arange(length, dtype=np.int64), x.shape).copy(),
                      "num_logits_to_keep": np.array(0, dtype=np.int64),
                      **empty_pool(length, a.layers, a.kv_heads, a.head_size, a.kv_dtype)}
            data, saved = os.path.join(tmp, "windows.npz"), os.path.join(tmp, "logits.npz")
            np.savez(data, **arrays)
            run = subprocess.run([a.hone, "compare", a.model, a.model, "--data", data, "--save-outputs", saved,
                                  "--intra-op-threads", "2"], capture_output=True, text=True)
            if not os.path.exists(saved):
                sys.exit(f"compare_llm ppl: hone compare failed (exit {run.returncode}):\n{run.stdout[-2000:]}"
                         f"{run.stderr[-2000:]}")
            logits = np.load(saved)["logits"].astype(np.float64)  # [samples, 1, length, vocab] or [samples, length, vocab]
            logits = logits.reshape(x.shape[0], length, -1)
            for row, w in zip(logits, x[:, 0, :]):
                top = row[:-1].max(axis=1, keepdims=True)
                logz = np.log(np.exp(row[:-1] - top).sum(axis=1)) + top[:, 0]
                nll += float((logz - row[np.arange(length - 1), w[1:]]).sum())
                scored += length - 1
    ppl = math.exp(nll / scored)
    doc = {"perplexity": ppl, "scored_tokens": scored, "windows": len(windows), "window": a.window,
           "text": os.path.basename(a.text), "model": a.model, "kv_dtype": a.kv_dtype}
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1)
    print(f"compare_llm: perplexity {ppl:.4f} over {scored} tokens of {os.path.basename(a.text)} ({len(windows)} "
          f"windows of up to {a.window}, {a.kv_dtype} KV cache) -> {a.out}")


def cmd_npz(a):
    import numpy as np
    from tokenizers import Tokenizer
    tok = Tokenizer.from_file(a.tokenizer)
    with open(a.prompts) as f:
        ids = [tok.encode(json.loads(line), add_special_tokens=False).ids for line in f if line.strip()]
    n = min(len(x) for x in ids)
    x = np.array([row[:n] for row in ids], dtype=np.int64)[:, None, :]
    arrays = {"input_ids": x, "position_ids": np.broadcast_to(np.arange(n, dtype=np.int64), x.shape).copy(),
              "num_logits_to_keep": np.array(1, dtype=np.int64)}
    if a.layout == "paged":
        arrays.update(empty_pool(n, a.layers, a.kv_heads, a.head_size, a.kv_dtype))
        np.savez(a.out, **arrays)
        print(f"compare_llm: {x.shape[0]} samples of {n} tokens (paged layout) in {a.out}")
        return
    arrays["attention_mask"] = np.ones_like(x)
    for i in range(a.layers):
        for kv in ("key", "value"):
            arrays[f"past_key_values.{i}.{kv}"] = np.zeros((1, a.kv_heads, 0, a.head_size), dtype=np.float32)
    np.savez(a.out, **arrays)
    print(f"compare_llm: {x.shape[0]} samples of {n} tokens in {a.out}")


def post(url, body, timeout=600):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.loads(r.read())


PROBE_PROMPT = ("<|im_start|>user\nWhat is the capital of France? Answer in one word.<|im_end|>\n"
                "<|im_start|>assistant\n")


# check_llama_cpp.py's factual prompts
GREEDY_PROMPTS = ["The capital of France is", "The largest planet in the solar system is",
                  "Water is made of hydrogen and", "The first person to walk on the moon was",
                  "The speed of light is about", "Photosynthesis is the process by which"]


def cmd_probe(a):
    prompt = PROBE_PROMPT
    out = {"url": a.url, "max_tokens": a.max_tokens, "greedy": {}}
    for p in GREEDY_PROMPTS:
        body = {"model": a.model, "prompt": p, "max_tokens": 16, "temperature": 0}
        try:
            out["greedy"][p] = post(a.url.rstrip("/") + "/v1/completions", body)["choices"][0].get("text", "")
        except Exception as e:  # noqa: BLE001 - reported, not fatal
            out["greedy"][p] = f"error: {e}"
    for key, extra in (("ignore_eos", {"ignore_eos": True}), ("plain", {})):
        body = {"model": a.model, "prompt": prompt, "max_tokens": a.max_tokens, "temperature": 0, **extra}
        try:
            r = post(a.url.rstrip("/") + "/v1/completions", body)
            out[key] = {"completion_tokens": r.get("usage", {}).get("completion_tokens"),
                        "prompt_tokens": r.get("usage", {}).get("prompt_tokens"),
                        "finish_reason": r["choices"][0].get("finish_reason"),
                        "text": r["choices"][0].get("text", "")[:200]}
        except Exception as e:  # noqa: BLE001 - reported, not fatal
            out[key] = {"error": str(e)}
    ie, pl = out.get("ignore_eos", {}), out.get("plain", {})
    if pl.get("finish_reason") == "stop" and ie.get("completion_tokens") is not None:
        out["ignore_eos_honoured"] = ie.get("completion_tokens") == a.max_tokens
    else:
        out["ignore_eos_honoured"] = None  # the model did not stop by itself: nothing learnt
    with open(a.out, "w") as f:
        json.dump(out, f, indent=1)
    print(f"compare_llm: probe {a.url}: with ignore_eos {ie.get('completion_tokens')} tokens "
          f"({ie.get('finish_reason')}), without {out.get('plain', {}).get('completion_tokens')} tokens "
          f"({out.get('plain', {}).get('finish_reason')}), prompt {ie.get('prompt_tokens')} tokens")


def rss(pid):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmRSS", "VmHWM", "RssAnon", "RssFile"):
                out[k] = round(int(v.split()[0]) / 1024, 1)
    return out


def cmd_rss(a):
    print(json.dumps(rss(a.pid)))


# ---------------------------------------------------------------------------------------------------------------
# collect

def from_hone(doc):
    """hone bench --json: one point (the script runs one concurrency an invocation)."""
    p = doc["bench"]["points"][0]
    return {"ttft_p50": p["ttft_ms"]["p50"], "ttft_p99": p["ttft_ms"]["p99"], "tpot_p50": p["tpot_ms"]["p50"],
            "tpot_p99": p["tpot_ms"]["p99"], "itl_p50": p["itl_ms"]["p50"], "itl_p99": p["itl_ms"]["p99"],
            "goodput_req_s": p.get("goodput_requests_per_s"),
            "e2e_p50": p["e2e_ms"]["p50"], "out_tok_s": p["output_tokens_per_s"],
            "req_s": p["requests_per_s"], "completion_tokens_mean": p["completion_tokens_mean"],
            "prompt_tokens_mean": p["prompt_tokens_mean"], "requests": p["requests"], "errors": p["errors"],
            "first_error": p.get("first_error", "")}


def from_aiperf(doc):
    """aiperf's profile_export_aiperf.json: metrics by tag, each with unit, avg, p50, p99, ..."""
    def m(tag, stat):
        v = doc.get(tag)
        return None if not isinstance(v, dict) else v.get(stat)
    reqs = m("request_count", "avg")
    errs = m("error_request_count", "avg") or 0
    return {"ttft_p50": m("time_to_first_token", "p50"), "ttft_p99": m("time_to_first_token", "p99"),
            # aiperf's inter_token_latency is per request (e2e - TTFT) / (output tokens - 1): hone's TPOT
            "tpot_p50": m("inter_token_latency", "p50"), "tpot_p99": m("inter_token_latency", "p99"),
            "itl_p50": None, "itl_p99": None, "goodput_req_s": None,
            "e2e_p50": m("request_latency", "p50"), "out_tok_s": m("output_token_throughput", "avg"),
            "req_s": m("request_throughput", "avg"), "completion_tokens_mean": m("output_sequence_length", "avg"),
            "prompt_tokens_mean": m("input_sequence_length", "avg"), "requests": reqs, "errors": errs,
            "first_error": ""}


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def ratio_text(a, b, k):
    """a[k] / b[k] with two decimals; "-" when either is missing or zero."""
    return fmt(a[k] / b[k], 2) if a.get(k) and b.get(k) else "-"


def fmt(v, nd=0):
    if v is None:
        return "-"
    return f"{v:.{nd}f}"


def cmd_collect(a):
    rows, rate_rows = {}, {}
    for path in sorted(glob.glob(os.path.join(a.dir, "points", "*.json"))):
        with open(path) as f:
            wrap = json.load(f)
        if wrap.get("report") is None:
            last = [x for x in (wrap.get("error") or "").splitlines() if x.strip()]
            fig = {"errors": None, "parse_error": f"client exit {wrap.get('exit_code')}: "
                   + (last[-1].strip() if last else "no output")}
        else:
            try:
                fig = from_hone(wrap["report"]) if wrap["client"] == "hone" else from_aiperf(wrap["report"])
            except (KeyError, IndexError, TypeError) as e:
                fig = {"parse_error": f"{type(e).__name__}: {e}"}
        fig["client_cpu_s"] = wrap.get("client_cpu_s")
        fig["wall_s"] = wrap.get("wall_s")
        fig["server_cpu_s"] = wrap.get("server_cpu_s")
        fig["load_before"] = wrap.get("load_before")
        fig["round"] = wrap["round"]
        if wrap.get("rate") is not None:
            rate_rows.setdefault((wrap["server"], wrap["client"], wrap["rate"]), []).append(fig)
        else:
            rows.setdefault((wrap["server"], wrap["client"], wrap["concurrency"]), []).append(fig)
    memory = {}
    for path in sorted(glob.glob(os.path.join(a.dir, "memory", "*.json"))):
        with open(path) as f:
            m = json.load(f)
        memory.setdefault(m["server"], []).append(m)
    probes = {}
    for path in sorted(glob.glob(os.path.join(a.dir, "probe.*.json"))):
        with open(path) as f:
            probes[os.path.basename(path)[len("probe."):-len(".json")]] = json.load(f)

    keys = ["ttft_p50", "ttft_p99", "tpot_p50", "tpot_p99", "itl_p50", "itl_p99", "e2e_p50", "out_tok_s", "req_s",
            "goodput_req_s", "completion_tokens_mean", "prompt_tokens_mean", "client_cpu_s", "server_cpu_s", "wall_s",
            "load_before"]
    summary = []
    for (server, client, c), runs in sorted(rows.items(), key=lambda kv: (kv[0][0], kv[0][2], kv[0][1])):
        s = {"server": server, "client": client, "concurrency": c, "rounds": len(runs),
             "errors": sum((r.get("errors") or 0) for r in runs),
             "first_error": next((r.get("first_error") or r.get("parse_error") for r in runs
                                  if r.get("first_error") or r.get("parse_error")), "")}
        for k in keys:
            s[k] = med([r.get(k) for r in runs])
        s["runs"] = runs
        summary.append(s)

    servers = sorted({s["server"] for s in summary}, key=lambda n: (not n.startswith("llama"), n))
    lines = []
    lines.append("Medians over rounds. TTFT, TPOT (per request: (e2e - TTFT) / (output tokens - 1)), ITL (gaps "
                 "between streamed events, pooled; hone bench only), e2e in ms; out tok/s and req/s over the measured "
                 "span; in/out tok: mean prompt and completion tokens a request (the server's usage; without usage, "
                 "llama_cpp: hone bench counts streamed events and shows 0 prompt tokens, aiperf counts with the "
                 "tokenizer); cpu s: the client's own user+sys CPU seconds for the point, warm-up and start-up "
                 "included, on the cores it shares with the server.")
    hdr = (f"{'server':<15} {'c':>3} {'client':<7} {'TTFT p50':>9} {'TTFT p99':>9} {'TPOT p50':>9} {'ITL p50':>8} "
           f"{'e2e p50':>8} {'out tok/s':>9} {'req/s':>6} {'in/out tok':>11} {'err':>4} {'cpu s':>6}")
    lines.append(hdr)
    lines.append("-" * len(hdr))
    for server in servers:
        for c in sorted({s["concurrency"] for s in summary if s["server"] == server}):
            for s in [x for x in summary if x["server"] == server and x["concurrency"] == c]:
                io = f"{fmt(s['prompt_tokens_mean'])}/{fmt(s['completion_tokens_mean'], 1)}"
                lines.append(f"{server:<15} {c:>3} {s['client']:<7} {fmt(s['ttft_p50']):>9} {fmt(s['ttft_p99']):>9} "
                             f"{fmt(s['tpot_p50'], 1):>9} {fmt(s['itl_p50'], 1):>8} {fmt(s['e2e_p50']):>8} "
                             f"{fmt(s['out_tok_s'], 1):>9} {fmt(s['req_s'], 2):>6} {io:>11} {s['errors']:>4} "
                             f"{fmt(s['client_cpu_s'], 2):>6}")
        lines.append("")
    # p99s and goodput (hone bench)
    lines.append("hone bench's p99s and goodput (requests/s within the --slo bounds):")
    lines.append(f"{'server':<15} {'c':>3} {'TPOT p99':>9} {'ITL p99':>8} {'goodput':>8}")
    for server in servers:
        for s_ in [x for x in summary if x["server"] == server and x["client"] == "hone"]:
            lines.append(f"{server:<15} {s_['concurrency']:>3} {fmt(s_['tpot_p99'], 1):>9} {fmt(s_['itl_p99'], 1):>8} "
                         f"{fmt(s_['goodput_req_s'], 2):>8}")
    lines.append("")
    # each server against the first llama.cpp server, the same client and concurrency
    anchor = next((n for n in ("llama_server", "llama_cpp") if n in servers), None)
    if anchor:
        lines.append(f"against {anchor}, the same client and concurrency (out tok/s ratio: above 1.00 is faster; "
                     f"TPOT p50 ratio: below 1.00 is faster):")
        lines.append(f"{'server':<15} {'c':>3} {'client':<7} {'out tok/s':>9} {'TPOT p50':>9} {'TTFT p50':>9}")
        for server in [n for n in servers if n != anchor]:
            for s_ in [x for x in summary if x["server"] == server]:
                ref = next((x for x in summary if x["server"] == anchor and x["client"] == s_["client"]
                            and x["concurrency"] == s_["concurrency"]), None)
                if ref:
                    lines.append(f"{server:<15} {s_['concurrency']:>3} {s_['client']:<7} "
                                 + " ".join(f"{ratio_text(s_, ref, k):>9}" for k in ("out_tok_s", "tpot_p50",
                                                                                      "ttft_p50")))
        lines.append("")
    rate_summary = []
    for (server, client, rate), runs in sorted(rate_rows.items()):
        x = {"server": server, "client": client, "rate": rate, "rounds": len(runs),
             "errors": sum((r.get("errors") or 0) for r in runs)}
        for k in keys:
            x[k] = med([r.get(k) for r in runs])
        x["runs"] = runs
        rate_summary.append(x)
    if rate_summary:
        lines.append("Poisson arrivals (hone bench, open loop): a server slower than the rate falls behind and its "
                     "TTFT grows; goodput = requests/s within the --slo bounds")
        lines.append(f"{'server':<15} {'rate':>5} {'TTFT p50':>9} {'TTFT p99':>9} {'TPOT p50':>9} {'TPOT p99':>9} "
                     f"{'ITL p99':>8} {'out tok/s':>9} {'req/s':>6} {'goodput':>8} {'err':>4}")
        for x in sorted(rate_summary, key=lambda x: (not x["server"].startswith("llama"), x["server"], x["rate"])):
            lines.append(f"{x['server']:<15} {x['rate']:>5g} {fmt(x['ttft_p50']):>9} {fmt(x['ttft_p99']):>9} "
                         f"{fmt(x['tpot_p50'], 1):>9} {fmt(x['tpot_p99'], 1):>9} {fmt(x['itl_p99'], 1):>8} "
                         f"{fmt(x['out_tok_s'], 1):>9} {fmt(x['req_s'], 2):>6} {fmt(x['goodput_req_s'], 2):>8} "
                         f"{x['errors']:>4}")
        lines.append("")
    # the two clients on the same server and point, as ratios aiperf / hone bench
    lines.append("aiperf / hone bench, same server and concurrency (1.00 = the clients agree):")
    lines.append(f"{'server':<15} {'c':>3} {'TTFT p50':>9} {'TTFT p99':>9} {'TPOT p50':>9} {'out tok/s':>9}")
    for server in servers:
        for c in sorted({s["concurrency"] for s in summary if s["server"] == server}):
            h = next((s for s in summary if s["server"] == server and s["concurrency"] == c
                      and s["client"] == "hone"), None)
            p = next((s for s in summary if s["server"] == server and s["concurrency"] == c
                      and s["client"] == "aiperf"), None)
            if h and p:
                lines.append(f"{server:<15} {c:>3} " + " ".join(f"{ratio_text(p, h, k):>9}" for k in
                                                                ("ttft_p50", "ttft_p99", "tpot_p50", "out_tok_s")))
    lines.append("")
    lines.append("Memory (MiB, /proc/PID/status; medians over rounds): loaded = when ready; idle = after the two "
                 "probe requests; end = after the last concurrency-C point; HWM = peak RSS over the server's life; "
                 "per request = (end RSS - idle RSS) / C; anon = RssAnon (allocated), file = RssFile (mapped from "
                 "files: llama.cpp maps the GGUF's weights). Every server allocates its KV cache at load (hone_int4: "
                 "kv_cache_tokens of its config.pbtxt, as many as llama-server's -c, in the paged decoder's cache "
                 "type (KV_DTYPE, int8 by default); hone_fp32: kv_cache_bytes in FP32; llama_server: -c tokens in "
                 "F16, llama_server_q8 in Q8_0; llama_cpp: n_ctx 2048 tokens), so what grows with concurrency is "
                 "compute buffers and the like, not the cache")
    lines.append(f"{'server':<15} {'loaded':>7} {'idle RSS':>9} {'anon':>7} {'file':>7} {'end RSS':>8} {'anon':>7} "
                 f"{'HWM':>7} {'C':>3} {'per req':>8}")
    mem_summary = {}
    stats = ("VmRSS", "RssAnon", "RssFile", "VmHWM")
    for server in sorted(memory, key=lambda n: (not n.startswith("llama"), n)):
        ms = memory[server]
        loaded = {k: med([m["loaded"].get(k) for m in ms]) for k in stats}
        idle = {k: med([m["idle"].get(k) for m in ms]) for k in stats}
        end = {k: med([m["end"].get(k) for m in ms if m.get("end")]) for k in stats}
        c = ms[0].get("end_concurrency") or 0
        per = (end["VmRSS"] - idle["VmRSS"]) / c if end.get("VmRSS") is not None and c else None
        mem_summary[server] = {"loaded": loaded, "idle": idle, "end": end, "end_concurrency": c,
                               "per_request_mib": per, "rounds": ms}
        lines.append(f"{server:<15} {fmt(loaded['VmRSS']):>7} {fmt(idle['VmRSS']):>9} {fmt(idle['RssAnon']):>7} "
                     f"{fmt(idle['RssFile']):>7} {fmt(end.get('VmRSS')):>8} {fmt(end.get('RssAnon')):>7} "
                     f"{fmt(end.get('VmHWM')):>7} {c:>3} {fmt(per, 1):>8}")
    if probes:
        lines.append("")
        lines.append("ignore_eos probe (one /v1/completions request, max_tokens as the bench):")
        for name, p in sorted(probes.items()):
            ie, pl = p.get("ignore_eos", {}), p.get("plain", {})
            verdict = {True: "honoured", False: "IGNORED", None: "not learnt"}[p.get("ignore_eos_honoured")]
            lines.append(f"  {name:<11} ignore_eos {verdict}: with it {ie.get('completion_tokens')} tokens (finish "
                         f"{ie.get('finish_reason')}), without {pl.get('completion_tokens')} tokens (finish "
                         f"{pl.get('finish_reason')})" + (f"; error {ie['error']}" if "error" in ie else ""))
    greedy = {name: p["greedy"] for name, p in probes.items() if p.get("greedy")}
    if "hone_int4" in greedy and "llama_server" in greedy:
        ours, theirs = greedy["hone_int4"], greedy["llama_server"]
        same = sum(ours.get(k) == theirs.get(k) for k in theirs)
        lines.append("")
        lines.append(f"greedy continuations, 16 tokens at temperature 0 (the same GGUF): hone_int4 and llama_server "
                     f"agree on {same} of {len(theirs)} prompts")
        for k in theirs:
            a_words, b_words = ours.get(k, "").split(), theirs[k].split()
            common = next((i for i, (x, y) in enumerate(zip(a_words, b_words)) if x != y),
                          min(len(a_words), len(b_words)))
            lines.append(f"  {k!r}: {common} words in common; hone {ours.get(k, '')!r} / llama {theirs[k]!r}")
    ppl_path = os.path.join(a.dir, "ppl.hone_int4.json")
    if os.path.exists(ppl_path):
        with open(ppl_path) as f:
            ppl = json.load(f)
        lines.append("")
        lines.append(f"perplexity of hone_int4 (compare_llm.py ppl, {ppl['kv_dtype']} KV cache): {ppl['perplexity']:.4f} "
                     f"over {ppl['scored_tokens']} tokens of {ppl['text']} in windows of {ppl['window']}; "
                     f"scripts/check-llm-parity gives llama.cpp's on the same GGUF")
    errors = [s for s in summary if s["errors"] or s["first_error"]]
    if errors:
        lines.append("")
        lines.append("errors:")
        for s in errors:
            lines.append(f"  {s['server']} c={s['concurrency']} {s['client']}: {s['errors']} error(s) "
                         f"{s['first_error']}")
    text = "\n".join(lines)
    print(text)
    with open(a.out, "w") as f:
        json.dump({"points": summary, "rate_points": rate_summary, "memory": mem_summary, "probes": probes,
                   "table": text}, f, indent=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prompts")
    p.add_argument("--tokenizer", required=True)
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--tokens", type=int, default=128)
    p.add_argument("--shared-prefix-tokens", type=int, default=0,
                   help="put the first N tokens of --shared-prefix-text before every prompt (a shared system prompt)")
    p.add_argument("--shared-prefix-text", default="/usr/share/common-licenses/GPL-3")
    p.add_argument("--out", required=True)
    p = sub.add_parser("npz")
    p.add_argument("--tokenizer", required=True)
    p.add_argument("--prompts", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--layers", type=int, default=30)
    p.add_argument("--kv-heads", type=int, default=3)
    p.add_argument("--head-size", type=int, default=64)
    p.add_argument("--layout", choices=("dense", "paged"), default="dense")
    p.add_argument("--kv-dtype", choices=("float16", "int8"), default="float16", help="a paged decoder's kv_cache")
    p = sub.add_parser("ppl")
    p.add_argument("--hone", required=True, help="the hone binary (hone compare runs the model)")
    p.add_argument("--model", required=True, help="a paged decoder (build_decoder.py --layout paged)")
    p.add_argument("--tokenizer", required=True)
    p.add_argument("--text", default="/usr/share/common-licenses/GPL-3")
    p.add_argument("--tokens", type=int, default=1500)
    p.add_argument("--window", type=int, default=512)
    p.add_argument("--layers", type=int, default=30)
    p.add_argument("--kv-heads", type=int, default=3)
    p.add_argument("--head-size", type=int, default=64)
    p.add_argument("--kv-dtype", choices=("float16", "int8"), default="float16")
    p.add_argument("--out", required=True)
    p = sub.add_parser("probe")
    p.add_argument("--url", required=True)
    p.add_argument("--model", required=True)
    p.add_argument("--max-tokens", type=int, default=64)
    p.add_argument("--out", required=True)
    p = sub.add_parser("rss")
    p.add_argument("pid", type=int)
    p = sub.add_parser("collect")
    p.add_argument("--dir", required=True)
    p.add_argument("--out", required=True)
    a = ap.parse_args()
    {"prompts": cmd_prompts, "npz": cmd_npz, "ppl": cmd_ppl, "probe": cmd_probe, "rss": cmd_rss,
     "collect": cmd_collect}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
