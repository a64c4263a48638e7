#include "tensor/npy_header.h"

#include <charconv>
#include <vector>

namespace hone {
namespace {

// Deep enough for any real descr (nested structured dtypes), shallow enough that recursion is harmless.
constexpr int kMaxDepth = 32;
// Error messages quote the offending text; a hostile header could be megabytes long.
constexpr size_t kMaxQuote = 60;

std::string Quote(std::string_view s) {
  if (s.size() > kMaxQuote) return std::string(s.substr(0, kMaxQuote)) + "...";
  return std::string(s);
}

struct PyValue {
  enum Kind { kString, kInt, kBool, kNone, kTuple, kList };
  Kind kind = kNone;
  std::string str;          // kString: the contents, escapes resolved
  int64_t integer = 0;      // kInt
  bool boolean = false;     // kBool
  std::vector<PyValue> items;  // kTuple, kList
  std::string_view source;  // the literal as written, for error messages
};

class Parser {
 public:
  Parser(std::string_view text, std::string_view what) : text_(text), what_(what) {}

  Status Error(const std::string& expected) const {
    // Built with += rather than "'" + std::string: GCC 12 warns falsely (-Wrestrict) on the latter.
    std::string m(what_);
    m += ": .npy header dict at byte " + std::to_string(pos_) + ": expected " + expected + ", got ";
    if (pos_ < text_.size()) {
      m += '\'';
      m += Quote(text_.substr(pos_));
      m += '\'';
    } else {
      m += "the end of the header";
    }
    return Status::InvalidArgument(std::move(m));
  }

  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\r'))
      ++pos_;
  }

  bool Consume(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  bool AtEnd() {
    SkipSpace();
    return pos_ == text_.size();
  }

  Status ParseValue(PyValue& out, int depth) {
    if (depth > kMaxDepth) return Error("at most " + std::to_string(kMaxDepth) + " levels of nesting");
    SkipSpace();
    if (pos_ >= text_.size()) return Error("a value");
    size_t start = pos_;
    char c = text_[pos_];
    Status s;
    if (c == '\'' || c == '"') {
      s = ParseString(out);
    } else if (c == '(' || c == '[') {
      s = ParseSequence(out, depth);
    } else if (c == '-' || c == '+' || (c >= '0' && c <= '9')) {
      s = ParseInt(out);
    } else {
      s = ParseName(out);
    }
    if (!s.ok()) return s;
    out.source = text_.substr(start, pos_ - start);
    return Status::Ok();
  }

  size_t pos() const { return pos_; }

 private:
  Status ParseString(PyValue& out) {
    char quote = text_[pos_++];
    out.kind = PyValue::kString;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      // numpy's descrs never need escapes; take the escaped character literally so that a quote can be escaped.
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) ++pos_;
      out.str += text_[pos_++];
    }
    if (pos_ >= text_.size()) return Error(std::string("a closing ") + quote);
    ++pos_;
    return Status::Ok();
  }

  Status ParseSequence(PyValue& out, int depth) {
    char close = text_[pos_] == '(' ? ')' : ']';
    out.kind = close == ')' ? PyValue::kTuple : PyValue::kList;
    ++pos_;
    while (!Consume(close)) {
      PyValue item;
      if (Status s = ParseValue(item, depth + 1); !s.ok()) return s;
      out.items.push_back(std::move(item));
      if (!Consume(',')) {
        if (Consume(close)) break;
        return Error(std::string("',' or '") + close + "'");
      }
    }
    // Lenient where Python is not: "(5)" is read as the tuple (5,) (numpy itself always writes "(5,)").
    return Status::Ok();
  }

  Status ParseInt(PyValue& out) {
    size_t start = pos_;
    if (text_[pos_] == '+') ++pos_;
    size_t digits = pos_ + (pos_ < text_.size() && text_[pos_] == '-' ? 1 : 0);
    size_t end = digits;
    while (end < text_.size() && text_[end] >= '0' && text_[end] <= '9') ++end;
    if (end == digits) return Error("an integer");
    auto [ptr, ec] = std::from_chars(text_.data() + pos_, text_.data() + end, out.integer);
    if (ec != std::errc() || ptr != text_.data() + end) {
      pos_ = start;
      return Error("an integer that fits in 64 bits");
    }
    pos_ = end;
    // Python 2 era numpy wrote longs as "3L".
    if (pos_ < text_.size() && (text_[pos_] == 'L' || text_[pos_] == 'l')) ++pos_;
    out.kind = PyValue::kInt;
    return Status::Ok();
  }

