// Resource-based policies (issue 19): how a resource policy's statements apply to a caller
// (principals, actions, resources, conditions), and how its verdict combines with the identity
// policies' (an explicit deny wins, otherwise either allows), over every combination.
#include "auth/resource_policy.h"

#include <gtest/gtest.h>

#include <string>

namespace ttlstore::auth {
namespace {

const std::string kTable = "arn:aws:dynamodb:us-east-1:000000000000:table/Music";
const Caller kAlice{"000000000000", "arn:aws:iam::000000000000:user/ALICE"};
const Caller kBob{"000000000000", "arn:aws:iam::000000000000:user/BOB"};

ResourceStatement Stmt(bool allow, std::vector<std::string> principals,
                       std::vector<std::string> actions = {"dynamodb:*"},
                       std::vector<std::string> resources = {"*"}) {
  ResourceStatement rs;
  rs.statement.allow = allow;
  rs.statement.actions = std::move(actions);
  rs.statement.resources = std::move(resources);
  for (auto& p : principals) {
    if (p == "*") {
      rs.any_principal = true;
    } else {
      rs.principals.push_back(std::move(p));
    }
  }
  return rs;
}

Verdict Eval(const std::vector<ResourceStatement>& st, const Caller& c,
             const std::string& action = "dynamodb:GetItem", const std::string& res = kTable) {
  return EvaluateResourcePolicy(st, c, action, res, std::set<std::string>{});
}

TEST(ResourcePolicy, EmptyPolicyAllowsNothing) {
  EXPECT_EQ(Eval({}, kAlice), Verdict::kImplicitDeny);
}

TEST(ResourcePolicy, AnyPrincipalAllowsEveryone) {
  std::vector<ResourceStatement> st{Stmt(true, {"*"})};
  EXPECT_EQ(Eval(st, kAlice), Verdict::kAllow);
  EXPECT_EQ(Eval(st, kBob), Verdict::kAllow);
}

TEST(ResourcePolicy, UserPrincipalAllowsOnlyThatKey) {
  std::vector<ResourceStatement> st{Stmt(true, {kAlice.user_arn})};
  EXPECT_EQ(Eval(st, kAlice), Verdict::kAllow);
  EXPECT_EQ(Eval(st, kBob), Verdict::kImplicitDeny);
}

TEST(ResourcePolicy, PrincipalListMatchesAnyMember) {
  std::vector<ResourceStatement> st{
      Stmt(true, {"arn:aws:iam::000000000000:user/X", kBob.user_arn})};
  EXPECT_EQ(Eval(st, kBob), Verdict::kAllow);
  EXPECT_EQ(Eval(st, kAlice), Verdict::kImplicitDeny);
}

TEST(ResourcePolicy, AccountPrincipalDelegatesAllowButDeniesEveryone) {
  for (std::string account : {"000000000000", "arn:aws:iam::000000000000:root"}) {
    EXPECT_EQ(Eval({Stmt(true, {account})}, kAlice), Verdict::kImplicitDeny) << account;
    EXPECT_EQ(Eval({Stmt(false, {account})}, kAlice), Verdict::kExplicitDeny) << account;
  }
  // Another account's root names nobody here.
  EXPECT_EQ(Eval({Stmt(false, {"111111111111"})}, kAlice), Verdict::kImplicitDeny);
}

TEST(ResourcePolicy, DenyWinsOverAllowInTheSamePolicy) {
  std::vector<ResourceStatement> st{Stmt(true, {"*"}), Stmt(false, {kAlice.user_arn})};
  EXPECT_EQ(Eval(st, kAlice), Verdict::kExplicitDeny);
  EXPECT_EQ(Eval(st, kBob), Verdict::kAllow);
}

TEST(ResourcePolicy, ActionAndResourcePatternsMustMatch) {
  std::vector<ResourceStatement> st{
      Stmt(true, {"*"}, {"dynamodb:Get*", "dynamodb:Query"}, {kTable, kTable + "/index/*"})};
  EXPECT_EQ(Eval(st, kAlice, "dynamodb:GetItem"), Verdict::kAllow);
  EXPECT_EQ(Eval(st, kAlice, "dynamodb:Query", kTable + "/index/byArtist"), Verdict::kAllow);
  EXPECT_EQ(Eval(st, kAlice, "dynamodb:PutItem"), Verdict::kImplicitDeny);
  EXPECT_EQ(Eval(st, kAlice, "dynamodb:GetItem", kTable + "2"), Verdict::kImplicitDeny);
}

TEST(ResourcePolicy, AttributeConditionsReadAsInIdentityPolicies) {
  ResourceStatement deny = Stmt(false, {"*"}, {"dynamodb:PutItem"});
  deny.statement.condition = Statement::AttributeCondition::kAnyOf;
  deny.statement.attributes = {"ExpirationTime"};
  std::vector<ResourceStatement> st{Stmt(true, {"*"}), deny};
  auto put = [&](std::optional<std::set<std::string>> attrs) {
    return EvaluateResourcePolicy(st, kAlice, "dynamodb:PutItem", kTable, attrs);
  };
  EXPECT_EQ(put(std::set<std::string>{"pk", "ExpirationTime"}), Verdict::kExplicitDeny);
  EXPECT_EQ(put(std::set<std::string>{"pk"}), Verdict::kAllow);
  EXPECT_EQ(put(std::nullopt), Verdict::kExplicitDeny);  // unknown: the Deny applies
}

TEST(ResourcePolicy, UnsupportedConditionsApplyDenyNotAllow) {
  ResourceStatement allow = Stmt(true, {"*"});
  allow.unsupported_condition = true;
  EXPECT_EQ(Eval({allow}, kAlice), Verdict::kImplicitDeny);
  ResourceStatement deny = Stmt(false, {"*"});
  deny.unsupported_condition = true;
  EXPECT_EQ(Eval({Stmt(true, {"*"}), deny}, kAlice), Verdict::kExplicitDeny);
}

// Every combination of an identity verdict and a resource verdict (or no resource policy).
TEST(ResourcePolicy, CombineTable) {
  using V = Verdict;
  struct Row {
    V identity;
    std::optional<V> resource;
    V verdict;
    DenySource source;
  };
  const Row rows[] = {
      {V::kAllow, std::nullopt, V::kAllow, DenySource::kNone},
      {V::kImplicitDeny, std::nullopt, V::kImplicitDeny, DenySource::kIdentityPolicy},
      {V::kExplicitDeny, std::nullopt, V::kExplicitDeny, DenySource::kIdentityPolicy},
      {V::kAllow, V::kAllow, V::kAllow, DenySource::kNone},
      {V::kAllow, V::kImplicitDeny, V::kAllow, DenySource::kNone},
      {V::kAllow, V::kExplicitDeny, V::kExplicitDeny, DenySource::kResourcePolicy},
      {V::kImplicitDeny, V::kAllow, V::kAllow, DenySource::kNone},
      {V::kImplicitDeny, V::kImplicitDeny, V::kImplicitDeny, DenySource::kIdentityPolicy},
      {V::kImplicitDeny, V::kExplicitDeny, V::kExplicitDeny, DenySource::kResourcePolicy},
      {V::kExplicitDeny, V::kAllow, V::kExplicitDeny, DenySource::kIdentityPolicy},
      {V::kExplicitDeny, V::kImplicitDeny, V::kExplicitDeny, DenySource::kIdentityPolicy},
      {V::kExplicitDeny, V::kExplicitDeny, V::kExplicitDeny, DenySource::kResourcePolicy},
  };
  for (const auto& r : rows) {
    CombinedDecision d = Combine(r.identity, r.resource);
    EXPECT_EQ(d.verdict, r.verdict)
        << int(r.identity) << " " << (r.resource ? int(*r.resource) : -1);
    EXPECT_EQ(d.source, r.source) << int(r.identity) << " " << (r.resource ? int(*r.resource) : -1);
  }
}

}  // namespace
}  // namespace ttlstore::auth
