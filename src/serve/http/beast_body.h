// Beast body types for the server (internal to this part):
//  - RequestBody reads a request body into a BodyBuffer, reserving Content-Length at once and aligning the binary
//    section after Inference-Header-Content-Length bytes, so that the infer codec can borrow tensors from it;
//  - ReplyBody writes an HttpReply's body and then its tail as one gather list: output tensors go from their own
//    buffers to the socket without a copy.
#pragma once

#include <boost/beast/http.hpp>

#include <charconv>
#include <cstdint>
#include <vector>

#include "serve/http/body_buffer.h"
#include "serve/http/http_reply.h"

namespace hone::serve::http {

inline constexpr std::string_view kInferHeaderLength = "Inference-Header-Content-Length";

// The header's value as a byte count; nullopt when absent or not a plain decimal number.
inline std::optional<uint64_t> ParseLengthHeader(std::string_view text) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

struct RequestBody {
  using value_type = BodyBuffer;

  static std::uint64_t size(const value_type& body) { return body.size(); }

  class reader {
   public:
    template <bool isRequest, class Fields>
    reader(boost::beast::http::header<isRequest, Fields>& h, value_type& body) : body_(body) {
      auto it = h.find(kInferHeaderLength);
      if (it != h.end()) aligned_offset_ = ParseLengthHeader(it->value()).value_or(0);
    }

    void init(const boost::optional<std::uint64_t>& length, boost::beast::error_code& ec) {
      // The parser's body_limit has already refused anything longer than the server accepts.
      body_.Reset(length ? static_cast<size_t>(*length) : 0, static_cast<size_t>(aligned_offset_));
      ec = {};
    }

    template <class ConstBufferSequence>
    std::size_t put(const ConstBufferSequence& buffers, boost::beast::error_code& ec) {
      size_t n = 0;
      for (auto it = boost::asio::buffer_sequence_begin(buffers); it != boost::asio::buffer_sequence_end(buffers);
           ++it) {
        boost::asio::const_buffer b = *it;
        body_.Append(b.data(), b.size());
        n += b.size();
      }
      ec = {};
      return n;
    }

    void finish(boost::beast::error_code& ec) { ec = {}; }

   private:
    value_type& body_;
    uint64_t aligned_offset_ = 0;
  };
};

struct ReplyBody {
  using value_type = HttpReply;

  static std::uint64_t size(const value_type& reply) { return reply.body_size(); }

  class writer {
   public:
    using const_buffers_type = std::vector<boost::asio::const_buffer>;

    template <bool isRequest, class Fields>
    writer(const boost::beast::http::header<isRequest, Fields>&, const value_type& reply) : reply_(reply) {}

    void init(boost::beast::error_code& ec) { ec = {}; }

    boost::optional<std::pair<const_buffers_type, bool>> get(boost::beast::error_code& ec) {
      ec = {};
      if (done_) return boost::none;
      done_ = true;
      const_buffers_type buffers;
      buffers.reserve(1 + reply_.tail.size());
      if (!reply_.body.empty()) buffers.emplace_back(reply_.body.data(), reply_.body.size());
      for (const auto& t : reply_.tail) buffers.emplace_back(t.data(), t.size());
      if (buffers.empty()) return boost::none;
      return std::make_pair(std::move(buffers), false);
    }

   private:
    const value_type& reply_;
    bool done_ = false;
  };
};

}  // namespace hone::serve::http
