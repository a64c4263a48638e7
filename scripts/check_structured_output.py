"""Structured output on a real model through OpenAI's SDK: the share of replies to a JSON schema that parse and
validate (jsonschema), and what the constraint costs per output token, against the same prompts without it.

Run by scripts/check-structured-output, which starts each server in turn; this file measures one of them:

    python check_structured_output.py --url http://127.0.0.1:18990/v1 --model smollm2 --label hone --seeds 6

For every schema below: one greedy request and `--seeds` sampled ones (temperature 0.8, seeded), each sent twice in
alternation, once with response_format and once without (the same prompt, seed and max_tokens), streamed so that
the time per output token (TPOT: from the first to the last token, over the tokens between) is the server's, not
the client's. Prints one JSON line per server for the wrapper's table.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import jsonschema
import openai

SCHEMAS = {
    "person": (
        "Invent a person and describe them as JSON with their name, age and city.",
        {"type": "object",
         "properties": {"name": {"type": "string"}, "age": {"type": "integer"}, "city": {"type": "string"}},
         "required": ["name", "age", "city"], "additionalProperties": False}),
    "todo": (
        "Write a short todo list for moving house, as JSON.",
        {"type": "object",
         "properties": {"tasks": {"type": "array", "minItems": 1, "maxItems": 5,
                                  "items": {"type": "object",
                                            "properties": {"title": {"type": "string"}, "done": {"type": "boolean"}},
                                            "required": ["title", "done"], "additionalProperties": False}}},
         "required": ["tasks"], "additionalProperties": False}),
    "sentiment": (
        "Classify the sentiment of this review as JSON: 'The film was long, but the music was wonderful.'",
        {"type": "object",
         "properties": {"label": {"enum": ["positive", "negative", "neutral"]}, "confidence": {"type": "number"},
                        "reason": {"type": "string"}},
         "required": ["label", "confidence", "reason"], "additionalProperties": False}),
    "product": (
        "Describe a laptop for sale as JSON: name, price, its specs and optional discount.",
        {"type": "object",
         "properties": {"name": {"type": "string"}, "price": {"type": "number"},
                        "specs": {"type": "object",
                                  "properties": {"ram_gb": {"type": "integer"}, "cpu": {"type": "string"}},
                                  "required": ["ram_gb", "cpu"], "additionalProperties": False},
                        "discount": {"anyOf": [{"type": "number"}, {"type": "null"}]}},
         "required": ["name", "price", "specs", "discount"], "additionalProperties": False}),
    "event": (
        "Plan a team event as JSON with a title, the day of the week, and who attends.",
        {"type": "object",
         "properties": {"title": {"type": "string"},
                        "day": {"enum": ["monday", "tuesday", "wednesday", "thursday", "friday"]},
                        "attendees": {"type": "array", "items": {"type": "string"}, "maxItems": 6}},
         "required": ["title", "day", "attendees"], "additionalProperties": False}),
}


def request(client, model, prompt, schema, temperature, seed, max_tokens):
    """One streamed chat request; returns (text, finish_reason, tokens, tpot_ms or None)."""
    extra = {}
    if schema is not None:
        extra["response_format"] = {"type": "json_schema",
                                    "json_schema": {"name": "reply", "schema": schema, "strict": True}}
    stream = client.chat.completions.create(
        model=model, messages=[{"role": "user", "content": prompt}], max_tokens=max_tokens, temperature=temperature,
        seed=seed, stream=True, stream_options={"include_usage": True}, **extra)
    text, finish, tokens, first, last = "", None, 0, None, None
    for chunk in stream:
        if chunk.usage is not None:
            tokens = chunk.usage.completion_tokens
        for choice in chunk.choices:
            if choice.delta.content:
                now = time.perf_counter()
                first = first or now
                last = now
                text += choice.delta.content
            if choice.finish_reason:
                finish = choice.finish_reason
    tpot = (last - first) * 1000 / (tokens - 1) if first is not None and tokens > 1 else None
    return text, finish, tokens, tpot


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--label", required=True)
    ap.add_argument("--seeds", type=int, default=6)
    ap.add_argument("--max-tokens", type=int, default=256)
    args = ap.parse_args()
    client = openai.OpenAI(base_url=args.url, api_key="unused", max_retries=0, timeout=300)
    tally = {"requests": 0, "stop": 0, "parsed": 0, "valid": 0}
    tpot_free, tpot_constrained, failures = [], [], []
    for name, (prompt, schema) in SCHEMAS.items():
        runs = [(0.0, 0)] + [(0.8, seed) for seed in range(args.seeds)]
        for temperature, seed in runs:
            _, _, _, free = request(client, args.model, prompt, None, temperature, seed, args.max_tokens)
            text, finish, _, constrained = request(client, args.model, prompt, schema, temperature, seed,
                                                   args.max_tokens)
            tally["requests"] += 1
            tally["stop"] += finish == "stop"
            try:
                doc = json.loads(text)
                tally["parsed"] += 1
                jsonschema.validate(doc, schema)
                tally["valid"] += 1
            except (ValueError, jsonschema.ValidationError) as e:
                failures.append(f"{name} T={temperature} seed={seed} finish={finish}: {str(e)[:100]} in {text[:160]!r}")
            if free is not None and constrained is not None:
                tpot_free.append(free)
                tpot_constrained.append(constrained)
    ratios = [c / f for c, f in zip(tpot_constrained, tpot_free)]
    result = dict(label=args.label, **tally,
                  tpot_free_ms=statistics.median(tpot_free) if tpot_free else None,
                  tpot_constrained_ms=statistics.median(tpot_constrained) if tpot_constrained else None,
                  ratio_median=statistics.median(ratios) if ratios else None,
                  ratio_range=[min(ratios), max(ratios)] if ratios else None, failures=failures)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
