// ItemOps: which updates of a missing item create it, and that one which does not leaves no
// trace (no item, no count, no stream record).
#include "ops/item_ops.h"

#include "expr/update.h"
#include "ops_test_util.h"

namespace ttlstore::ops {
namespace {

class ItemOpsTest : public OpsTest {
 protected:
  expr::Update Upd(const std::string& text, model::Item values = {}) {
    expr::Placeholders ph;
    for (auto& [name, v] : values) ph.values.emplace(name, v);
    auto u = expr::Update::Parse(text, ph);
    EXPECT_TRUE(u.ok()) << u.error().message();
    return std::move(*u);
  }
  model::Item Key(const std::string& pk) { return {{"pk", S(pk)}, {"sk", N("1")}}; }
};

TEST_F(ItemOpsTest, RemovalsFromAMissingItemCreateNothing) {
  ReadOutcome missing;
  model::Item key = Key("a");
  expr::Update remove = Upd("REMOVE x, y");
  EXPECT_TRUE(ItemOps::CreatesNothing(key, missing, &remove, key));
  // No update at all (AttributeUpdates {} or neither parameter) creates the key-only item.
  EXPECT_FALSE(ItemOps::CreatesNothing(key, missing, nullptr, key));
  // An existing item is written (the service's no-op on an existing item is still a write).
  ReadOutcome present;
  present.item = key;
  EXPECT_FALSE(ItemOps::CreatesNothing(key, present, &remove, key));
  // A SET leaves more than the key.
  model::Item set = key;
  set.emplace("x", S("v"));
  EXPECT_FALSE(ItemOps::CreatesNothing(key, missing, &remove, set));
}

TEST_F(ItemOpsTest, UpdateThatOnlyRemovesFromAMissingItemWritesNothing) {
  expr::Update remove = Upd("REMOVE x DELETE s :s",
                            {{":s", model::AttributeValue::Set(model::ValueType::kSS, {"a"})}});
  auto out = ops_->Update(table_, Key("a"), &remove, nullptr);
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_FALSE(out->old_item.has_value());
  EXPECT_FALSE(out->new_item.has_value());
  EXPECT_FALSE(ops_->Get(table_, Key("a"))->item.has_value());
  EXPECT_EQ(store_->GetStats(table_.id)->item_count, 0);

  // The same update without actions creates the key-only item.
  auto created = ops_->Update(table_, Key("b"), nullptr, nullptr);
  ASSERT_TRUE(created.ok());
  ASSERT_TRUE(created->new_item.has_value());
  EXPECT_EQ(*created->new_item, Key("b"));
  EXPECT_EQ(store_->GetStats(table_.id)->item_count, 1);
}

}  // namespace
}  // namespace ttlstore::ops
