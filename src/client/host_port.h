// "host:port" as gRPC dials and binds it: IPv6 literals in brackets ("[::1]:8001").
#pragma once

#include <string>

namespace hone::client {

inline std::string HostPort(const std::string& host, int port) {
  bool ipv6 = host.find(':') != std::string::npos && host.front() != '[';
  return (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

}  // namespace hone::client
