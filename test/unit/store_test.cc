#include "storage/store.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <vector>

#include "storage/item_codec.h"
#include "storage/key_codec.h"

namespace ttlstore::storage {
namespace {

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("ttlstore_store_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    Reopen();
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }
  void Reopen() {
    store_.reset();
    StoreOptions options;
    options.path = dir_.string();
    auto s = Store::Open(options);
    ASSERT_TRUE(s.ok()) << s.error().message();
    store_ = std::move(*s);
  }

  std::filesystem::path dir_;
  std::unique_ptr<Store> store_;
};

model::TableDescriptor Table(uint32_t id, const char* name) {
  model::TableDescriptor t;
  t.id = id;
  t.name = name;
  t.key.hash = {"pk", model::ValueType::kS};
  return t;
}

TEST_F(StoreTest, ItemsAndStatsCommitTogetherAndSurviveReopen) {
  std::string key = ItemKey(1, model::AttributeValue::String("a"), nullptr);
  WriteBatch batch(*store_);
  batch.PutItem(key, "value");
  batch.AddStats(1, 1, 100);
  ASSERT_TRUE(store_->Write(batch).ok());
  WriteBatch second(*store_);
  second.AddStats(1, 2, -30);
  ASSERT_TRUE(store_->Write(second).ok());
  Reopen();
  auto got = store_->GetItem(key);
  ASSERT_TRUE(got.ok());
  ASSERT_TRUE(got->has_value());
  EXPECT_EQ(**got, "value");
  auto stats = store_->GetStats(1);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->item_count, 3);
  EXPECT_EQ(stats->size_bytes, 70);
}

