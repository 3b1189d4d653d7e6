// One synchronous HTTP/1.1 POST to a server given by URL, for the command-line clients
// (cli/ots_client.h for Tablestore, cli/dynamodb_call.h for DynamoDB): connect, write, read the
// response, close; 30 s for the whole exchange.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace ttlstore::cli {

struct HttpEndpoint {
  std::string host = "127.0.0.1";
  std::string port = "8000";

  // Parses "http://host[:port][/]"; false if it is not of that form (https is not supported).
  bool SetUrl(const std::string& url);
};

struct HttpReply {
  int status = 0;               // 0: the exchange failed (transport_error says why)
  std::string body;
  std::string transport_error;  // "cannot reach host:port: ..."
};

HttpReply HttpPost(const HttpEndpoint& endpoint, const std::string& target,
                   const std::vector<std::pair<std::string, std::string>>& headers,
                   const std::string& body);

}  // namespace ttlstore::cli
