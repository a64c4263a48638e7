// tokenize: hone's tokenizer on the command line, so that tests can compare it with the Python `tokenizers`
// library on any tokenizer.json.
//
//   tokenize [--no-special-tokens] [--max-length N] TOKENIZER_JSON < texts.jsonl > ids.jsonl
//
// Each input line is one JSON string; each output line is {"ids": [...], "type_ids": [...], "attention_mask": [...]}
// for it, or {"error": "..."} when that text cannot be encoded (the exit code is then 1). --max-length truncates
// to N tokens (special tokens included), overriding the file's truncation. Exit codes: 0 ok, 1 a text failed,
// 2 bad usage or an unreadable tokenizer.json.
#include <cstdlib>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "process/tokenizer.h"

namespace {

int Usage(const std::string& problem) {
  std::cerr << "tokenize: " << problem << "\n"
            << "usage: tokenize [--no-special-tokens] [--max-length N] TOKENIZER_JSON < texts.jsonl > ids.jsonl\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  bool add_special_tokens = true;
  long max_length = -1;
  std::string path;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--no-special-tokens") {
      add_special_tokens = false;
    } else if (arg == "--max-length") {
      if (i + 1 >= argc) return Usage("--max-length needs a number");
      char* end = nullptr;
      max_length = std::strtol(argv[++i], &end, 10);
      if (*end != '\0' || max_length < 0) return Usage(std::string("--max-length: expected N >= 0, got '") + argv[i] + "'");
    } else if (arg == "-h" || arg == "--help") {
      Usage("tokenizes one JSON string per line");
      return 0;
    } else if (!arg.empty() && arg[0] == '-') {
      return Usage("unknown flag '" + arg + "'");
    } else if (path.empty()) {
      path = arg;
    } else {
      return Usage("one TOKENIZER_JSON expected, got a second: '" + arg + "'");
    }
  }
  if (path.empty()) return Usage("TOKENIZER_JSON missing");
  auto tokenizer = hone::process::Tokenizer::FromFile(path);
  if (!tokenizer.ok()) {
    std::cerr << "tokenize: " << tokenizer.status().ToString() << "\n";
    return 2;
  }
  if (max_length >= 0) {
    hone::process::TruncationOptions t = (*tokenizer)->truncation().value_or(hone::process::TruncationOptions{});
    t.max_length = static_cast<size_t>(max_length);
    if (auto s = (*tokenizer)->set_truncation(t); !s.ok()) return Usage(s.message());
  }
  int rc = 0;
  std::string line;
  size_t line_number = 0;
  while (std::getline(std::cin, line)) {
    ++line_number;
    nlohmann::json out;
    nlohmann::json text = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (text.is_discarded() || !text.is_string()) {
      out["error"] = "line " + std::to_string(line_number) + ": expected one JSON string";
      rc = 1;
    } else if (auto e = (*tokenizer)->Encode(text.get<std::string>(), add_special_tokens); !e.ok()) {
      out["error"] = "line " + std::to_string(line_number) + ": " + e.status().ToString();
      rc = 1;
    } else {
      out["ids"] = e->ids;
      out["type_ids"] = e->type_ids;
      out["attention_mask"] = e->attention_mask;
    }
    std::cout << out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  }
  return rc;
}