// The items family filters files by partition prefix for reads inside one partition. A read
// of a wider range, above all one resuming after a key (a Scan page), must still see every
// file: here each partition's items are spread over several files, each file holding only
// some partitions.
TEST_F(StoreTest, GetItemsAnswersEachKeyInItsPlaceFromMemtableAndFiles) {
  // Keys out of order, repeated, missing, and split between an SST file and the memtable.
  auto key = [](const char* pk) { return ItemKey(1, model::AttributeValue::String(pk), nullptr); };
  WriteBatch flushed(*store_);
  flushed.PutItem(key("b"), "in a file");
  flushed.PutItem(key("gone"), "deleted later");
  ASSERT_TRUE(store_->Write(flushed).ok());
  Reopen();  // a clean close flushes: the first batch now lives in a table file
  WriteBatch recent(*store_);
  recent.PutItem(key("a"), "in the memtable");
  recent.DeleteItem(key("gone"));
  ASSERT_TRUE(store_->Write(recent).ok());

  std::vector<std::string> keys = {key("b"), key("missing"), key("a"), key("gone"), key("b")};
  auto got = store_->GetItems(keys);
  ASSERT_TRUE(got.ok()) << got.error().message();
  ASSERT_EQ(got->size(), keys.size());
  EXPECT_EQ((*got)[0], std::optional<std::string>("in a file"));
  EXPECT_EQ((*got)[1], std::nullopt);
  EXPECT_EQ((*got)[2], std::optional<std::string>("in the memtable"));
  EXPECT_EQ((*got)[3], std::nullopt);
  EXPECT_EQ((*got)[4], std::optional<std::string>("in a file"));
  for (size_t i = 0; i < keys.size(); ++i) {
    auto one = store_->GetItem(keys[i]);
    ASSERT_TRUE(one.ok());
    EXPECT_EQ(*one, (*got)[i]) << i;
  }
  auto none = store_->GetItems({});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST_F(StoreTest, PrefixFiltersSkipNothingAReadNeeds) {
  auto key = [](int p, int s) {
    auto sk = model::AttributeValue::Num(std::to_string(s));
    return ItemKey(1, model::AttributeValue::String("p" + std::to_string(p)), &sk);
  };
  std::set<std::string> all;
  for (int round = 0; round < 4; ++round) {
    WriteBatch batch(*store_);
    for (int p = round; p < 40; p += 4) {  // each round (file) holds a quarter of the partitions
      for (int s = 0; s < 10; ++s) {
        batch.PutItem(key(p, s), "v");
        all.insert(key(p, s));
      }
    }
    for (int s = 10; s < 12; ++s) {  // and a slice of partition 0 in every file
      batch.PutItem(key(0, s + round * 2), "v");
      all.insert(key(0, s + round * 2));
    }
    ASSERT_TRUE(store_->Write(batch).ok());
    Reopen();  // flushes the memtable: one more file
  }
  auto read = [&](std::string lower, std::string upper, bool reverse, const std::string* after) {
    std::vector<std::string> keys;
    for (auto it = store_->ScanItems(std::move(lower), std::move(upper), reverse, after);
         it->Valid(); it->Next()) {
      keys.emplace_back(it->key());
    }
    return keys;
  };
  std::vector<std::string> sorted(all.begin(), all.end());
  std::string table = TablePrefix(1), end = PrefixSuccessor(table);
  EXPECT_EQ(read(table, end, false, nullptr), sorted);
  // Resuming after every key, forward and backward, yields exactly the rest.
  for (size_t i = 0; i < sorted.size(); i += 7) {
    auto rest = read(table, end, false, &sorted[i]);
    EXPECT_EQ(rest, std::vector<std::string>(sorted.begin() + i + 1, sorted.end())) << i;
    auto before = read(table, end, true, &sorted[i]);
    EXPECT_EQ(before.size(), i) << i;
  }
  // One partition, spread over all four files: all of it, in both directions, and no other.
  std::string p0 = PartitionPrefix(1, model::AttributeValue::String("p0"));
  auto forward = read(p0, PrefixSuccessor(p0), false, nullptr);
  EXPECT_EQ(forward.size(), 18u);
  auto backward = read(p0, PrefixSuccessor(p0), true, nullptr);
  EXPECT_EQ(std::vector<std::string>(backward.rbegin(), backward.rend()), forward);
  EXPECT_EQ(read(p0, PrefixSuccessor(p0), false, &forward[8]).size(), 9u);
  EXPECT_EQ(read(p0, PrefixSuccessor(p0), true, &forward[8]).size(), 8u);
  std::string p5 = PartitionPrefix(1, model::AttributeValue::String("p5"));
  EXPECT_EQ(read(p5, PrefixSuccessor(p5), false, nullptr).size(), 10u);
  std::string none = PartitionPrefix(1, model::AttributeValue::String("p99"));
  EXPECT_TRUE(read(none, PrefixSuccessor(none), false, nullptr).empty());
}

TEST_F(StoreTest, DropTableRemovesOnlyThatTablesItems) {
  model::TableDescriptor a = Table(1, "a"), b = Table(2, "b");
  WriteBatch batch(*store_);
  batch.PutTable(a);
  batch.PutTable(b);
  std::string ka = ItemKey(1, model::AttributeValue::String("x"), nullptr);
  std::string kb = ItemKey(2, model::AttributeValue::String("x"), nullptr);
  batch.PutItem(ka, "1");
  batch.PutItem(kb, "2");
  batch.AddStats(1, 1, 1);
  ASSERT_TRUE(store_->Write(batch).ok());

  WriteBatch drop(*store_);
  drop.DropTable(a);
  ASSERT_TRUE(store_->Write(drop).ok());
  EXPECT_FALSE(store_->GetItem(ka)->has_value());
  EXPECT_TRUE(store_->GetItem(kb)->has_value());
  EXPECT_EQ(store_->GetStats(1)->item_count, 0);
  auto tables = store_->LoadTables();
  ASSERT_TRUE(tables.ok());
  ASSERT_EQ(tables->size(), 1u);
  EXPECT_EQ((*tables)[0].name, "b");
}

TEST_F(StoreTest, TableIdsAreNeverReused) {
  auto first = store_->AllocateTableId();
  auto second = store_->AllocateTableId();
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_NE(*first, *second);
  Reopen();
  auto third = store_->AllocateTableId();
  ASSERT_TRUE(third.ok());
  EXPECT_GT(*third, *second);
}

TEST_F(StoreTest, CatalogKeepsEveryDescriptorField) {
  model::TableDescriptor t = Table(9, "full");
  t.uuid = "u-1";
  t.key.range = model::KeyElement{"sk", model::ValueType::kN};
  t.attribute_definitions = {{"pk", model::ValueType::kS}, {"sk", model::ValueType::kN}};
  t.billing_mode = model::BillingMode::kPayPerRequest;
  t.read_capacity = 5;
  t.write_capacity = 6;
  t.creation_time_ms = 1700000000123;
  t.deletion_protection = true;
  t.tags = {{"k", "v"}, {"empty", ""}};
  model::SecondaryIndex gsi;
  gsi.name = "g";
  gsi.global = true;
  gsi.key.hash = {"gk", model::ValueType::kB};
  gsi.projection = model::ProjectionType::kInclude;
  gsi.non_key_attributes = {"x", "y"};
  gsi.read_capacity = 3;
  t.indexes = {gsi};
  WriteBatch batch(*store_);
  batch.PutTable(t);
  ASSERT_TRUE(store_->Write(batch).ok());
  Reopen();
  auto tables = store_->LoadTables();
  ASSERT_TRUE(tables.ok());
  ASSERT_EQ(tables->size(), 1u);
  const auto& got = (*tables)[0];
  EXPECT_EQ(got.id, 9u);
  EXPECT_EQ(got.uuid, "u-1");
  ASSERT_TRUE(got.key.range.has_value());
  EXPECT_EQ(got.key.range->name, "sk");
  EXPECT_EQ(got.key.range->type, model::ValueType::kN);
  EXPECT_EQ(got.attribute_definitions.size(), 2u);
  EXPECT_EQ(got.billing_mode, model::BillingMode::kPayPerRequest);
  EXPECT_EQ(got.read_capacity, 5);
  EXPECT_EQ(got.write_capacity, 6);
  EXPECT_EQ(got.creation_time_ms, 1700000000123);
  EXPECT_TRUE(got.deletion_protection);
  ASSERT_EQ(got.tags.size(), 2u);
  EXPECT_EQ(got.tags[1].key, "empty");
  ASSERT_EQ(got.indexes.size(), 1u);
  EXPECT_EQ(got.indexes[0].name, "g");
  EXPECT_TRUE(got.indexes[0].global);
  EXPECT_EQ(got.indexes[0].key.hash.type, model::ValueType::kB);
  EXPECT_FALSE(got.indexes[0].key.range.has_value());
  EXPECT_EQ(got.indexes[0].projection, model::ProjectionType::kInclude);
  EXPECT_EQ(got.indexes[0].non_key_attributes, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(got.indexes[0].read_capacity, 3);
}

}  // namespace
}  // namespace ttlstore::storage
