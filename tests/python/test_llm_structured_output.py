"""Structured output (OpenAI's response_format) over OpenAI's own Python SDK, against the tiny random-weight decoder
of test_llm.py: its logits are noise, so whatever comes out valid comes from the constraint, not the model.

What it shows: every reply to a JSON schema parses and validates (jsonschema), greedy and sampled, streamed and
whole; the SDK's own pydantic path (chat.completions.parse) reads the reply back into the model class; json_object
gives a JSON object; a schema hone cannot enforce is a 400 naming the keyword, and the server goes on serving.
"""

from __future__ import annotations

import json
from typing import Literal, Optional

import jsonschema
import openai
import pydantic
import pytest

from hone_server import http_get
from test_llm import client, llm_repo, server  # noqa: F401 (fixtures)

# Bounded everywhere (string lengths, item counts, enums), so that noise must reach the end within max_tokens: the
# grammar caps whitespace and number lengths, so the longest text it allows is a few hundred bytes.
TICKET = {
    "type": "object",
    "properties": {
        "title": {"type": "string", "maxLength": 12},
        "priority": {"enum": ["low", "medium", "high"]},
        "estimate": {"type": "number"},
        "labels": {"type": "array", "items": {"type": "string", "maxLength": 6}, "maxItems": 3},
        "assignee": {"anyOf": [{"type": "string", "maxLength": 8}, {"type": "null"}]},
        "done": {"type": "boolean"},
    },
    "required": ["title", "priority", "estimate", "labels", "assignee", "done"],
    "additionalProperties": False,
}
MAX_TOKENS = 600


def ask(client, schema, **extra):
    return client.chat.completions.create(
        model="tiny", messages=[{"role": "user", "content": "File a ticket for the broken login page."}],
        max_tokens=MAX_TOKENS, response_format={"type": "json_schema", "json_schema": {"name": "ticket", "schema": schema,
                                                                                      "strict": True}}, **extra)


def test_every_reply_to_a_schema_parses_and_validates(client):
    replies = [ask(client, TICKET, temperature=0)]
    replies += [ask(client, TICKET, temperature=1.0, top_p=0.95, seed=seed) for seed in range(12)]
    texts = set()
    for r in replies:
        choice = r.choices[0]
        assert choice.finish_reason == "stop", choice.message.content
        doc = json.loads(choice.message.content)
        jsonschema.validate(doc, TICKET)
        texts.add(choice.message.content)
    assert len(texts) > 6, "sampled replies differ: the constraint masks the distribution, it does not fix the text"


def test_a_streamed_reply_is_the_whole_reply(client):
    whole = ask(client, TICKET, temperature=0).choices[0].message.content
    stream = ask(client, TICKET, temperature=0, stream=True)
    streamed = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
    assert streamed == whole
    jsonschema.validate(json.loads(streamed), TICKET)


class Step(pydantic.BaseModel):
    action: Literal["open", "close", "wait"]
    seconds: Optional[int]


class Plan(pydantic.BaseModel):
    name: str = pydantic.Field(max_length=10)
    steps: list[Step] = pydantic.Field(max_length=2)


def test_the_sdks_pydantic_parse_reads_the_reply_back(client):
    # The SDK turns the class into a strict schema ($defs, $ref, anyOf for Optional, titles) and parses the reply.
    for seed in range(4):
        r = client.chat.completions.parse(model="tiny", messages=[{"role": "user", "content": "Plan the door."}],
                                          response_format=Plan, max_tokens=MAX_TOKENS, temperature=1.0, seed=seed)
        plan = r.choices[0].message.parsed
        assert isinstance(plan, Plan), r.choices[0].message.content
        assert len(plan.name) <= 10 and len(plan.steps) <= 2


def test_json_object_gives_an_object(client):
    r = client.completions.create(model="tiny", prompt="{", max_tokens=MAX_TOKENS, temperature=0,
                                  extra_body={"response_format": {"type": "json_object"}})
    text = r.choices[0].text
    if r.choices[0].finish_reason == "stop":
        assert isinstance(json.loads(text), dict)
    else:  # an unbounded grammar may run out of tokens; what came is still the start of an object
        assert r.choices[0].finish_reason == "length" and text.startswith("{")


def test_a_schema_hone_cannot_enforce_is_refused_by_name(client, server):
    with pytest.raises(openai.BadRequestError) as e:
        ask(client, {"type": "object", "properties": {"id": {"type": "string", "pattern": "^[a-z]+$"}}})
    assert e.value.body["param"] == "response_format.json_schema.schema"
    assert "at /properties/id: 'pattern' is not supported" in e.value.body["message"]
    with pytest.raises(openai.BadRequestError) as e:
        client.chat.completions.create(model="tiny", messages=[{"role": "user", "content": "x"}], max_tokens=4,
                                       response_format={"type": "xml"})
    assert e.value.body["param"] == "response_format"
    # Left recursion, and a schema nested far deeper than anything real (the server must not recurse over it).
    with pytest.raises(openai.BadRequestError) as e:
        ask(client, {"anyOf": [{"$ref": "#"}, {"$ref": "#"}, {"type": "null"}]})
    assert "refers to itself before anything is written" in e.value.body["message"]
    deep = '{"type": "array", "items": ' * 100000 + "true" + "}" * 100000  # too deep for Python's json to write
    body = ('{"model": "tiny", "messages": [{"role": "user", "content": "x"}], "response_format": '
            '{"type": "json_schema", "json_schema": {"name": "deep", "schema": ' + deep + "}}}")
    status, reply, _ = http_get(server.http_url, "/v1/chat/completions", method="POST", body=body.encode())
    assert status == 400 and json.loads(reply)["error"]["message"] == "the JSON schema nests deeper than 64 levels"
    # Still serving, constrained or not.
    jsonschema.validate(json.loads(ask(client, TICKET, temperature=0).choices[0].message.content), TICKET)
