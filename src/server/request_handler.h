// What the server answers to one HTTP request, apart from the connection: routing, the
// DynamoDB service's HTTP surface (its headers, CORS, Content-Encoding, health line, 404s), SigV4
// and policies, and the hand-off to api::Dispatch or the Tablestore front end. A pure function
// of the request (Beast's handle_request model); the session in http_server.cc reads requests
// and writes what this returns.
//
//   POST /<Action>                      -> the Tablestore protocol
//   GET  /health, GET /metrics          -> ours
//   OPTIONS with Origin                 -> the service's CORS preflight answer
//   POST with a JSON type (or no body)  -> the DynamoDB (and Streams) API
//   GET  /                              -> the service's health line
//   anything else                       -> the service's 404 <UnknownOperationException/>
#pragma once

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <string>
#include <string_view>

#include "server/http_server.h"

namespace ttlstore::server {

using Request = boost::beast::http::request<boost::beast::http::string_body>;

// Everything a request may use; constant after start-up (the metrics are thread-safe).
struct HandlerContext {
  const ServerOptions& options;
  const api::Services& services;
  const tablestore::Services* tablestore;  // null: no Tablestore front end
  Metrics& metrics;
};

struct Response {
  int status = 200;
  const char* content_type = "";  // null: no Content-Type header (a CORS preflight)
  std::string body;
  std::string extra_headers;  // whole "Name: value\r\n" lines (Tablestore's, CORS)
  bool service_head = false;  // carry the DynamoDB service's headers (server/service_headers.h)
  bool preflight = false;     // a CORS preflight: no x-amz-crc32
};

// Handles one request whole and counts it in the metrics. `local_address` ("127.0.0.1:8000")
// stands for this server where a request has no usable Host header.
Response HandleRequest(const HandlerContext& ctx, const Request& req,
                       std::string_view local_address);

// The answer to a request whose body passes the limit (its head was read whole, its body not).
Response TooLargeResponse(const HandlerContext& ctx, const Request& req);

}  // namespace ttlstore::server