  Status ParseName(PyValue& out) {
    size_t end = pos_;
    while (end < text_.size() && ((text_[end] >= 'A' && text_[end] <= 'Z') || (text_[end] >= 'a' && text_[end] <= 'z')))
      ++end;
    std::string_view name = text_.substr(pos_, end - pos_);
    if (name == "True" || name == "False") {
      out.kind = PyValue::kBool;
      out.boolean = name == "True";
    } else if (name == "None") {
      out.kind = PyValue::kNone;
    } else {
      return Error("a string, integer, True, False, None, tuple or list");
    }
    pos_ = end;
    return Status::Ok();
  }

  std::string_view text_;
  std::string_view what_;
  size_t pos_ = 0;
};

Status KeyError(std::string_view what, const std::string& problem) {
  return Status::InvalidArgument(std::string(what) + ": .npy header dict " + problem +
                                 ": expected exactly the keys 'descr', 'fortran_order' and 'shape'");
}

}  // namespace

Result<NpyHeader> ParseNpyHeaderDict(std::string_view text, std::string_view what) {
  Parser p(text, what);
  if (!p.Consume('{')) return p.Error("'{' opening the header dict");
  NpyHeader header;
  bool have_descr = false, have_order = false, have_shape = false;
  while (!p.Consume('}')) {
    PyValue key, value;
    HONE_RETURN_IF_ERROR(p.ParseValue(key, 1));
    if (key.kind != PyValue::kString) return p.Error("a string key (got " + Quote(key.source) + ")");
    if (!p.Consume(':')) return p.Error("':' after key '" + Quote(key.str) + "'");
    HONE_RETURN_IF_ERROR(p.ParseValue(value, 1));
    if (key.str == "descr") {
      if (have_descr) return KeyError(what, "has 'descr' twice");
      have_descr = true;
      header.descr_is_string = value.kind == PyValue::kString;
      header.descr = header.descr_is_string ? value.str : Quote(value.source);
    } else if (key.str == "fortran_order") {
      if (have_order) return KeyError(what, "has 'fortran_order' twice");
      have_order = true;
      if (value.kind != PyValue::kBool)
        return Status::InvalidArgument(std::string(what) +
                                       ": .npy header 'fortran_order': expected True or False, got " +
                                       Quote(value.source));
      header.fortran_order = value.boolean;
    } else if (key.str == "shape") {
      if (have_shape) return KeyError(what, "has 'shape' twice");
      have_shape = true;
      auto bad_shape = [&] {
        return Status::InvalidArgument(std::string(what) + ": .npy header 'shape': expected a tuple of non-negative " +
                                       "integers, got " + Quote(value.source));
      };
      if (value.kind != PyValue::kTuple) return bad_shape();
      for (const PyValue& d : value.items) {
        if (d.kind != PyValue::kInt || d.integer < 0) return bad_shape();
        header.shape.push_back(d.integer);
      }
    } else {
      return KeyError(what, "has an unexpected key '" + Quote(key.str) + "'");
    }
    if (!p.Consume(',')) {
      if (p.Consume('}')) break;
      return p.Error("',' or '}'");
    }
  }
  if (!p.AtEnd()) return p.Error("only padding after the header dict");
  if (!have_descr) return KeyError(what, "has no 'descr'");
  if (!have_order) return KeyError(what, "has no 'fortran_order'");
  if (!have_shape) return KeyError(what, "has no 'shape'");
  return header;
}

std::string FormatNpyHeaderDict(const NpyHeader& header) {
  std::string s = "{'descr': '" + header.descr + "', 'fortran_order': ";
  s += header.fortran_order ? "True" : "False";
  s += ", 'shape': (";
  for (size_t i = 0; i < header.shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(header.shape[i]);
  }
  // Python writes a one-item tuple as "(4,)".
  if (header.shape.size() == 1) s += ",";
  s += "), }";
  return s;
}

}  // namespace hone
