// Shared fixture for ops tests: a Store in a fresh temp folder, ItemOps over it, and a table.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>

#include "model/number.h"
#include "ops/item_ops.h"
#include "storage/store.h"

namespace ttlstore::ops {

class OpsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("ttlstore_ops_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    storage::StoreOptions options;
    options.path = dir_.string();
    auto s = storage::Store::Open(options);
    ASSERT_TRUE(s.ok()) << s.error().message();
    store_ = std::move(*s);
    ops_ = std::make_unique<ItemOps>(*store_);
    table_.id = 1;
    table_.name = "t";
    table_.key.hash = {"pk", model::ValueType::kS};
    table_.key.range = model::KeyElement{"sk", model::ValueType::kN};
  }
  void TearDown() override {
    ops_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  static model::AttributeValue S(const std::string& s) { return model::AttributeValue::String(s); }
  static model::AttributeValue N(const std::string& n) {
    return model::AttributeValue::Num(model::Number::Parse(n)->ToString());
  }
  model::Item Row(const std::string& pk, const std::string& sk) {
    return {{"pk", S(pk)}, {"sk", N(sk)}, {"v", S(pk + "/" + sk)}};
  }
  void Put(const model::Item& item) { ASSERT_TRUE(ops_->Put(table_, item, nullptr).ok()); }

  std::filesystem::path dir_;
  std::unique_ptr<storage::Store> store_;
  std::unique_ptr<ItemOps> ops_;
  model::TableDescriptor table_;
};

}  // namespace ttlstore::ops
