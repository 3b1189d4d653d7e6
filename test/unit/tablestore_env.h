// A Tablestore front end on a real Store in a fresh temp folder, with one access key, and signed
// requests to it: what the hostile-input tests and the request fuzzer (fuzz/) run against.
// No GoogleTest here, so that the fuzzer can use it too.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "auth/credentials.h"
#include "common/clock.h"
#include "ops/local_transactions.h"
#include "ops/row_ops.h"
#include "ops/table_ops.h"
#include "storage/store.h"
#include "tablestore/front_end.h"
#include "tablestore/signing.h"
#include "tablestore/tablestore.pb.h"

namespace ttlstore::tablestore {

class TablestoreEnv {
 public:
  static constexpr const char* kKey = "testKey";
  static constexpr const char* kSecret = "testSecret";

  // Opens a store in a new folder named after `name` under the temp dir; aborts if it cannot.
  explicit TablestoreEnv(const std::string& name)
      : dir_(std::filesystem::temp_directory_path() /
             ("ttlstore_" + name + "_" + std::to_string(::getpid()))),
        credentials_(*auth::Credentials::Parse(std::string(kKey) + " " + kSecret + "\n")) {
    std::filesystem::remove_all(dir_);
    storage::StoreOptions options;
    options.path = dir_.string();
    auto store = storage::Store::Open(options);
    if (!store) std::abort();
    store_ = std::move(*store);
    catalog_ = std::make_unique<ops::TableCatalog>(*store_, clock_);
    if (!catalog_->Load()) std::abort();
    rows_ = std::make_unique<ops::RowOps>(*store_, clock_);
    transactions_ = std::make_unique<ops::LocalTransactions>(*store_, *catalog_, *rows_, clock_);
    services_.emplace(Services{*catalog_, *rows_, clock_, &credentials_});
    services_->transactions = transactions_.get();
  }
  ~TablestoreEnv() {
    services_.reset();
    transactions_.reset();
    rows_.reset();
    catalog_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  const Services& services() const { return *services_; }

  // The headers the SDKs send for `action` and `body`, signed with kSecret. `extra` joins them
  // (and is signed too, if x-ots-*).
  static HeaderList SignedHeaders(std::string_view action, std::string_view body,
                                  HeaderList extra = {}) {
    HeaderList h = {
        {"x-ots-date", FormatOtsDate(SystemClock().NowMs())},
        {"x-ots-apiversion", "2015-12-31"},
        {"x-ots-accesskeyid", kKey},
        {"x-ots-instancename", "inst"},
        {"x-ots-contentmd5", ContentMd5(body)},
    };
    for (auto& e : extra) h.push_back(std::move(e));
    h.emplace_back("x-ots-signature", HmacSha1Base64(kSecret, RequestStringToSign(action, h)));
    return h;
  }

  HttpResponse Call(std::string_view action, std::string_view body, HeaderList extra = {}) const {
    return HandleRequest(*services_, "POST", "/" + std::string(action),
                         SignedHeaders(action, body, std::move(extra)), body);
  }

  template <typename Message>
  HttpResponse Send(std::string_view action, const Message& m) const {
    return Call(action, m.SerializePartialAsString());
  }

 private:
  std::filesystem::path dir_;
  SystemClock clock_;
  auth::Credentials credentials_;
  std::unique_ptr<storage::Store> store_;
  std::unique_ptr<ops::TableCatalog> catalog_;
  std::unique_ptr<ops::RowOps> rows_;
  std::unique_ptr<ops::LocalTransactions> transactions_;
  std::optional<Services> services_;
};

// The (code, message) of an error response's body.
inline std::pair<std::string, std::string> ErrorOf(const HttpResponse& r) {
  otspb::Error e;
  if (!e.ParseFromString(r.body)) return {"<not an Error body>", ""};
  return {e.code(), e.message()};
}

}  // namespace ttlstore::tablestore
