#include "process/bpe_model.h"

#include <cstdio>
#include <queue>
#include <vector>

namespace hone::process {
namespace {

thread_local uint64_t pair_lookups = 0;  // BpeModel::PairLookupsOnThisThread

}  // namespace

uint64_t BpeModel::PairLookupsOnThisThread() { return pair_lookups; }

Result<std::unique_ptr<Model>> BpeModel::FromJson(const Json& json, std::string_view path) {
  std::unique_ptr<BpeModel> m(new BpeModel());
  HONE_ASSIGN_OR_RETURN(const Json* vocab, RequiredField(json, "vocab", path));
  HONE_ASSIGN_OR_RETURN(m->vocab_, Vocab::FromJson(*vocab, JsonPath(path, "vocab")));
  HONE_ASSIGN_OR_RETURN(m->unk_token_, OptionalString(json, "unk_token", path));
  HONE_ASSIGN_OR_RETURN(auto prefix, OptionalString(json, "continuing_subword_prefix", path));
  m->prefix_ = prefix.value_or("");
  HONE_ASSIGN_OR_RETURN(auto suffix, OptionalString(json, "end_of_word_suffix", path));
  m->suffix_ = suffix.value_or("");
  HONE_ASSIGN_OR_RETURN(m->fuse_unk_, OptionalBool(json, "fuse_unk", path, false));
  HONE_ASSIGN_OR_RETURN(m->byte_fallback_, OptionalBool(json, "byte_fallback", path, false));
  HONE_ASSIGN_OR_RETURN(m->ignore_merges_, OptionalBool(json, "ignore_merges", path, false));
  if (auto it = json.find("dropout"); it != json.end() && !it->is_null()) {
    if (!it->is_number()) {
      return Status::InvalidArgument(JsonPath(path, "dropout") + ": expected a number or null, got " +
                                     JsonTypeName(*it));
    }
    if (it->get<double>() > 0) {
      return Status::InvalidArgument(JsonPath(path, "dropout") + " " + it->dump() +
                                     " is not supported (null or 0: dropout makes encoding random)");
    }
  }
  HONE_ASSIGN_OR_RETURN(const Json* merges, RequiredArray(json, "merges", path));
  HONE_RETURN_IF_ERROR(m->ParseMerges(*merges, JsonPath(path, "merges")));
  return std::unique_ptr<Model>(std::move(m));
}

Status BpeModel::ParseMerges(const Json& merges, std::string_view path) {
  merges_.reserve(merges.size());
  for (size_t i = 0; i < merges.size(); ++i) {
    const Json& entry = merges[i];
    std::string a, b;
    if (entry.is_string()) {  // "a b"
      const auto& s = entry.get_ref<const std::string&>();
      const size_t space = s.find(' ');
      if (space == std::string::npos || s.find(' ', space + 1) != std::string::npos) {
        return Status::InvalidArgument(JsonPath(path, i) + ": expected \"left right\" with one space, got '" + s +
                                       "'");
      }
      a = s.substr(0, space);
      b = s.substr(space + 1);
    } else if (entry.is_array() && entry.size() == 2 && entry[0].is_string() && entry[1].is_string()) {
      a = entry[0].get<std::string>();
      b = entry[1].get<std::string>();
    } else {
      return Status::InvalidArgument(JsonPath(path, i) + ": expected \"left right\" or [left, right], got " +
                                     entry.dump().substr(0, 80));
    }
    const std::string merged = a + (b.size() >= prefix_.size() ? b.substr(prefix_.size()) : b);
    const auto a_id = vocab_.Find(a), b_id = vocab_.Find(b), new_id = vocab_.Find(merged);
    const std::string* missing = !a_id ? &a : !b_id ? &b : !new_id ? &merged : nullptr;
    if (missing != nullptr) {
      return Status::InvalidArgument(JsonPath(path, i) + ": token '" + *missing + "' is not in model.vocab");
    }
    // A pair listed twice keeps the later rank, as tokenizers does.
    merges_[PairKey(*a_id, *b_id)] = Merge{static_cast<uint32_t>(i), *new_id};
  }
  return Status::Ok();
}

Status BpeModel::Tokenize(std::string_view word, std::vector<Token>* out) const {
  if (word.empty()) return Status::Ok();
  if (ignore_merges_) {
    if (auto id = vocab_.Find(word)) {
      out->push_back({*id, std::string(word)});
      return Status::Ok();
    }
  }
  // The word as a doubly linked list of symbols; a merged-away symbol is marked dead.
  struct Symbol {
    int64_t id;
    int prev, next;
    bool dead;
  };
  std::vector<Symbol> symbols;
  symbols.reserve(word.size());
  auto add = [&](int64_t id) {
    const int index = static_cast<int>(symbols.size());
    symbols.push_back({id, index - 1, index + 1, false});
  };
  int64_t pending_unk = -1;  // unknown characters not yet added (fused when fuse_unk); -1: none
  std::string piece;
  for (size_t pos = 0; pos < word.size();) {
    size_t len = 1;
    while (pos + len < word.size() && (static_cast<unsigned char>(word[pos + len]) & 0xC0) == 0x80) ++len;
    piece.clear();
    if (pos > 0) piece.append(prefix_);
    piece.append(word.substr(pos, len));
    if (pos + len == word.size()) piece.append(suffix_);
    pos += len;
    if (auto id = vocab_.Find(piece)) {
      if (pending_unk >= 0) add(pending_unk);
      pending_unk = -1;
      add(*id);
      continue;
    }
    if (byte_fallback_) {
      std::vector<int64_t> bytes;
      for (unsigned char c : piece) {
        char name[8];
        std::snprintf(name, sizeof(name), "<0x%02X>", c);
        auto id = vocab_.Find(name);
        if (!id) break;
        bytes.push_back(*id);
      }
      if (bytes.size() == piece.size()) {
        for (int64_t id : bytes) add(id);  // tokenizers adds these before any pending unknown token
        continue;
      }
    }
    if (!unk_token_) continue;  // no unknown token: the character is dropped, as tokenizers does
    const auto unk_id = vocab_.Find(*unk_token_);
    if (!unk_id) {
      return Status::InvalidArgument("BPE: unk_token '" + *unk_token_ + "' is not in model.vocab, and the word '" +
                                     std::string(word.substr(0, 100)) + "' needs it");
    }
    if (pending_unk >= 0 && !fuse_unk_) add(pending_unk);
    pending_unk = *unk_id;
  }
  if (pending_unk >= 0) add(pending_unk);
  if (symbols.empty()) return Status::Ok();
  symbols.back().next = -1;

  struct Candidate {
    uint32_t rank;
    int pos;
    int64_t new_id;
    bool operator>(const Candidate& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
  };
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> queue;
  uint64_t lookups = symbols.size() - 1;  // counted here and added once: the loop below stays free of TLS
  for (size_t i = 0; i + 1 < symbols.size(); ++i) {
    if (const Merge* m = FindMerge(symbols[i].id, symbols[i + 1].id)) {
      queue.push({m->rank, static_cast<int>(i), m->new_id});
    }
  }
  while (!queue.empty()) {
    ++lookups;  // the candidate's pair, looked up again below (or skipped as dead: as much work)
    const Candidate top = queue.top();
    queue.pop();
    Symbol& left = symbols[top.pos];
    if (left.dead || left.next < 0) continue;
    Symbol& right = symbols[left.next];
    const Merge* current = FindMerge(left.id, right.id);
    if (current == nullptr || current->new_id != top.new_id) continue;  // stale: a neighbour has changed
    left.id = top.new_id;
    right.dead = true;
    left.next = right.next;
    if (right.next >= 0) symbols[right.next].prev = top.pos;
    if (left.prev >= 0) {
      ++lookups;
      if (const Merge* m = FindMerge(symbols[left.prev].id, left.id)) queue.push({m->rank, left.prev, m->new_id});
    }
    if (left.next >= 0) {
      ++lookups;
      if (const Merge* m = FindMerge(left.id, symbols[left.next].id)) queue.push({m->rank, top.pos, m->new_id});
    }
  }
  pair_lookups += lookups;
  for (const Symbol& s : symbols) {
    if (s.dead) continue;
    out->push_back({s.id, std::string(vocab_.Token(s.id).value_or(""))});
  }
  return Status::Ok();
}

}  // namespace hone::process
