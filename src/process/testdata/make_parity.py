#!/usr/bin/env python3
"""Builds the reference tokenizers and expected ids that src/process/tokenizer_parity_test.cc checks hone against.

Run with an interpreter that has tokenizers==0.22.1 (no network needed):

    /work/main/.venv-test/bin/python src/process/testdata/make_parity.py

It trains small tokenizers (vocabularies of a few hundred to ~1000 tokens) on a corpus made here, in the layouts of
real models, and writes into this folder:
  parity_texts.json             the texts of tests/data/tokenizer_texts.jsonl, frozen (the jsonl may grow)
  <name>.tokenizer.json         each tokenizer, as tokenizers saves it (edited where a real model's file differs)
  <name>.expected.json          what tokenizers gives for every text: per text ids (type_ids only when not all 0,
                                attention_mask only when not all 1), the first texts again without special tokens,
                                a padded batch and a truncated batch set from code (options recorded beside them)
"""

from __future__ import annotations

import json
import pathlib
import random

import tokenizers
from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[2]
TEXTS = ROOT / "tests" / "data" / "tokenizer_texts.jsonl"

LLAMA3_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|"
    r"\s+(?!\S)|\s+"
)

WORDS = (
    "the of and to in a is that for it as was with be by on not he this are or his from at which but have an they "
    "you were her she there been one all we their has would when if so no what up out who them some could into "
    "model models token tokens tokenizer vector vectors sentence sentences embedding embeddings inference server "
    "latency throughput batch batches request requests response responses running runner runs quickly slowly "
    "naive cafe resume international internationalization understanding misunderstanding unbelievable happily "
    "don't isn't can't won't it's I'm we've they'll she'd 2024 1999 3.14 42 100 1,000 12:30 hello world HELLO "
    "World Python C++ JSON HTTP URL https www example com org user assistant system"
).split()


def corpus(texts: list[str]) -> list[str]:
    rng = random.Random(7)
    lines = []
    for _ in range(3000):
        n = rng.randint(4, 16)
        lines.append(" ".join(rng.choice(WORDS) for _ in range(n)) + rng.choice([".", "!", "?", ",", ""]))
    return lines + texts * 3


def bert(texts):
    t = Tokenizer(models.WordPiece(unk_token="[UNK]", max_input_chars_per_word=100))
    t.normalizer = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True, strip_accents=None, lowercase=True)
    t.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    t.decoder = decoders.WordPiece(prefix="##")
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    t.train_from_iterator(corpus(texts), trainers.WordPieceTrainer(vocab_size=1000, special_tokens=specials,
                                                                   limit_alphabet=400))
    t.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", t.token_to_id("[CLS]")), ("[SEP]", t.token_to_id("[SEP]"))])
    # As all-MiniLM-L6-v2 ships: truncation to 128 and no padding.
    t.enable_truncation(max_length=128)
    return t, None


def bert_cased(texts):
    """A cased BERT (strip_accents false, no lowercasing), with BertProcessing and a short truncation on the left."""
    t = Tokenizer(models.WordPiece(unk_token="[UNK]", max_input_chars_per_word=20))
    t.normalizer = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=False, strip_accents=False,
                                              lowercase=False)
    t.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    t.train_from_iterator(corpus(texts), trainers.WordPieceTrainer(vocab_size=500, special_tokens=specials,
                                                                   limit_alphabet=200))
    t.post_processor = processors.BertProcessing(("[SEP]", t.token_to_id("[SEP]")), ("[CLS]", t.token_to_id("[CLS]")))
    t.enable_truncation(max_length=64, direction="left")
    return t, None


