// Index upkeep on writes (index/index_writer.h through ops::ItemOps) and the backfill of a new
// index (index/index_builder.h).
#include "index/index_writer.h"

#include "index/index_builder.h"
#include "index/index_key.h"
#include "ops_test_util.h"
#include "storage/item_codec.h"
#include "storage/key_codec.h"

namespace ttlstore::ops {
namespace {

class IndexWriterTest : public OpsTest {
 protected:
  void SetUp() override {
    OpsTest::SetUp();
    model::SecondaryIndex g;
    g.name = "by_g";
    g.id = 1;
    g.global = true;
    g.key.hash = {"g", model::ValueType::kS};
    g.projection = model::ProjectionType::kKeysOnly;
    table_.indexes.push_back(g);
    table_.next_index_id = 2;
  }

  // Every entry of index `id`, decoded.
  std::vector<model::Item> Entries(uint32_t id) {
    std::string prefix = index::IndexPrefix(table_.id, id);
    auto it = store_->ScanFamily(storage::Family::kIndexes, prefix,
                                 storage::PrefixSuccessor(prefix), false, nullptr);
    std::vector<model::Item> out;
    for (; it->Valid(); it->Next()) out.push_back(*storage::DecodeItem(it->value()));
    return out;
  }
  int64_t Count(uint32_t id) { return store_->GetIndexStats(table_.id, id)->item_count; }
};

TEST_F(IndexWriterTest, PutUpdateDeleteKeepEntriesAndStats) {
  model::Item a = Row("a", "1");
  a["g"] = S("G1");
  a["other"] = S("not projected");
  Put(a);
  Put(Row("b", "1"));  // no g: not in the index
  ASSERT_EQ(Entries(1).size(), 1u);
  EXPECT_EQ(Entries(1)[0], (model::Item{{"pk", S("a")}, {"sk", N("1")}, {"g", S("G1")}}));
  EXPECT_EQ(Count(1), 1);

  a["g"] = S("G2");  // moves the entry
  Put(a);
  ASSERT_EQ(Entries(1).size(), 1u);
  EXPECT_EQ(Entries(1)[0].at("g"), S("G2"));
  EXPECT_EQ(Count(1), 1);

  ASSERT_TRUE(ops_->Delete(table_, {{"pk", S("a")}, {"sk", N("1")}}, nullptr).ok());
  EXPECT_TRUE(Entries(1).empty());
  EXPECT_EQ(Count(1), 0);
  EXPECT_EQ(store_->GetIndexStats(table_.id, 1)->size_bytes, 0);
}

TEST_F(IndexWriterTest, ValidateRejectsTypeClashAndEmptyValue) {
  model::Item bad = Row("a", "1");
  bad["g"] = N("1");
  Status s = ValidateItemKey(table_, bad);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message(),
            "One or more parameter values were invalid: Type mismatch for Index Key g Expected: S "
            "Actual: N IndexName: by_g");
  bad["g"] = S("");
  s = ValidateItemKey(table_, bad);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message(),
            "One or more parameter values are not valid. A value specified for a secondary index "
            "key is not supported. The AttributeValue for a key attribute cannot contain an empty "
            "string value. IndexName: by_g, IndexKey: g");
}

TEST_F(IndexWriterTest, EmptyValueAndWrongTypeAreCheckedApartAndWordedPerWrite) {
  model::Item empty = Row("a", "1");
  empty["g"] = S("");
  Status s = index::CheckIndexKeysNotEmpty(table_, empty, index::IndexKeyWrite::kUpdate);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message(),
            "One or more parameter values are not valid. The update expression attempted to "
            "update a secondary index key to a value that is not supported. The AttributeValue "
            "for a key attribute cannot contain an empty string value.");
  EXPECT_TRUE(index::CheckIndexKeyTypes(table_, empty).ok());
  model::Item typed = Row("a", "1");
  typed["g"] = N("1");
  EXPECT_TRUE(index::CheckIndexKeysNotEmpty(table_, typed, index::IndexKeyWrite::kUpdate).ok());
  EXPECT_FALSE(index::CheckIndexKeyTypes(table_, typed).ok());
  EXPECT_FALSE(index::ValidateIndexKeys(table_, typed, index::IndexKeyWrite::kUpdate).ok());
}

// The catalog seen by the builder: one table, replaced in place.
class OneTableCatalog : public index::IndexCatalog {
 public:
  explicit OneTableCatalog(model::TableDescriptor t)
      : table_(std::make_shared<model::TableDescriptor>(std::move(t))) {}
  std::shared_ptr<const model::TableDescriptor> FindById(uint32_t) const override {
    return table_;
  }
  void WaitForOlderVersions(uint32_t) const override {}
  Status SetIndexActive(uint32_t, uint32_t index_id) override {
    auto copy = std::make_shared<model::TableDescriptor>(*table_);
    for (auto& ix : copy->indexes) {
      if (ix.id == index_id) ix.status = model::IndexStatus::kActive;
    }
    table_ = copy;
    return Status::Ok();
  }
  Status ForgetDroppedIndex(uint32_t, uint32_t) override { return Status::Ok(); }
  std::shared_ptr<model::TableDescriptor> table_;
};

TEST_F(IndexWriterTest, BackfillIndexesExistingItemsOnceAndWritesDuringCreatingStayExact) {
  model::TableDescriptor before = table_;
  before.indexes.clear();  // items written before the index existed
  for (int i = 0; i < 1200; ++i) {
    model::Item item = Row("p" + std::to_string(i), "1");
    if (i % 3 != 0) item["h"] = S("H" + std::to_string(i % 7));
    ASSERT_TRUE(ops_->Put(before, item, nullptr).ok());
  }
  model::SecondaryIndex h;
  h.name = "by_h";
  h.id = 2;
  h.global = true;
  h.status = model::IndexStatus::kCreating;
  h.key.hash = {"h", model::ValueType::kS};
  model::TableDescriptor creating = before;
  creating.indexes.push_back(h);
  // A write while CREATING, before the backfill reaches the item: replaces an entry that does
  // not exist yet, and must not count it twice.
  model::Item changed = Row("p1", "1");
  changed["h"] = S("changed");
  ASSERT_TRUE(ops_->Put(creating, changed, nullptr).ok());
  // A delete while CREATING of an item never indexed.
  ASSERT_TRUE(ops_->Delete(creating, {{"pk", S("p2")}, {"sk", N("1")}}, nullptr).ok());

  OneTableCatalog catalog(creating);
  index::IndexBuilder builder(*store_, catalog);
  ASSERT_TRUE(builder.BuildNow(table_.id, 2).ok());
  EXPECT_EQ(catalog.table_->indexes.back().status, model::IndexStatus::kActive);
  // 800 items had h; p2 was deleted.
  EXPECT_EQ(Entries(2).size(), 799u);
  EXPECT_EQ(Count(2), 799);
  int changed_seen = 0;
  for (const auto& e : Entries(2)) changed_seen += e.at("h") == S("changed");
  EXPECT_EQ(changed_seen, 1);
  // Running it again adds nothing.
  ASSERT_TRUE(builder.Backfill(table_.id, 2).ok());
  EXPECT_EQ(Count(2), 799);

  ASSERT_TRUE(builder.DropNow(table_.id, 2).ok());
  EXPECT_TRUE(Entries(2).empty());
  EXPECT_EQ(Count(2), 0);
}

}  // namespace
}  // namespace ttlstore::ops
