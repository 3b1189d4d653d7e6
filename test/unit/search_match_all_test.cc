// search::MatchAll and BoolQuery (search/match_all.h, search/bool_query.h): match every
// document, and can be built on many threads at once. Copies of Xapian::Query::MatchAll share
// one non-atomic reference count; built from it on two threads, queries corrupted it (a SEGV
// in Enquire::set_query under concurrent Search requests). Under the sanitizer build this test
// failed about one run in three when BoolQuery copied Query::MatchAll.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include <xapian.h>

#include "search/bool_query.h"
#include "search/match_all.h"

namespace ttlstore::search {
namespace {

TEST(SearchMatchAll, MatchesEveryDocumentAndIsTheMatchAllLeaf) {
  Xapian::WritableDatabase db(std::string(), Xapian::DB_BACKEND_INMEMORY);
  for (int i = 0; i < 5; ++i) {
    Xapian::Document doc;
    if (i % 2 == 0) doc.add_term("even");
    db.add_document(doc);
  }
  EXPECT_EQ(MatchAll().get_type(), Xapian::Query::LEAF_MATCH_ALL);
  Xapian::Enquire enquire(db);
  enquire.set_weighting_scheme(Xapian::BoolWeight());
  enquire.set_query(MatchAll());
  EXPECT_EQ(enquire.get_mset(0, 10).size(), 5u);
  enquire.set_query(BoolQuery(Xapian::Query("even")));
  EXPECT_EQ(enquire.get_mset(0, 10).size(), 3u);
  enquire.set_query(BoolQuery(MatchAll()));
  EXPECT_EQ(enquire.get_mset(0, 10).size(), 5u);
}

TEST(SearchMatchAll, QueriesBuiltOnManyThreadsAtOnceShareNoCount) {
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([] {
      for (int i = 0; i < 200000; ++i) {
        Xapian::Query q = BoolQuery(Xapian::Query("t"));
        Xapian::Query all = MatchAll();
        ASSERT_EQ(q.get_type(), Xapian::Query::OP_FILTER);
        ASSERT_EQ(all.get_type(), Xapian::Query::LEAF_MATCH_ALL);
      }
    });
  }
  for (auto& t : threads) t.join();
}

}  // namespace
}  // namespace ttlstore::search
