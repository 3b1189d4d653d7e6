// Conformance of batch shapes and hinted scans, on every backend (store_fixture.h): a backend
// may regroup a batch's writes (PostgreSQL writes each key once, many rows per statement) and
// read a hinted scan in one round trip, but what a reader sees must be what the writes in order
// and a plain scan give.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "storage/expiry_key.h"
#include "storage/store.h"
#include "store_fixture.h"

namespace ttlstore::storage {
namespace {

class StoreBatchTest : public StoreFixture {};

INSTANTIATE_TEST_SUITE_P(Backends, StoreBatchTest, ::testing::Values("rocksdb", "postgresql"),
                         [](const auto& info) { return info.param; });

std::vector<std::pair<std::string, std::string>> All(Store& store, Family family) {
  std::vector<std::pair<std::string, std::string>> out;
  for (auto it = store.ScanFamily(family, "", std::string(4, '\xff'), false, nullptr);
       it->Valid(); it->Next()) {
    out.emplace_back(it->key(), it->value());
  }
  return out;
}

// Hundreds of puts and deletes of one family, long keys among them, keys written several times,
// a range delete between writes of keys inside it, and values too big for one statement.
TEST_P(StoreBatchTest, EachKeyEndsAsItsLastWriteInBatchOrder) {
  std::string long_head(1100, 'L');  // longer than a PostgreSQL key head: digest-keyed
  WriteBatch setup(*store_);
  for (int i = 0; i < 300; ++i) setup.Put(Family::kRows, "old" + std::to_string(1000 + i), "o");
  setup.Put(Family::kRows, long_head + "gone", "o");
  ASSERT_TRUE(store_->Write(setup).ok());

  std::map<std::string, std::string> want;
  for (int i = 0; i < 300; ++i) want["old" + std::to_string(1000 + i)] = "o";
  want[long_head + "gone"] = "o";
  WriteBatch batch(*store_);
  auto put = [&](const std::string& k, const std::string& v) {
    batch.Put(Family::kRows, k, v);
    want[k] = v;
  };
  auto del = [&](const std::string& k) {
    batch.Delete(Family::kRows, k);
    want.erase(k);
  };
  for (int i = 0; i < 700; ++i) put("new" + std::to_string(1000 + i), "v" + std::to_string(i));
  for (int i = 0; i < 300; i += 2) del("old" + std::to_string(1000 + i));
  for (int i = 0; i < 700; i += 3) put("new" + std::to_string(1000 + i), "again");
  for (int i = 0; i < 700; i += 5) del("new" + std::to_string(1000 + i));
  for (int i = 0; i < 700; i += 10) put("new" + std::to_string(1000 + i), "back");
  for (int i = 0; i < 40; ++i) put(long_head + std::to_string(1000 + i), std::string(i, 'x'));
  del(long_head + "gone");
  del(long_head + "1007");
  // Before the range delete: gone with it; after it: kept.
  put("old1101", "before");
  batch.DeleteRange(Family::kRows, "old1100", "old1200");
  for (auto it = want.begin(); it != want.end();) {
    it = it->first >= "old1100" && it->first < "old1200" ? want.erase(it) : std::next(it);
  }
  put("old1150", "after");
  put("old1151", "after");
  del("old1151");
  // 20 values of 512 KiB: more bytes than one statement carries.
  for (int i = 0; i < 20; ++i) put("big" + std::to_string(i), std::string(512 << 10, 'a' + i));
  ASSERT_TRUE(store_->Write(batch).ok());

  auto got = All(*store_, Family::kRows);
  ASSERT_EQ(got.size(), want.size());
  size_t i = 0;
  for (const auto& [k, v] : want) {
    EXPECT_EQ(got[i].first, k);
    EXPECT_EQ(got[i].second, v) << k.substr(0, 12);
    ++i;
  }
  // Point reads agree with the scan.
  EXPECT_EQ(store_->Get(Family::kRows, long_head + "1039")->value_or(""), std::string(39, 'x'));
  EXPECT_FALSE(store_->Get(Family::kRows, long_head + "1007")->has_value());
  EXPECT_EQ(store_->Get(Family::kRows, "old1150")->value_or(""), "after");
}

// A scan given a limit hint returns the same entries as one without: the hinted ones, and past
// them (a caller that reads on) the rest in order, nothing repeated or skipped.
TEST_P(StoreBatchTest, AHintedExpiryScanReadsLikeAPlainOne) {
  WriteBatch batch(*store_);
  std::vector<std::string> keys;
  for (int i = 0; i < 900; ++i) {
    std::string item = "item" + std::to_string(10000 + (i * 7) % 900);
    batch.PutExpiry(1000 + i / 3, item);
    keys.push_back(ExpiryKey(1000 + i / 3, item));
  }
  ASSERT_TRUE(store_->Write(batch).ok());
  std::sort(keys.begin(), keys.end());
  for (size_t hint : {1u, 10u, 256u, 899u, 900u, 2000u}) {
    std::vector<std::string> got;
    for (auto it = store_->ScanExpiry(INT64_MAX - 1, "", hint); it->Valid(); it->Next()) {
      got.emplace_back(it->key());
    }
    EXPECT_TRUE(got == keys) << "hint " << hint << ": " << got.size();
    // Resumed after an entry, reading only the hint's worth.
    got.clear();
    auto it = store_->ScanExpiry(INT64_MAX - 1, keys[99], hint);
    for (; it->Valid() && got.size() < hint; it->Next()) got.emplace_back(it->key());
    ASSERT_TRUE(it->status().ok());
    size_t n = std::min<size_t>(hint, keys.size() - 100);
    EXPECT_TRUE(got == std::vector<std::string>(keys.begin() + 100, keys.begin() + 100 + n))
        << "hint " << hint;
  }
  // Bounded by due time: the upper bound still holds with a hint.
  size_t due = 0;
  for (auto it = store_->ScanExpiry(1009, "", 5); it->Valid(); it->Next()) ++due;
  EXPECT_EQ(due, 30u);
}

}  // namespace
}  // namespace ttlstore::storage
