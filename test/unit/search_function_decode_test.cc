// The decode of function-score queries, Highlight and Collapse from the wire
// (tablestore/search_function_decode.h, search_hits_decode.h, through DecodeQuery and
// DecodeSearchQuery): every field read, the defaults, date units in milliseconds, nanosecond
// origins, what is refused by name, malformed decay params, and the depth bound across nested
// function-score queries.
#include <gtest/gtest.h>

#include <string>

#include "search/function_score.h"
#include "tablestore/search_hits_decode.h"
#include "tablestore/search_query_decode.h"

namespace ttlstore::tablestore {
namespace {

namespace pb = ::ttlstore::otssearchpb;
using search::Query;
using search::ScoreFunction;

template <typename M>
pb::Query Wrap(pb::QueryType type, const M& m) {
  pb::Query q;
  q.set_type(type);
  q.set_query(m.SerializePartialAsString());
  return q;
}

pb::Query MatchAll() { return Wrap(pb::MATCH_ALL_QUERY, pb::MatchAllQuery()); }

std::string MessageOf(const Result<Query>& r) { return r.ok() ? "ok" : r.error().message(); }

TEST(SearchFunctionDecode, FunctionScoreQuery) {
  pb::FunctionScoreQuery m;
  *m.mutable_query() = MatchAll();
  m.mutable_field_value_factor()->set_field_name("pv");
  auto q = DecodeQuery(Wrap(pb::FUNCTION_SCORE_QUERY, m));
  ASSERT_TRUE(q.ok()) << q.error().message();
  EXPECT_EQ(q->kind, Query::Kind::kFunctionScore);
  ASSERT_EQ(q->must.size(), 1u);
  EXPECT_EQ(q->must[0].kind, Query::Kind::kMatchAll);
  ASSERT_EQ(q->functions.size(), 1u);
  EXPECT_EQ(q->functions[0].kind, ScoreFunction::Kind::kFieldValueFactor);
  EXPECT_EQ(q->functions[0].field, "pv");
  m.clear_field_value_factor();
  EXPECT_NE(MessageOf(DecodeQuery(Wrap(pb::FUNCTION_SCORE_QUERY, m))).find("field_value_factor"),
            std::string::npos);
}

TEST(SearchFunctionDecode, FunctionsScoreQueryFields) {
  pb::FunctionsScoreQuery m;
  *m.mutable_query() = MatchAll();
  m.set_score_mode(pb::FSM_SUM);
  m.set_combine_mode(pb::FCM_REPLACE);
  m.set_min_score(0.5f);
  m.set_max_score(8);
  pb::Function* f = m.add_functions();
  f->mutable_field_value_factor()->set_field_name("n");
  f->mutable_field_value_factor()->set_factor(2);
  f->mutable_field_value_factor()->set_modifier(pb::FM_LN1P);
  f->mutable_field_value_factor()->set_missing(3);
  f->set_weight(1.5f);
  pb::Function* d = m.add_functions();
  pb::DecayFuncDateParam date;
  date.set_origin_long(5'000'000'000);  // nanoseconds: 5000 ms
  date.mutable_scale()->set_value(2);
  date.mutable_scale()->set_unit(pb::HOUR);
  date.mutable_offset()->set_value(3);
  date.mutable_offset()->set_unit(pb::SECOND);
  d->mutable_decay()->set_field_name("dt");
  d->mutable_decay()->set_math_function(pb::EXP);
  d->mutable_decay()->set_param_type(pb::DF_DATE_PARAM);
  d->mutable_decay()->set_param(date.SerializeAsString());
  d->mutable_decay()->set_decay(0.25);
  *d->mutable_filter() = MatchAll();
  m.add_functions()->mutable_random();
  auto q = DecodeQuery(Wrap(pb::FUNCTIONS_SCORE_QUERY, m));
  ASSERT_TRUE(q.ok()) << q.error().message();
  using Opts = Query::FunctionScoreOptions;
  EXPECT_EQ(q->function_score.score_mode, Opts::ScoreMode::kSum);
  EXPECT_EQ(q->function_score.combine_mode, Opts::CombineMode::kReplace);
  EXPECT_EQ(q->function_score.min_score, 0.5);
  EXPECT_EQ(q->function_score.max_score, 8);
  ASSERT_EQ(q->functions.size(), 3u);
  const ScoreFunction& a = q->functions[0];
  EXPECT_EQ(a.kind, ScoreFunction::Kind::kFieldValueFactor);
  EXPECT_EQ(a.factor, 2);
  EXPECT_EQ(a.modifier, ScoreFunction::Modifier::kLn1p);
  EXPECT_EQ(a.missing, 3);
  EXPECT_EQ(a.weight, 1.5);
  const ScoreFunction& b = q->functions[1];
  EXPECT_EQ(b.kind, ScoreFunction::Kind::kDecay);
  EXPECT_TRUE(b.decay_date);
  EXPECT_EQ(b.decay_kind, ScoreFunction::Decay::kExp);
  EXPECT_EQ(b.origin, 5000);
  EXPECT_EQ(b.scale, 2 * 3600000);
  EXPECT_EQ(b.offset, 3000);
  EXPECT_EQ(b.decay, 0.25);
  EXPECT_EQ(b.filter.size(), 1u);
  EXPECT_EQ(q->functions[2].kind, ScoreFunction::Kind::kRandom);
  // Defaults: multiply and multiply, weight 1, no filter.
  pb::FunctionsScoreQuery plain;
  *plain.mutable_query() = MatchAll();
  plain.add_functions()->set_weight(2);
  auto p = DecodeQuery(Wrap(pb::FUNCTIONS_SCORE_QUERY, plain));
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->function_score.score_mode, Opts::ScoreMode::kMultiply);
  EXPECT_EQ(p->function_score.combine_mode, Opts::CombineMode::kMultiply);
  EXPECT_EQ(p->functions[0].kind, ScoreFunction::Kind::kWeight);
  EXPECT_TRUE(p->functions[0].filter.empty());
}

TEST(SearchFunctionDecode, RefusalsByName) {
  auto decay = [](pb::DecayFuncParamType type, const std::string& param) {
    pb::FunctionsScoreQuery m;
    *m.mutable_query() = MatchAll();
    pb::DecayFunction* d = m.add_functions()->mutable_decay();
    d->set_field_name("f");
    d->set_param_type(type);
    d->set_param(param);
    return MessageOf(DecodeQuery(Wrap(pb::FUNCTIONS_SCORE_QUERY, m)));
  };
  // A geo decay decodes (search_geo.test.mjs scores by one); an origin that is not a point not.
  pb::DecayFuncGeoParam geo;
  geo.set_origin("0,0");
  geo.set_scale(1);
  EXPECT_EQ(decay(pb::DF_GEO_PARAM, geo.SerializeAsString()), "ok");
  geo.set_origin("95,0");
  EXPECT_NE(decay(pb::DF_GEO_PARAM, geo.SerializeAsString()).find("is not a geo point"),
            std::string::npos);
  pb::DecayFuncDateParam date;
  date.set_origin_string("2020-01-01");
  date.mutable_scale()->set_value(1);
  date.mutable_scale()->set_unit(pb::DAY);
  EXPECT_NE(decay(pb::DF_DATE_PARAM, date.SerializeAsString()).find("origin_string"),
            std::string::npos);
  date.clear_origin_string();
  date.set_origin_long(0);
  date.mutable_scale()->set_unit(pb::MONTH);
  EXPECT_NE(decay(pb::DF_DATE_PARAM, date.SerializeAsString()).find("MONTH"), std::string::npos);
  // Malformed param bytes: refused, not crashed on.
  EXPECT_NE(decay(pb::DF_NUMERIC_PARAM, std::string("\x0a\xff\xff\xff", 4)), "ok");
  EXPECT_NE(decay(pb::DF_NUMERIC_PARAM, ""), "ok");  // origin and scale required
  // Two kinds in one function.
  pb::FunctionsScoreQuery two;
  *two.mutable_query() = MatchAll();
  pb::Function* f = two.add_functions();
  f->mutable_random();
  f->mutable_field_value_factor()->set_field_name("n");
  EXPECT_NE(MessageOf(DecodeQuery(Wrap(pb::FUNCTIONS_SCORE_QUERY, two))), "ok");
  // No query.
  pb::FunctionsScoreQuery none;
  EXPECT_NE(MessageOf(DecodeQuery(Wrap(pb::FUNCTIONS_SCORE_QUERY, none))).find("query"),
            std::string::npos);
}

TEST(SearchFunctionDecode, DepthIsBoundedAcrossNesting) {
  pb::Query q = MatchAll();
  for (int i = 0; i < 200; ++i) {
    pb::FunctionsScoreQuery m;
    *m.mutable_query() = q;
    q = Wrap(pb::FUNCTIONS_SCORE_QUERY, m);
  }
  EXPECT_FALSE(DecodeQuery(q).ok());
}

TEST(SearchFunctionDecode, HighlightDefaultsAndCollapse) {
  pb::Highlight h;
  h.add_highlight_parameters()->set_field_name("a");
  pb::HighlightParameter* b = h.add_highlight_parameters();
  b->set_field_name("b");
  b->set_number_of_fragments(0);
  b->set_fragment_size(18);
  b->set_pre_tag("<b>");
  b->set_post_tag("</b>");
  b->set_fragments_order(pb::SCORE);
  h.set_highlight_encoder(pb::HTML_MODE);
  auto s = DecodeHighlight(h);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->html);
  ASSERT_EQ(s->fields.size(), 2u);
  EXPECT_EQ(s->fields[0].name, "a");
  EXPECT_EQ(s->fields[0].fragment_size, 100);  // the service's defaults
  EXPECT_EQ(s->fields[0].pre_tag, "<em>");
  EXPECT_EQ(s->fields[0].post_tag, "</em>");
  EXPECT_FALSE(s->fields[0].order_by_score);
  EXPECT_EQ(s->fields[1].number_of_fragments, 0);
  EXPECT_EQ(s->fields[1].fragment_size, 18);
  EXPECT_EQ(s->fields[1].pre_tag, "<b>");
  EXPECT_TRUE(s->fields[1].order_by_score);

  pb::SearchQuery sq;
  *sq.mutable_query() = MatchAll();
  sq.mutable_collapse()->set_field_name("cat");
  *sq.mutable_highlight() = h;
  auto r = DecodeSearchQuery(sq.SerializeAsString());
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->collapse_field, "cat");
  ASSERT_TRUE(r->highlight);
  EXPECT_EQ(r->highlight->fields.size(), 2u);
  sq.mutable_collapse()->clear_field_name();
  EXPECT_FALSE(DecodeSearchQuery(sq.SerializeAsString()).ok());
}

}  // namespace
}  // namespace ttlstore::tablestore