def gpt2(texts):
    """GPT-2: ByteLevel with the GPT-2 regex; merges written in the old "a b" string form."""
    t = Tokenizer(models.BPE())
    t.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    t.decoder = decoders.ByteLevel()
    t.post_processor = processors.ByteLevel(trim_offsets=True)
    t.train_from_iterator(corpus(texts), trainers.BpeTrainer(vocab_size=800, special_tokens=["<|endoftext|>"],
                                                             initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    t.enable_truncation(max_length=512)

    def edit(d):
        d["model"]["merges"] = [" ".join(m) for m in d["model"]["merges"]]
    return t, edit


def llama3(texts):
    """Llama 3: Split(regex, Isolated) then ByteLevel without its regex, ignore_merges, <|begin_of_text|> template."""
    t = Tokenizer(models.BPE(ignore_merges=True))
    t.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(LLAMA3_PATTERN), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=False),
    ])
    t.decoder = decoders.ByteLevel()
    specials = ["<|begin_of_text|>", "<|end_of_text|>", "<|im_start|>", "<|im_end|>"]
    t.train_from_iterator(corpus(texts), trainers.BpeTrainer(vocab_size=900, special_tokens=specials,
                                                             initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    bos = t.token_to_id("<|begin_of_text|>")
    t.post_processor = processors.Sequence([
        processors.ByteLevel(trim_offsets=False),
        processors.TemplateProcessing(single="<|begin_of_text|> $A", pair="<|begin_of_text|> $A <|begin_of_text|>:1 $B:1",
                                      special_tokens=[("<|begin_of_text|>", bos)]),
    ])
    t.enable_truncation(max_length=512)
    return t, None


def smollm2(texts):
    """SmolLM2: Digits(individual) then ByteLevel with the GPT-2 regex; chat special tokens; no template."""
    t = Tokenizer(models.BPE())
    t.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Digits(individual_digits=True),
        pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=True),
    ])
    t.decoder = decoders.ByteLevel()
    t.post_processor = processors.ByteLevel(trim_offsets=True)
    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    t.train_from_iterator(corpus(texts), trainers.BpeTrainer(vocab_size=900, special_tokens=specials,
                                                             initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    t.enable_truncation(max_length=512)
    return t, None


def mixed(texts):
    """Everything else the two families may meet: a normalizer sequence, Whitespace/Punctuation/Digits, a BPE with
    unk_token and a continuing-subword prefix, and added tokens with single_word / lstrip / rstrip / normalized."""
    t = Tokenizer(models.BPE(unk_token="[UNK]", continuing_subword_prefix="##", fuse_unk=True))
    t.normalizer = normalizers.Sequence([
        normalizers.NFKD(), normalizers.StripAccents(), normalizers.Lowercase(),
        normalizers.Replace(Regex(r"\s+"), " "), normalizers.Replace("``", '"'), normalizers.Strip(),
        normalizers.NFC(), normalizers.Prepend("^"),
    ])
    t.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation(behavior="isolated"),
        pre_tokenizers.Digits(individual_digits=False),
        pre_tokenizers.Split(Regex(r"[aeiou]"), behavior="merged_with_next"),
    ])
    specials = ["[UNK]", "[CLS]", "[SEP]"]
    t.train_from_iterator(corpus(texts)[:1500], trainers.BpeTrainer(vocab_size=400, special_tokens=specials,
                                                                    continuing_subword_prefix="##", limit_alphabet=60))
    t.add_special_tokens([AddedToken("[MASK]", lstrip=True, rstrip=False, special=True, normalized=False)])
    t.add_tokens([AddedToken("<url>", single_word=True, normalized=False),
                  AddedToken("Hello", rstrip=True, normalized=True),
                  AddedToken("world", single_word=True, normalized=True)])
    t.post_processor = processors.BertProcessing(("[SEP]", t.token_to_id("[SEP]")), ("[CLS]", t.token_to_id("[CLS]")))
    return t, None


BUILDERS = {"bert": bert, "bert_cased": bert_cased, "gpt2": gpt2, "llama3": llama3, "smollm2": smollm2,
            "mixed": mixed}


def compact(enc) -> dict:
    out = {"ids": enc.ids}
    if any(enc.type_ids):
        out["type_ids"] = enc.type_ids
    if not all(enc.attention_mask):
        out["attention_mask"] = enc.attention_mask
    return out


def full(enc) -> dict:
    return {"ids": enc.ids, "type_ids": enc.type_ids, "attention_mask": enc.attention_mask}


def main() -> None:
    texts = [json.loads(line) for line in TEXTS.read_text(encoding="utf-8").split("\n") if line.strip()]
    (HERE / "parity_texts.json").write_text(json.dumps(texts, ensure_ascii=False) + "\n", encoding="utf-8")
    extra = [
        "[MASK] hello   [MASK]world <url> x<url> <url>y Hello   there HELLO world worldly",
        "<|im_start|>user\n2+2?<|im_end|>\n<|im_start|>assistant\n4<|im_end|><|endoftext|>",
    ]
    texts_all = texts + extra
    for name, build in BUILDERS.items():
        t, edit = build(texts)
        d = json.loads(t.to_str())
        if edit:
            edit(d)
        text = json.dumps(d, ensure_ascii=False, separators=(",", ":"))
        (HERE / f"{name}.tokenizer.json").write_text(text, encoding="utf-8")
        t = Tokenizer.from_str(text)  # the file as written is the reference
        batch_texts = texts_all[:12]
        expected = {
            "tokenizers_version": tokenizers.__version__,
            "extra_texts": extra,
            "cases": [compact(e) for e in t.encode_batch(texts_all)],
            "no_special_tokens": [compact(e) for e in t.encode_batch(texts_all[:30], add_special_tokens=False)],
        }
        # Padding and truncation set from code.
        pad_id = t.token_to_id("[PAD]") or 0
        t.enable_padding(direction="left" if name in ("llama3", "smollm2") else "right", pad_id=pad_id,
                         pad_type_id=0, pad_token="[PAD]", pad_to_multiple_of=8)
        expected["padded_batch"] = {
            "options": {"direction": "left" if name in ("llama3", "smollm2") else "right", "pad_id": pad_id,
                        "pad_to_multiple_of": 8},
            "first_texts": len(batch_texts),
            "encodings": [full(e) for e in t.encode_batch(batch_texts)],
        }
        t.enable_padding(length=24, pad_id=pad_id, pad_token="[PAD]")
        t.enable_truncation(max_length=24, direction="left")
        expected["fixed_24_left_truncated"] = {
            "first_texts": len(batch_texts),
            "encodings": [full(e) for e in t.encode_batch(batch_texts)],
        }
        (HERE / f"{name}.expected.json").write_text(json.dumps(expected, separators=(",", ":")) + "\n")
        print(f"{name}: vocab {t.get_vocab_size()}, {len(texts_all)} texts")


if __name__ == "__main__":
    main()
