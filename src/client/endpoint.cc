#include "client/endpoint.h"

#include <cctype>

namespace ttlstore::client {
namespace {

Error Bad(const std::string& url, const std::string& why) {
  return Error(ErrorCode::kValidation, "invalid endpoint URL '" + url + "': " + why +
                                           " (expected http://host[:port] or https://host[:port])");
}

}  // namespace

std::string Endpoint::HostHeader() const {
  bool default_port = (https && port == "443") || (!https && port == "80");
  return default_port ? host : host + ":" + port;
}

std::string Endpoint::Url() const { return (https ? "https://" : "http://") + HostHeader(); }

std::string RegionOfHost(const std::string& host) {
  std::string h = host;
  if (h.rfind("streams.", 0) == 0) h = h.substr(8);
  if (h.rfind("dynamodb.", 0) != 0) return "";
  h = h.substr(9);
  size_t dot = h.find('.');
  if (dot == std::string::npos || dot == 0) return "";
  std::string rest = h.substr(dot);
  if (rest != ".amazonaws.com" && rest != ".amazonaws.com.cn") return "";
  return h.substr(0, dot);
}

Result<Endpoint> ParseEndpoint(const std::string& url) {
  Endpoint e;
  std::string rest;
  if (url.rfind("http://", 0) == 0) {
    rest = url.substr(7);
  } else if (url.rfind("https://", 0) == 0) {
    e.https = true;
    rest = url.substr(8);
  } else {
    return Bad(url, "the scheme must be http or https");
  }
  if (!rest.empty() && rest.back() == '/') rest.pop_back();
  if (rest.empty()) return Bad(url, "no host");
  if (rest.find_first_of("/?#@ ") != std::string::npos) {
    return Bad(url, "only a scheme, a host and a port may be given");
  }
  e.port = e.https ? "443" : "80";
  size_t colon = rest.rfind(':');
  if (rest.front() == '[') {  // [IPv6]:port
    size_t close = rest.find(']');
    if (close == std::string::npos) return Bad(url, "unclosed '['");
    e.host = rest.substr(1, close - 1);
    if (close + 1 < rest.size()) {
      if (rest[close + 1] != ':') return Bad(url, "junk after ']'");
      e.port = rest.substr(close + 2);
    }
  } else if (colon != std::string::npos) {
    e.host = rest.substr(0, colon);
    e.port = rest.substr(colon + 1);
  } else {
    e.host = rest;
  }
  if (e.host.empty()) return Bad(url, "no host");
  if (e.port.empty() || e.port.size() > 5) return Bad(url, "bad port");
  for (char c : e.port) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return Bad(url, "bad port");
  }
  int port = std::stoi(e.port);
  if (port < 1 || port > 65535) return Bad(url, "port out of range");
  return e;
}

}  // namespace ttlstore::client
