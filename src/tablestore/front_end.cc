#include "tablestore/front_end.h"

#include <atomic>
#include <cstdio>
#include <random>
#include <unordered_map>

#include "tablestore/error_map.h"
#include "tablestore/handlers.h"
#include "tablestore/signing.h"
#include "tablestore/tablestore.pb.h"
#include "common/ascii.h"

namespace ttlstore::tablestore {
namespace {

const std::unordered_map<std::string_view, Handler>& Handlers() {
  static const auto* handlers = new std::unordered_map<std::string_view, Handler>{
      {"CreateTable", &CreateTable}, {"UpdateTable", &UpdateTable},
      {"DescribeTable", &DescribeTable}, {"ListTable", &ListTable},
      {"DeleteTable", &DeleteTable}, {"CreateIndex", &CreateIndex},
      {"DropIndex", &DropIndex}, {"AddDefinedColumn", &AddDefinedColumn},
      {"DeleteDefinedColumn", &DeleteDefinedColumn}, {"PutRow", &PutRow},
      {"GetRow", &GetRow}, {"UpdateRow", &UpdateRow},
      {"DeleteRow", &DeleteRow}, {"GetRange", &GetRange},
      {"BatchGetRow", &BatchGetRow}, {"BatchWriteRow", &BatchWriteRow},
      {"ComputeSplitPointsBySize", &ComputeSplitPointsBySize},
      {"ListStream", &ListStream}, {"DescribeStream", &DescribeStream},
      {"GetShardIterator", &GetShardIterator}, {"GetStreamRecord", &GetStreamRecord},
      {"StartLocalTransaction", &StartLocalTransaction},
      {"CommitTransaction", &CommitTransaction}, {"AbortTransaction", &AbortTransaction},
      {"CreateSearchIndex", &CreateSearchIndex}, {"DescribeSearchIndex", &DescribeSearchIndex},
      {"ListSearchIndex", &ListSearchIndex}, {"DeleteSearchIndex", &DeleteSearchIndex},
      {"UpdateSearchIndex", &UpdateSearchIndex}, {"Search", &Search},
      {"ComputeSplits", &ComputeSplits}, {"ParallelScan", &ParallelScan},
  };
  return *handlers;
}

// A UUID-shaped request id, unique within the process and across restarts.
std::string NewRequestId() {
  static const uint64_t boot = std::random_device{}() ^ (uint64_t{std::random_device{}()} << 32);
  static std::atomic<uint64_t> counter{0};
  uint64_t n = counter.fetch_add(1, std::memory_order_relaxed);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx", uint32_t(boot >> 32),
                uint32_t(boot >> 16) & 0xffff, uint32_t(boot) & 0xffff,
                uint32_t(n >> 48) & 0xffff,
                static_cast<unsigned long long>(n & 0xffffffffffffULL));
  return buf;
}

std::string_view HeaderValue(const HeaderList& headers, std::string_view lower_name) {
  for (const auto& [name, value] : headers) {
    if (AsciiEqualsLower(name, lower_name)) return value;
  }
  return {};
}

void Finish(const Services& s, std::string_view action, std::string_view access_key_id,
            const std::string* secret, HttpResponse& r) {
  HeaderList out = {
      {"x-ots-contentmd5", ContentMd5(r.body)},
      {"x-ots-contenttype", "protocol buffer"},
      {"x-ots-date", FormatOtsDate(SystemClock().NowMs())},
      {"x-ots-requestid", NewRequestId()},
  };
  for (const auto& [name, value] : out) {
    r.headers += name;
    r.headers += ": ";
    r.headers += value;
    r.headers += "\r\n";
  }
  // Signed with the caller's secret, which the SDKs that check responses verify. Left out when
  // the key is unknown (the SDKs skip the check on OTSAuthFailed).
  if (secret) {
    r.headers += "authorization: ";
    r.headers += ResponseAuthorization(std::string(access_key_id), *secret, std::string(action), out);
    r.headers += "\r\n";
  }
}

void SetError(const OtsError& e, HttpResponse& r) {
  otspb::Error err;
  err.set_code(e.code);
  err.set_message(e.message);
  r.status = e.http_status;
  r.body = Serialize(err);
  r.error_code = e.code;
  r.error_message = e.message;
}

}  // namespace

namespace {

std::string_view ActionOf(std::string_view target) {
  std::string_view action = target.substr(0, target.find('?'));
  if (!action.empty() && action.front() == '/') action.remove_prefix(1);
  return action;
}

// The metrics label: only the operations served, so that requests naming made-up actions
// cannot grow the label set without bound.
std::string LabelOf(std::string_view action) {
  return Handlers().contains(action) ? std::string(action) : std::string("unknown");
}

}  // namespace

HttpResponse BodyTooLarge(const Services& s, std::string_view target, const HeaderList& headers) {
  HttpResponse r;
  std::string_view action = ActionOf(target);
  r.action = LabelOf(action);
  SetError({413, "OTSRequestBodyTooLarge", "The size of POST data is too large."}, r);
  Finish(s, action, HeaderValue(headers, "x-ots-accesskeyid"), nullptr, r);
  return r;
}

HttpResponse HandleRequest(const Services& s, std::string_view method, std::string_view target,
                           const HeaderList& headers, std::string_view body,
                           const DecodedBody* decoded) {
  HttpResponse r;
  std::string_view action = ActionOf(target);
  r.action = LabelOf(action);
  std::string_view access_key_id = HeaderValue(headers, "x-ots-accesskeyid");
  if (method != "POST") {
    SetError({405, "OTSMethodNotAllowed", "Only POST method is allowed."}, r);
    Finish(s, action, access_key_id, nullptr, r);
    return r;
  }
  if (body.size() > kMaxRequestBodyBytes) return BodyTooLarge(s, target, headers);
  std::string secret;
  // Dates on the wire are checked against the wall clock, not the data clock (which
  // --clock-start-ms may move): a client cannot know the latter.
  auto denied = VerifyRequest(s.credentials, action, headers, body, SystemClock().NowMs(), &secret);
  // Without credentials there is no secret to sign with; neither for an unknown key.
  const std::string* sign_with = s.credentials && !secret.empty() ? &secret : nullptr;
  if (denied) {
    SetError(*denied, r);
    Finish(s, action, access_key_id, sign_with, r);
    return r;
  }
  if (decoded) {
    if (decoded->error) {
      SetError(*decoded->error, r);
      Finish(s, action, access_key_id, sign_with, r);
      return r;
    }
    body = decoded->bytes;
  }
  auto it = Handlers().find(action);
  if (it == Handlers().end()) {
    SetError(ParameterInvalid("Unsupported operation: " + EchoForError(action) + "."), r);
  } else {
    // The handlers see who calls and what, for the caller's policies.
    Services call = s;
    call.access_key_id = access_key_id;
    call.instance = HeaderValue(headers, "x-ots-instancename");
    call.action = action;
    Result<std::string> out = it->second(call, body);
    if (out) {
      r.body = std::move(*out);
    } else {
      SetError(ToOtsError(out.error()), r);
    }
  }
  Finish(s, action, access_key_id, sign_with, r);
  return r;
}

}  // namespace ttlstore::tablestore
