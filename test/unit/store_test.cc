#include "storage/store.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <thread>
#include <set>
#include <vector>

#include "common/coding.h"
#include "storage/expiry_key.h"
#include "storage/item_codec.h"
#include "storage/key_codec.h"
#include "storage/pg_connection.h"
#include "store_fixture.h"

namespace ttlstore::storage {
namespace {

// The storage interface's conformance suite (test/unit/store_fixture.h): every test runs on
// every backend.
class StoreTest : public StoreFixture {};

INSTANTIATE_TEST_SUITE_P(Backends, StoreTest, ::testing::Values("rocksdb", "postgresql"),
                         [](const auto& info) { return info.param; });

model::TableDescriptor Table(uint32_t id, const char* name) {
  model::TableDescriptor t;
  t.id = id;
  t.name = name;
  t.key.hash = {"pk", model::ValueType::kS};
  return t;
}

TEST_P(StoreTest, ItemsAndStatsCommitTogetherAndSurviveReopen) {
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
TEST_P(StoreTest, GetItemsAnswersEachKeyInItsPlaceFromMemtableAndFiles) {
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

TEST_P(StoreTest, PrefixFiltersSkipNothingAReadNeeds) {
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

TEST_P(StoreTest, DropTableRemovesOnlyThatTablesItems) {
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

TEST_P(StoreTest, TableIdsAreNeverReused) {
  auto first = store_->AllocateTableId();
  auto second = store_->AllocateTableId();
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_NE(*first, *second);
  Reopen();
  auto third = store_->AllocateTableId();
  ASSERT_TRUE(third.ok());
  EXPECT_GT(*third, *second);
}

TEST_P(StoreTest, CatalogKeepsEveryDescriptorField) {
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


// Scans of every length (one statement, many pages), forward and backward, resuming after a key
// that exists or not, bounded on both sides.
TEST_P(StoreTest, ScansReturnTheRangeInOrderFromAnyStart) {
  auto key = [](int i) {
    std::string k = "k";
    PutFixed32BE(&k, static_cast<uint32_t>(i * 2));
    return k;
  };
  const int n = 1500;
  WriteBatch batch(*store_);
  for (int i = 0; i < n; ++i) batch.Put(Family::kStreams, key(i), "v" + std::to_string(i));
  batch.Put(Family::kStreams, "j", "before");
  batch.Put(Family::kStreams, "l", "after");
  ASSERT_TRUE(store_->Write(batch).ok());
  auto read = [&](const std::string& lower, const std::string& upper, bool reverse,
                  const std::string* after) {
    std::vector<std::string> got;
    auto it = store_->ScanFamily(Family::kStreams, lower, upper, reverse, after);
    for (; it->Valid(); it->Next()) got.emplace_back(it->key());
    EXPECT_TRUE(it->status().ok());
    return got;
  };
  auto all = read("k", "l", false, nullptr);
  ASSERT_EQ(all.size(), static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) ASSERT_EQ(all[i], key(i)) << i;
  auto back = read("k", "l", true, nullptr);
  ASSERT_EQ(back.size(), static_cast<size_t>(n));
  EXPECT_EQ(back.front(), key(n - 1));
  EXPECT_EQ(back.back(), key(0));
  for (int start : {0, 1, 100, 777, 1499}) {
    std::string at = key(start);
    auto fwd = read("k", "l", false, &at);
    ASSERT_EQ(fwd.size(), static_cast<size_t>(n - start - 1)) << start;
    if (!fwd.empty()) {
      EXPECT_EQ(fwd.front(), key(start + 1));
    }
    auto rev = read("k", "l", true, &at);
    ASSERT_EQ(rev.size(), static_cast<size_t>(start)) << start;
    if (!rev.empty()) {
      EXPECT_EQ(rev.front(), key(start - 1));
    }
    std::string between = at + "x";  // no such key: resumes at the next one
    auto fwd2 = read("k", "l", false, &between);
    ASSERT_EQ(fwd2.size(), static_cast<size_t>(n - start - 1)) << start;
  }
  auto part = read(key(10), key(20), false, nullptr);
  EXPECT_EQ(part.size(), 10u);
  EXPECT_TRUE(read("l", "k", false, nullptr).empty());
  EXPECT_TRUE(read("k", "k", false, nullptr).empty());
}

// A scan reads the store as it was when the scan began, even across many pages while writers
// add and remove keys in the range.
TEST_P(StoreTest, AScanSeesOneViewWhileOthersWrite) {
  const int n = 2000;
  auto key = [](int i) {
    std::string k = "s";
    PutFixed32BE(&k, static_cast<uint32_t>(i));
    return k;
  };
  WriteBatch batch(*store_);
  for (int i = 0; i < n; i += 2) batch.Put(Family::kPitr, key(i), "old");
  ASSERT_TRUE(store_->Write(batch).ok());
  auto it = store_->ScanFamily(Family::kPitr, "s", "t", false, nullptr);
  ASSERT_TRUE(it->Valid());
  WriteBatch change(*store_);
  for (int i = 0; i < n; ++i) {
    if (i % 2) {
      change.Put(Family::kPitr, key(i), "new");
    } else {
      change.Delete(Family::kPitr, key(i));
    }
  }
  ASSERT_TRUE(store_->Write(change).ok());
  int seen = 0;
  for (; it->Valid(); it->Next()) {
    EXPECT_EQ(it->value(), "old");
    ++seen;
  }
  EXPECT_TRUE(it->status().ok());
  EXPECT_EQ(seen, n / 2);
  int after = 0;
  for (auto again = store_->ScanFamily(Family::kPitr, "s", "t", false, nullptr); again->Valid();
       again->Next()) {
    EXPECT_EQ(again->value(), "new");
    ++after;
  }
  EXPECT_EQ(after, n / 2);
}

// Writes in one batch take effect in the order they were added (a put then a delete of the same
// key leaves nothing); a range delete removes exactly [begin, end).
TEST_P(StoreTest, BatchWritesApplyInOrderAndRangeDeletesAreHalfOpen) {
  WriteBatch batch(*store_);
  batch.Put(Family::kRows, "a", "1");
  batch.Delete(Family::kRows, "a");
  batch.Put(Family::kRows, "b", "1");
  batch.Put(Family::kRows, "b", "2");
  for (const char* k : {"c", "d", "e", "f"}) batch.Put(Family::kRows, k, k);
  ASSERT_TRUE(store_->Write(batch).ok());
  WriteBatch range(*store_);
  range.DeleteRange(Family::kRows, "d", "f");
  ASSERT_TRUE(store_->Write(range).ok());
  EXPECT_FALSE(store_->Get(Family::kRows, "a")->has_value());
  EXPECT_EQ(store_->Get(Family::kRows, "b")->value_or(""), "2");
  EXPECT_TRUE(store_->Get(Family::kRows, "c")->has_value());
  EXPECT_FALSE(store_->Get(Family::kRows, "d")->has_value());
  EXPECT_FALSE(store_->Get(Family::kRows, "e")->has_value());
  EXPECT_TRUE(store_->Get(Family::kRows, "f")->has_value());
  // The families are separate key spaces.
  EXPECT_FALSE(store_->Get(Family::kPurge, "c")->has_value());
  // Keys and values are bytes: zeros and 0xff included.
  std::string odd("\0\xff\0", 3), value("\xff\0", 2);
  WriteBatch bytes(*store_);
  bytes.Put(Family::kSequences, odd, value);
  ASSERT_TRUE(store_->Write(bytes).ok());
  EXPECT_EQ(store_->Get(Family::kSequences, odd)->value_or(""), value);
}

// A big batch (the TTL sweeper's: hundreds of deletes and stats changes) keeps the order of
// its writes per key however a backend groups them: runs of deletes between puts, deletes of
// keys that are absent, stats additions and removals of one key in one batch.
TEST_P(StoreTest, ABigBatchKeepsTheOrderOfItsWritesPerKey) {
  WriteBatch setup(*store_);
  for (int i = 0; i < 600; ++i) setup.Put(Family::kRows, "k" + std::to_string(i), "old");
  ASSERT_TRUE(store_->Write(setup).ok());
  WriteBatch batch(*store_);
  for (int i = 0; i < 600; ++i) batch.Delete(Family::kRows, "k" + std::to_string(i));
  batch.Delete(Family::kRows, "absent");
  batch.Put(Family::kRows, "k7", "new");      // after its delete: present
  batch.Delete(Family::kRows, "k8");          // deleted twice: absent
  batch.Put(Family::kRows, "k9", "put");
  batch.Delete(Family::kRows, "k9");          // put then deleted: absent
  batch.Delete(Family::kPurge, "k10");        // another space's key of the same name
  batch.AddStats(9, 5, 50);
  batch.AddIndexStats(9, 1, 3, 30);
  batch.DeleteIndexStats(9, 1);               // the index's additions so far are gone
  batch.AddIndexStats(9, 1, 1, 10);
  batch.AddStats(9, -2, -20);
  ASSERT_TRUE(store_->Write(batch).ok());
  EXPECT_EQ(store_->Get(Family::kRows, "k7")->value_or(""), "new");
  for (const char* gone : {"k0", "k8", "k9", "k10", "k599"}) {
    EXPECT_FALSE(store_->Get(Family::kRows, gone)->has_value()) << gone;
  }
  size_t left = 0;
  for (auto it = store_->ScanFamily(Family::kRows, "k", "l", false, nullptr); it->Valid(); it->Next()) {
    ++left;
  }
  EXPECT_EQ(left, 1u);
  EXPECT_EQ(store_->GetStats(9)->item_count, 3);
  EXPECT_EQ(store_->GetStats(9)->size_bytes, 30);
  EXPECT_EQ(store_->GetIndexStats(9, 1)->item_count, 1);
  EXPECT_EQ(store_->GetIndexStats(9, 1)->size_bytes, 10);
}

// Stats added by many writers at once sum exactly; the expiry index and its committed-entry
// announcement work the same on every backend.
TEST_P(StoreTest, ConcurrentStatsAdditionsSumAndExpiryIsAnnounced) {
  std::vector<std::thread> writers;
  for (int t = 0; t < 4; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        WriteBatch batch(*store_);
        batch.AddStats(7, 1, t + 1);
        batch.AddIndexStats(7, 2, 1, 1);
        ASSERT_TRUE(store_->Write(batch).ok());
      }
    });
  }
  for (auto& w : writers) w.join();
  EXPECT_EQ(store_->GetStats(7)->item_count, 200);
  EXPECT_EQ(store_->GetStats(7)->size_bytes, 50 * (1 + 2 + 3 + 4));
  EXPECT_EQ(store_->GetIndexStats(7, 2)->item_count, 200);
  WriteBatch drop(*store_);
  drop.DeleteIndexStats(7, 2);
  ASSERT_TRUE(store_->Write(drop).ok());
  EXPECT_EQ(store_->GetIndexStats(7, 2)->item_count, 0);
  EXPECT_EQ(store_->GetStats(7)->item_count, 200);

  store_->TakeEarliestCommittedExpiry();
  WriteBatch expiry(*store_);
  expiry.PutExpiry(5000, "item-b");
  expiry.PutExpiry(4000, "item-a");
  ASSERT_TRUE(store_->Write(expiry).ok());
  EXPECT_EQ(store_->TakeEarliestCommittedExpiry(), 4000);
  EXPECT_EQ(store_->TakeEarliestCommittedExpiry(), INT64_MAX);
  EXPECT_TRUE(*store_->HasExpiry(4000, "item-a"));
  EXPECT_FALSE(*store_->HasExpiry(4000, "item-b"));
  std::vector<std::string> due;
  for (auto it = store_->ScanExpiry(4500); it->Valid(); it->Next()) due.emplace_back(it->key());
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0], ExpiryKey(4000, "item-a"));
}


// Keys as long as an item key can be (over 3 KB), many sharing their first kilobytes, read back
// by point reads and scanned in key order among the short ones.
TEST_P(StoreTest, LongKeysSharingLongPrefixesKeepTheirOrder) {
  std::string common(1500, 'x');
  std::vector<std::string> keys = {"k", common, common + "a", common + std::string(1700, 'b'),
                                   common + std::string(1700, 'b') + "c", common + "b",
                                   std::string(1024, 'x'), std::string(1023, 'x') + "y", "xz"};
  WriteBatch batch(*store_);
  for (const auto& k : keys) batch.Put(Family::kIndexes, k, std::to_string(k.size()));
  ASSERT_TRUE(store_->Write(batch).ok());
  std::vector<std::string> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  for (bool reverse : {false, true}) {
    std::vector<std::string> got;
    for (auto it = store_->ScanFamily(Family::kIndexes, "", "zz", reverse, nullptr); it->Valid();
         it->Next()) {
      got.emplace_back(it->key());
      EXPECT_EQ(it->value(), std::to_string(it->key().size()));
    }
    std::vector<std::string> want = sorted;
    if (reverse) std::reverse(want.begin(), want.end());
    EXPECT_EQ(got, want);
  }
  // Resuming after a long key, and a range between two long keys.
  std::vector<std::string> after;
  for (auto it = store_->ScanFamily(Family::kIndexes, "", "zz", false, &sorted[3]); it->Valid();
       it->Next()) {
    after.emplace_back(it->key());
  }
  EXPECT_EQ(after, std::vector<std::string>(sorted.begin() + 4, sorted.end()));
  WriteBatch range(*store_);
  range.DeleteRange(Family::kIndexes, common + "a", common + "bb");
  ASSERT_TRUE(store_->Write(range).ok());
  EXPECT_FALSE(store_->Get(Family::kIndexes, common + "a")->has_value());
  EXPECT_FALSE(store_->Get(Family::kIndexes, common + "b")->has_value());
  EXPECT_TRUE(store_->Get(Family::kIndexes, common + std::string(1700, 'b'))->has_value());
  EXPECT_TRUE(store_->Get(Family::kIndexes, common)->has_value());
  WriteBatch del(*store_);
  del.Delete(Family::kIndexes, common + std::string(1700, 'b') + "c");
  ASSERT_TRUE(store_->Write(del).ok());
  EXPECT_FALSE(store_->Get(Family::kIndexes, common + std::string(1700, 'b') + "c")->has_value());
}

// A group of keys sharing their first kilobytes larger than any page a backend reads at once,
// between short keys, scanned whole in both directions and resumed from inside the group.
TEST_P(StoreTest, AGroupOfLongKeysLargerThanAPageKeepsItsOrder) {
  std::string common(1030, 'm');
  std::vector<std::string> keys;
  for (int i = 0; i < 1500; ++i) {
    char tail[8];
    std::snprintf(tail, sizeof tail, "%05d", (i * 7919) % 1500);  // written out of order
    keys.push_back(common + tail);
  }
  for (int i = 0; i < 700; ++i) {
    keys.push_back("a" + std::to_string(1000 + i));
    keys.push_back("z" + std::to_string(1000 + i));
  }
  keys.push_back(std::string(1024, 'm'));  // the group's head itself: its smallest key
  for (size_t from = 0; from < keys.size(); from += 500) {
    WriteBatch batch(*store_);
    for (size_t i = from; i < std::min(keys.size(), from + 500); ++i) {
      batch.Put(Family::kIndexes, keys[i], "v");
    }
    ASSERT_TRUE(store_->Write(batch).ok());
  }
  std::sort(keys.begin(), keys.end());
  for (bool reverse : {false, true}) {
    std::vector<std::string> want = keys;
    if (reverse) std::reverse(want.begin(), want.end());
    std::vector<std::string> got;
    for (auto it = store_->ScanFamily(Family::kIndexes, "", "zz", reverse, nullptr);
         it->Valid(); it->Next()) {
      got.emplace_back(it->key());
    }
    ASSERT_TRUE(got == want) << (reverse ? "backward" : "forward") << ": " << got.size()
                             << " keys";
    // Resumed after a key inside the group.
    const std::string& after = want[1400];
    got.clear();
    for (auto it = store_->ScanFamily(Family::kIndexes, "", "zz", reverse, &after); it->Valid();
         it->Next()) {
      got.emplace_back(it->key());
    }
    EXPECT_TRUE(got == std::vector<std::string>(want.begin() + 1401, want.end()))
        << (reverse ? "backward" : "forward") << " from inside: " << got.size() << " keys";
  }
}

}  // namespace
}  // namespace ttlstore::storage
