#include "ops/multi_item_ops.h"

#include "expr/condition.h"
#include "ops_test_util.h"

namespace ttlstore::ops {
namespace {

class MultiItemOpsTest : public OpsTest {
 protected:
  TablePtr Table() { return std::make_shared<const model::TableDescriptor>(table_); }
  expr::Condition Cond(const std::string& text) {
    expr::Placeholders ph;
    auto c = expr::Condition::Parse(text, "ConditionExpression", ph);
    EXPECT_TRUE(c.ok()) << c.error().message();
    return std::move(*c);
  }
};

TEST_F(MultiItemOpsTest, BatchWriteKeepsTheItemCountExact) {
  Put(Row("a", "1"));
  std::vector<BatchWrite> writes = {{Table(), true, Row("a", "1")},
                                    {Table(), true, Row("b", "1")},
                                    {Table(), false, {{"pk", S("c")}, {"sk", N("1")}}}};
  ASSERT_TRUE(WriteBatchItems(*ops_, writes).ok());
  EXPECT_EQ(store_->GetStats(table_.id)->item_count, 2);
}

TEST_F(MultiItemOpsTest, ACancelledTransactionLeavesNoTrace) {
  Put(Row("a", "1"));
  std::vector<TransactAction> actions(3);
  actions[0] = {TransactAction::Kind::kPut, Table(), Row("new", "1")};
  actions[1] = {TransactAction::Kind::kDelete, Table(), {{"pk", S("a")}, {"sk", N("1")}}};
  actions[2] = {TransactAction::Kind::kConditionCheck, Table(), {{"pk", S("a")}, {"sk", N("1")}}};
  actions[2].condition = Cond("attribute_not_exists(pk)");
  actions[2].return_old_on_failure = true;
  auto outcome = TransactWrite(*ops_, actions);
  ASSERT_TRUE(outcome.ok());
  ASSERT_TRUE(outcome->cancelled);
  ASSERT_EQ(outcome->reasons.size(), 3u);
  EXPECT_EQ(outcome->reasons[0].code, "None");
  EXPECT_EQ(outcome->reasons[2].code, "ConditionalCheckFailed");
  ASSERT_TRUE(outcome->reasons[2].item.has_value());
  EXPECT_FALSE(ops_->Get(table_, {{"pk", S("new")}, {"sk", N("1")}})->item.has_value());
  EXPECT_TRUE(ops_->Get(table_, {{"pk", S("a")}, {"sk", N("1")}})->item.has_value());
  EXPECT_EQ(store_->GetStats(table_.id)->item_count, 1);
}

TEST_F(MultiItemOpsTest, ASuccessfulTransactionAppliesEveryAction) {
  Put(Row("a", "1"));
  std::vector<TransactAction> actions(2);
  actions[0] = {TransactAction::Kind::kPut, Table(), Row("b", "1")};
  actions[1] = {TransactAction::Kind::kDelete, Table(), {{"pk", S("a")}, {"sk", N("1")}}};
  actions[1].condition = Cond("attribute_exists(pk)");
  auto outcome = TransactWrite(*ops_, actions);
  ASSERT_TRUE(outcome.ok());
  EXPECT_FALSE(outcome->cancelled);
  EXPECT_TRUE(ops_->Get(table_, {{"pk", S("b")}, {"sk", N("1")}})->item.has_value());
  EXPECT_FALSE(ops_->Get(table_, {{"pk", S("a")}, {"sk", N("1")}})->item.has_value());
}

TEST_F(MultiItemOpsTest, AnUpdateThatOnlyRemovesFromAMissingItemWritesNothing) {
  expr::Placeholders ph;
  auto remove = expr::Update::Parse("REMOVE x", ph);
  ASSERT_TRUE(remove.ok());
  std::vector<TransactAction> actions(2);
  actions[0] = {TransactAction::Kind::kUpdate, Table(), {{"pk", S("ghost")}, {"sk", N("1")}}};
  actions[0].update = std::move(*remove);
  actions[1] = {TransactAction::Kind::kPut, Table(), Row("real", "1")};
  auto outcome = TransactWrite(*ops_, actions);
  ASSERT_TRUE(outcome.ok());
  EXPECT_FALSE(outcome->cancelled);
  EXPECT_FALSE(ops_->Get(table_, {{"pk", S("ghost")}, {"sk", N("1")}})->item.has_value());
  EXPECT_EQ(store_->GetStats(table_.id)->item_count, 1);
}

TEST_F(MultiItemOpsTest, AnEmptyIndexKeyFromAnUpdateFailsTheWholeTransaction) {
  model::SecondaryIndex g;
  g.name = "by_g";
  g.id = 1;
  g.global = true;
  g.key.hash = {"g", model::ValueType::kS};
  g.projection = model::ProjectionType::kKeysOnly;
  table_.indexes.push_back(g);
  expr::Placeholders ph;
  ph.values.emplace(":e", S(""));
  auto set = expr::Update::Parse("SET g = :e", ph);
  ASSERT_TRUE(set.ok());
  std::vector<TransactAction> actions(1);
  actions[0] = {TransactAction::Kind::kUpdate, Table(), {{"pk", S("a")}, {"sk", N("1")}}};
  actions[0].update = std::move(*set);
  auto outcome = TransactWrite(*ops_, actions);
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.error().code(), ErrorCode::kValidation);
  EXPECT_EQ(store_->GetStats(table_.id)->item_count, 0);
}

TEST(IdempotencyCache, ReplaysForTenMinutesAndRejectsADifferentRequest) {
  FakeClock clock(1'000'000);
  IdempotencyCache cache(clock);
  EXPECT_FALSE(cache.Begin("t", "req")->has_value());
  cache.Complete("t", "resp");
  EXPECT_EQ(**cache.Begin("t", "req"), "resp");
  auto other = cache.Begin("t", "other");
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error().code(), ErrorCode::kIdempotentParameterMismatch);
  clock.Advance(IdempotencyCache::kTtlMs);
  EXPECT_FALSE(cache.Begin("t", "req")->has_value());  // expired: reserved afresh
}

TEST(IdempotencyCache, AReservedTokenIsInProgressUntilCompletedOrAbandoned) {
  FakeClock clock(0);
  IdempotencyCache cache(clock);
  {
    TokenGuard guard(cache, "t");
    ASSERT_FALSE(cache.Begin("t", "req")->has_value());
    auto again = cache.Begin("t", "req");
    ASSERT_FALSE(again.ok());
    EXPECT_EQ(again.error().code(), ErrorCode::kTransactionInProgress);
  }  // abandoned: the transaction failed
  EXPECT_FALSE(cache.Begin("t", "req")->has_value());
}

}  // namespace
}  // namespace ttlstore::ops
