// Beast body types for KServe v2 messages, on both ends of the wire (serve's HTTP connection, HttpInferClient):
//  - RequestBody reads a body into a BodyBuffer, reserving Content-Length at once and aligning the binary section
//    after Inference-Header-Content-Length bytes, so that a codec can borrow tensors from it (the server reads
//    requests with it, the client replies);
//  - GatherBody writes a message's body and then its tail as one gather list: tensors go from their own buffers to
//    the socket without a copy (the server writes its HttpReply with it, the client its RequestPayload).
#pragma once

#include <boost/beast/http.hpp>

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "client/body_buffer.h"

namespace hone::client {

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

// What HttpInferClient sends: the JSON part, then the binary sections (views into the input tensors).
struct RequestPayload {
  std::string body;
  std::vector<std::span<const std::byte>> tail;

  size_t body_size() const {
    size_t n = body.size();
    for (const auto& t : tail) n += t.size();
    return n;
  }
};

// `Message` has `body` (a std::string), `tail` (byte spans written after it) and body_size() (the two together).
template <class Message>
struct GatherBody {
  using value_type = Message;

  static std::uint64_t size(const value_type& message) { return message.body_size(); }

  class writer {
   public:
    using const_buffers_type = std::vector<boost::asio::const_buffer>;

    template <bool isRequest, class Fields>
    writer(const boost::beast::http::header<isRequest, Fields>&, const value_type& message) : message_(message) {}

    void init(boost::beast::error_code& ec) { ec = {}; }

    boost::optional<std::pair<const_buffers_type, bool>> get(boost::beast::error_code& ec) {
      ec = {};
      if (done_) return boost::none;
      done_ = true;
      const_buffers_type buffers;
      buffers.reserve(1 + message_.tail.size());
      if (!message_.body.empty()) buffers.emplace_back(message_.body.data(), message_.body.size());
      for (const auto& t : message_.tail) buffers.emplace_back(t.data(), t.size());
      if (buffers.empty()) return boost::none;
      return std::make_pair(std::move(buffers), false);
    }

   private:
    const value_type& message_;
    bool done_ = false;
  };
};

}  // namespace hone::client
