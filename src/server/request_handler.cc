#include "server/request_handler.h"

#include <spdlog/spdlog.h>

#include <cctype>
#include <chrono>
#include <optional>

#include "api/authorize.h"
#include "common/ascii.h"
#include "common/clock.h"
#include "server/content_decoding.h"
#include "server/health.h"
#include "server/service_headers.h"
#include "tablestore/front_end.h"

namespace ttlstore::server {
namespace {

namespace http = boost::beast::http;
using Clock = std::chrono::steady_clock;

// A DynamoDB request body over the limit, before or after Content-Encoding is decoded.
constexpr const char* kTooLargeBody =
    R"({"__type":"com.amazonaws.dynamodb.v20120810#RequestEntityTooLarge",)"
    R"("message":"Request must be smaller than 16777216 bytes for the operation"})";

std::string_view Header(const Request& req, http::field field) {
  auto v = req[field];
  return std::string_view(v.data(), v.size());
}

std::string_view Header(const Request& req, std::string_view name) {
  auto v = req[boost::beast::string_view(name.data(), name.size())];
  return std::string_view(v.data(), v.size());
}

// /<Action> where the action is a capitalized word (the Tablestore protocol); other methods
// than POST get its 405. /health and /metrics are lowercase.
bool IsTablestoreTarget(std::string_view target) {
  if (target.size() < 2 || target[0] != '/' ||
      !std::isupper(static_cast<unsigned char>(target[1]))) {
    return false;
  }
  for (char c : target.substr(1, target.find('?') - 1)) {
    if (!std::isalnum(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// The request's x-ots-* headers, for the Tablestore front end, in whatever case the client
// spelled them: header names are case-insensitive (RFC 9110 section 5.1), and the SDKs differ
// (Node and Python send `x-ots-date`, Go's net/http canonicalizes it to `X-Ots-Date`;
// docs/tablestore.md, "What each SDK sends").
tablestore::HeaderList OtsHeaders(const Request& req) {
  tablestore::HeaderList headers;
  for (const auto& field : req) {
    std::string_view name(field.name_string().data(), field.name_string().size());
    if (name.size() > 6 && AsciiEqualsLower(name.substr(0, 6), "x-ots-")) {
      headers.emplace_back(std::string(name), std::string(field.value()));
    }
  }
  return headers;
}

// A Tablestore body sent compressed: the Java SDK's request compression (off by default;
// ClientConfiguration.setEnableRequestCompression) deflates the body into a zlib stream and
// names the type and the original size in two headers, which it signs; the content MD5 covers
// the compressed bytes. nullopt for a body sent plain. The texts are ours (Chosen): the
// service's are not published.
std::optional<tablestore::DecodedBody> DecodeOtsBody(const Request& req) {
  std::string_view type = Header(req, "x-ots-request-compress-type");
  if (type.empty()) return std::nullopt;
  tablestore::DecodedBody out;
  auto invalid = [&](std::string message) {
    out.bytes.clear();
    out.error = tablestore::OtsError{400, "OTSParameterInvalid", std::move(message)};
    return out;
  };
  if (!AsciiEqualsLower(type, "deflate")) {
    return invalid("Unsupported compress type: " + tablestore::EchoForError(type) + ".");
  }
  switch (DecodeContent("deflate", req.body(), tablestore::kMaxRequestBodyBytes, &out.bytes)) {
    case Decoding::kPlain:
    case Decoding::kDecoded:
      break;
    case Decoding::kTooLarge:
      out.bytes.clear();
      out.error = tablestore::OtsError{413, "OTSRequestBodyTooLarge",
                                       "The size of POST data is too large."};
      return out;
    case Decoding::kUnsupported:
    case Decoding::kCorrupt:
      return invalid("The request body is not a valid deflate stream.");
  }
  std::string_view size = Header(req, "x-ots-request-compress-size");
  if (!size.empty() && size != std::to_string(out.bytes.size())) {
    return invalid("The decompressed request body has " + std::to_string(out.bytes.size()) +
                   " bytes, but x-ots-request-compress-size says " +
                   tablestore::EchoForError(size) + ".");
  }
  return out;
}

// The operation part of an X-Amz-Target ("DynamoDB_20120810.PutItem" -> "PutItem") for
// metrics and logs: letters and digits only, at most 64 of them; "" if none.
std::string OperationName(std::string_view target) {
  size_t dot = target.find('.');
  std::string_view op = dot == std::string_view::npos ? target : target.substr(dot + 1);
  std::string name;
  for (char c : op.substr(0, 64)) {
    if (std::isalnum(static_cast<unsigned char>(c))) name.push_back(c);
  }
  return name;
}

// A client-sent value fit for one log line: printable ASCII without quotes, at most 200 bytes.
std::string ForLog(std::string_view value) {
  std::string out;
  for (char c : value.substr(0, 200)) out.push_back(c >= 0x20 && c < 0x7f && c != '"' ? c : '?');
  return out;
}

// The address the client reached this server at, as DescribeEndpoints and the health line name
// it: the Host header when it looks like host[:port], else the listening socket's address.
std::string EndpointHost(const Request& req, std::string_view local_address) {
  std::string_view host = Header(req, http::field::host);
  bool ok = !host.empty() && host.size() <= 255;
  for (char c : host) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != ':' &&
        c != '[' && c != ']' && c != '_') {
      ok = false;
    }
  }
  return std::string(ok ? host : local_address);
}

Response Tablestore(const HandlerContext& ctx, const Request& req, std::string_view target,
                    std::string& operation, std::string& outcome) {
  std::string_view method(req.method_string().data(), req.method_string().size());
  std::optional<tablestore::DecodedBody> decoded = DecodeOtsBody(req);
  tablestore::HttpResponse r =
      tablestore::HandleRequest(*ctx.tablestore, method, target, OtsHeaders(req), req.body(),
                                decoded ? &*decoded : nullptr);
  Response out;
  out.status = r.status;
  out.content_type = "application/x-protobuf";
  out.body = std::move(r.body);
  out.extra_headers = std::move(r.headers);
  operation = "tablestore." + r.action;
  if (!r.error_code.empty()) {
    outcome = r.error_code;
    spdlog::warn("event=request_error operation={} status={} type={} message=\"{}\"", operation,
                 r.status, r.error_code, r.error_message);
  }
  return out;
}

// SigV4 check of a DynamoDB API request, against the body as sent; an empty error_type means it
// may proceed. Sets *access_key_id to the verified key.
api::ApiResponse VerifySignature(const HandlerContext& ctx, const Request& req,
                                 std::string_view target, std::string* access_key_id) {
  api::ApiResponse r;
  const auth::SigV4Verifier* verifier = ctx.options.sigv4;
  if (!verifier) return r;
  auth::HeaderPairs headers;
  for (const auto& field : req) {
    headers.emplace_back(std::string_view(field.name_string().data(), field.name_string().size()),
                         std::string_view(field.value().data(), field.value().size()));
  }
  std::string_view method(req.method_string().data(), req.method_string().size());
  auth::SignedRequest signed_request{method, target, headers, req.body()};
  Status ok = verifier->Verify(signed_request, SystemClock().NowMs(), access_key_id);
  if (ok) return r;
  r = api::ErrorResponse(ok.error());
  r.operation = OperationName(Header(req, "X-Amz-Target"));
  return r;
}

// The policies of a verified key (with --credentials and --policies), read against the decoded
// body; an empty error_type means it may proceed.
api::ApiResponse Authorize(const HandlerContext& ctx, const std::string& access_key_id,
                           std::string_view amz_target, std::string_view body) {
  api::ApiResponse r;
  // Without credentials there is no caller to authorize; with them, resource-based policies
  // apply even when no policy file is given.
  if (!ctx.options.sigv4) return r;
  Status ok = api::Authorize(ctx.options.policies, ctx.services, access_key_id, amz_target, body);
  if (ok) return r;
  r = api::ErrorResponse(ok.error());
  r.operation = OperationName(amz_target);
  return r;
}

// A DynamoDB or Streams API call: signature (on the body as sent), Content-Encoding, policies
// (on the decoded body), then api::Dispatch.
void Api(const HandlerContext& ctx, const Request& req, std::string_view target,
         std::string_view local_address, Response& out, std::string& operation,
         std::string& outcome) {
  std::string_view amz_target = Header(req, "X-Amz-Target");
  std::string access_key_id;
  api::ApiResponse r = VerifySignature(ctx, req, target, &access_key_id);
  std::string decoded;
  std::string_view body = req.body();
  std::string_view encoding = Header(req, http::field::content_encoding);
  if (r.error_type.empty()) {
    switch (DecodeContent(encoding, body, ctx.options.max_body_bytes, &decoded)) {
      case Decoding::kPlain:
        break;
      case Decoding::kDecoded:
        body = decoded;
        break;
      case Decoding::kTooLarge:
        out.status = 413;
        out.body = kTooLargeBody;
        operation = OperationName(amz_target);
        outcome = "RequestEntityTooLarge";
        return;
      case Decoding::kUnsupported:
      case Decoding::kCorrupt:
        // The service answers an unknown encoding or a stream it cannot decode with a 500.
        spdlog::warn("event=request_body_undecodable content_encoding=\"{}\" bytes={}",
                     ForLog(encoding), body.size());
        r = api::ErrorResponse(Error::Internal("undecodable request body"));
        r.operation = OperationName(amz_target);
        break;
    }
  }
  if (r.error_type.empty()) r = Authorize(ctx, access_key_id, amz_target, body);
  if (r.error_type.empty()) {
    r = api::Dispatch(ctx.services, amz_target, body, {EndpointHost(req, local_address)});
  }
  out.status = r.http_status;
  out.body = std::move(r.body);
  operation = std::move(r.operation);
  if (r.error_type == "UnknownOperationException") {
    // Counted and logged under the name the client used, so an operator sees which call a
    // client is missing (the metrics keep a bounded number of names).
    operation = OperationName(amz_target);
    spdlog::warn("event=unknown_operation target=\"{}\"", ForLog(amz_target));
  }
  if (!r.error_type.empty()) {
    outcome = r.error_type;
    spdlog::warn("event=request_error operation={} status={} type={} message=\"{}\"",
                 operation.empty() ? "unknown" : operation, r.http_status, r.error_type,
                 r.error_message);
  }
}

// Everything but the Tablestore protocol and /health, /metrics is answered as the DynamoDB
// service answers it (docs/compatibility.md, "The HTTP surface"). Returns whether the request
// was an API call.
bool Service(const HandlerContext& ctx, const Request& req, std::string_view target,
             std::string_view path, std::string_view local_address, Response& out,
             std::string& operation, std::string& outcome) {
  out.service_head = true;
  CorsRequest cors{Header(req, http::field::origin),
                   Header(req, http::field::access_control_request_method),
                   Header(req, http::field::access_control_request_headers)};
  out.preflight = req.method() == http::verb::options && !cors.origin.empty();
  AppendCorsHeaders(cors, out.preflight, &out.extra_headers);
  // The service answers in the media type it was asked in, and knows only these two; a body in
  // any other type is not an API call.
  std::string_view content_type = Header(req, http::field::content_type);
  content_type = content_type.substr(0, content_type.find(';'));
  bool plain_json = content_type == "application/json";
  bool json_type = plain_json || content_type == "application/x-amz-json-1.0";
  if (out.preflight) {
    out.content_type = nullptr;
  } else if (req.method() == http::verb::post && (json_type || req.body().empty())) {
    out.content_type = plain_json ? "application/json" : "application/x-amz-json-1.0";
    Api(ctx, req, target, local_address, out, operation, outcome);
    return true;
  } else if (req.method() == http::verb::get && path == "/") {
    // The service's health check names the host it was reached at, with a trailing space.
    out.content_type = "text/plain";
    out.body = "healthy: " + EndpointHost(req, local_address) + " ";
  } else {
    out.status = 404;
    out.content_type = "application/x-amz-json-1.0";
    out.body = "<UnknownOperationException/>\n";
  }
  return false;
}

}  // namespace

Response HandleRequest(const HandlerContext& ctx, const Request& req,
                       std::string_view local_address) {
  auto start = Clock::now();
  std::string operation, outcome = "ok";
  bool api_call = false;
  std::string_view target(req.target().data(), req.target().size());
  std::string_view path = target.substr(0, target.find('?'));
  Response out;
  if (ctx.tablestore && IsTablestoreTarget(target)) {
    api_call = true;
    out = Tablestore(ctx, req, target, operation, outcome);
  } else if (req.method() == http::verb::get && path == "/health") {
    out = HealthResponse(ctx.services.items.store());
  } else if (req.method() == http::verb::get && path == "/metrics") {
    out.content_type = "text/plain; version=0.0.4";
    out.body = ctx.metrics.Render();
  } else {
    api_call = Service(ctx, req, target, path, local_address, out, operation, outcome);
  }
  if (api_call) {
    double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    ctx.metrics.RecordRequest(operation, outcome, seconds);
  }
  return out;
}

Response TooLargeResponse(const HandlerContext& ctx, const Request& req) {
  std::string_view target(req.target().data(), req.target().size());
  Response out;
  if (ctx.tablestore && IsTablestoreTarget(target)) {
    // Tablestore's own answer (its limit is 5 MB; bodies past 16 MiB are not read at all).
    tablestore::HttpResponse r = tablestore::BodyTooLarge(*ctx.tablestore, target, OtsHeaders(req));
    out.status = r.status;
    out.content_type = "application/x-protobuf";
    out.body = std::move(r.body);
    out.extra_headers = std::move(r.headers);
    ctx.metrics.RecordRequest("tablestore." + r.action, r.error_code, 0);
    return out;
  }
  out.service_head = true;
  out.status = 413;
  out.content_type = "application/x-amz-json-1.0";
  out.body = kTooLargeBody;
  ctx.metrics.RecordRequest(OperationName(Header(req, "X-Amz-Target")), "RequestEntityTooLarge",
                            0);
  return out;
}

}  // namespace ttlstore::server
