// Function scores' arithmetic (search/function_score.h) against values computed here by hand
// from Elasticsearch's function_score formulas (which the service's FunctionsScoreQuery
// follows): field_value_factor's modifiers and missing, the decay curves (worth `decay` at
// `scale` past `offset`), weights, filters, the score modes and the combine modes, max_score,
// and the checks of a function against the index's fields.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <vector>

#include "search/function_score.h"

namespace ttlstore::search {
namespace {

using Mode = Query::FunctionScoreOptions::ScoreMode;
using Combine = Query::FunctionScoreOptions::CombineMode;
using Opt = std::optional<double>;

ScoreFunction Fvf(double factor, ScoreFunction::Modifier m, Opt missing = std::nullopt) {
  ScoreFunction f;
  f.kind = ScoreFunction::Kind::kFieldValueFactor;
  f.field = "n";
  f.factor = factor;
  f.modifier = m;
  f.missing = missing;
  return f;
}

ScoreFunction Decay(ScoreFunction::Decay kind, double origin, double scale, double offset,
                    double decay) {
  ScoreFunction f;
  f.kind = ScoreFunction::Kind::kDecay;
  f.field = "n";
  f.decay_kind = kind;
  f.origin = origin;
  f.scale = scale;
  f.offset = offset;
  f.decay = decay;
  return f;
}

TEST(SearchFunctionScore, FieldValueFactorModifiers) {
  using M = ScoreFunction::Modifier;
  EXPECT_DOUBLE_EQ(*FunctionValue(Fvf(2, M::kNone), true, 10, 0), 20);
  EXPECT_DOUBLE_EQ(*FunctionValue(Fvf(1, M::kLog), true, 100, 0), 2);
  EXPECT_DOUBLE_EQ(*FunctionValue(Fvf(1, M::kLog1p), true, 99, 0), 2);
  EXPECT_DOUBLE_EQ(*FunctionValue(Fvf(1, M::kLog2p), true, 98, 0), 2);
  EXPECT_DOUBLE_EQ(*FunctionValue(Fvf(1, M::kLn), true, std::exp(3.0), 0), 3);
  EXPECT_DOUBLE_EQ(*FunctionValue(Fvf(1, M::kLn1p), true, std::exp(3.0) - 1, 0), 3);
  EXPECT_NEAR(*FunctionValue(Fvf(1, M::kLn2p), true, std::exp(3.0) - 2, 0), 3, 1e-12);
  EXPECT_DOUBLE_EQ(*FunctionValue(Fvf(3, M::kSquare), true, 2, 0), 36);
  EXPECT_DOUBLE_EQ(*FunctionValue(Fvf(1, M::kSqrt), true, 16, 0), 4);
  EXPECT_DOUBLE_EQ(*FunctionValue(Fvf(1, M::kReciprocal), true, 4, 0), 0.25);
  // A row without the field: `missing`, else the function does not apply.
  EXPECT_DOUBLE_EQ(*FunctionValue(Fvf(2, M::kNone, 5), true, std::nullopt, 0), 10);
  EXPECT_FALSE(FunctionValue(Fvf(2, M::kNone), true, std::nullopt, 0));
  // Not finite (log of 0): 0.
  EXPECT_DOUBLE_EQ(*FunctionValue(Fvf(1, M::kLog), true, 0, 0), 0);
  // The weight multiplies; a filter that does not match leaves the function out.
  ScoreFunction w = Fvf(1, M::kNone);
  w.weight = 3;
  EXPECT_DOUBLE_EQ(*FunctionValue(w, true, 7, 0), 21);
  EXPECT_FALSE(FunctionValue(w, false, 7, 0));
}

TEST(SearchFunctionScore, DecayCurves) {
  using D = ScoreFunction::Decay;
  // Worth `decay` at origin ± (offset + scale), 1 within the offset.
  for (D kind : {D::kGauss, D::kExp, D::kLinear}) {
    ScoreFunction f = Decay(kind, 100, 10, 5, 0.5);
    EXPECT_NEAR(*FunctionValue(f, true, 115, 0), 0.5, 1e-12);
    EXPECT_NEAR(*FunctionValue(f, true, 85, 0), 0.5, 1e-12);
    EXPECT_DOUBLE_EQ(*FunctionValue(f, true, 103, 0), 1);
    EXPECT_DOUBLE_EQ(*FunctionValue(f, true, std::nullopt, 0), 1);  // no value: 1
  }
  // At twice the scale: gauss 0.5^4, exp 0.5^2, linear 0.
  EXPECT_NEAR(*FunctionValue(Decay(D::kGauss, 0, 10, 0, 0.5), true, 20, 0), 0.0625, 1e-12);
  EXPECT_NEAR(*FunctionValue(Decay(D::kExp, 0, 10, 0, 0.5), true, 20, 0), 0.25, 1e-12);
  EXPECT_NEAR(*FunctionValue(Decay(D::kLinear, 0, 10, 0, 0.5), true, 20, 0), 0, 1e-12);
  EXPECT_NEAR(*FunctionValue(Decay(D::kLinear, 0, 10, 0, 0.5), true, 15, 0), 0.25, 1e-12);
}

TEST(SearchFunctionScore, ScoreModesAndCombineModes) {
  std::vector<ScoreFunction> fns(3);
  fns[0].weight = 2;
  fns[1].weight = 3;
  fns[2].weight = 5;
  std::vector<Opt> values = {4, 9, std::nullopt};  // the third does not apply
  Query::FunctionScoreOptions o;
  auto score = [&](Mode m, Combine c, double base) {
    o.score_mode = m;
    o.combine_mode = c;
    return CombineFunctionScore(o, fns, base, values);
  };
  EXPECT_DOUBLE_EQ(score(Mode::kMultiply, Combine::kMultiply, 2), 72);
  EXPECT_DOUBLE_EQ(score(Mode::kSum, Combine::kMultiply, 2), 26);
  EXPECT_DOUBLE_EQ(score(Mode::kAvg, Combine::kMultiply, 1), 13.0 / 5);  // by the weights
  EXPECT_DOUBLE_EQ(score(Mode::kMax, Combine::kReplace, 100), 9);
  EXPECT_DOUBLE_EQ(score(Mode::kMin, Combine::kReplace, 100), 4);
  EXPECT_DOUBLE_EQ(score(Mode::kFirst, Combine::kReplace, 100), 4);
  EXPECT_DOUBLE_EQ(score(Mode::kSum, Combine::kSum, 2), 15);
  EXPECT_DOUBLE_EQ(score(Mode::kSum, Combine::kAvg, 3), 8);
  EXPECT_DOUBLE_EQ(score(Mode::kSum, Combine::kMin, 3), 3);
  EXPECT_DOUBLE_EQ(score(Mode::kSum, Combine::kMax, 3), 13);
  o.max_score = 10;  // caps the functions' value, not the query's score
  EXPECT_DOUBLE_EQ(score(Mode::kSum, Combine::kSum, 2), 12);
  o.max_score.reset();
  // No function applies: the factor is 1.
  values = {std::nullopt, std::nullopt, std::nullopt};
  EXPECT_DOUBLE_EQ(score(Mode::kMultiply, Combine::kMultiply, 2.5), 2.5);
  // Never negative.
  values = {-4, std::nullopt, std::nullopt};
  EXPECT_DOUBLE_EQ(score(Mode::kSum, Combine::kReplace, 1), 0);
}

TEST(SearchFunctionScore, Validation) {
  model::SearchIndexMeta ix;
  model::SearchField n;
  n.name = "n";
  n.type = model::SearchFieldType::kLong;
  n.sort_and_agg = true;
  ix.fields.push_back(n);
  model::SearchField kw = n;
  kw.name = "kw";
  kw.type = model::SearchFieldType::kKeyword;
  ix.fields.push_back(kw);
  model::SearchField nosort = n;
  nosort.name = "nosort";
  nosort.sort_and_agg = false;
  ix.fields.push_back(nosort);
  auto check = [&](ScoreFunction f) {
    Query q;
    q.kind = Query::Kind::kFunctionScore;
    q.functions.push_back(std::move(f));
    return ValidateFunctionScore(ix, q).ok();
  };
  using M = ScoreFunction::Modifier;
  EXPECT_TRUE(check(Fvf(1, M::kNone)));
  ScoreFunction f = Fvf(1, M::kNone);
  f.field = "kw";
  EXPECT_FALSE(check(f));
  f.field = "nosort";
  EXPECT_FALSE(check(f));
  f.field = "absent";
  EXPECT_FALSE(check(f));
  EXPECT_TRUE(check(Decay(ScoreFunction::Decay::kGauss, 0, 1, 0, 0.5)));
  EXPECT_FALSE(check(Decay(ScoreFunction::Decay::kGauss, 0, 0, 0, 0.5)));  // scale > 0
  EXPECT_FALSE(check(Decay(ScoreFunction::Decay::kGauss, 0, 1, 0, 1)));    // decay < 1
  Query four;
  four.kind = Query::Kind::kFunctionScore;
  four.functions.resize(4);
  EXPECT_FALSE(ValidateFunctionScore(ix, four).ok());
}

}  // namespace
}  // namespace ttlstore::search
