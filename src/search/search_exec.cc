// SearchEngine's read half: Search (sorted, paged by a search-after token), ComputeSplits and
// ParallelScan (documents partitioned by a shard term, paged in docid order). Every read opens
// no writer: it takes a pooled Xapian reader reopened at the last commit, so it never waits
// for the applier. Rows past the effective TTL are filtered out here, before any purge.
#include <algorithm>
#include <functional>
#include <random>
#include <string_view>

#include "common/coding.h"
#include "common/thread.h"

#include "search/agg_exec.h"
#include "search/agg_validate.h"
#include "search/bool_query.h"
#include "search/collapse.h"
#include "search/document.h"
#include "search/engine_impl.h"
#include "search/inner_hits.h"
#include "search/knn.h"
#include "search/match_all.h"
#include "search/query_builder.h"
#include "search/sort_keys.h"
#include "search/terms.h"
#include "search/token.h"
#include "storage/store.h"
#include "vector/knn_plan.h"
#include "vector/score.h"
#include "versions/row_key.h"
#include "versions/visibility.h"

namespace ttlstore::search {
namespace {

// The service's bounds (docs/compatibility.md, "Search indexes"): limit at most 1000 (100 when
// columns are read from the table: the front end checks that), offset + limit at most
// 100000 without a token; a ParallelScan page at most 2000 rows.
constexpr int32_t kMaxLimit = 1000;
constexpr int32_t kMaxOffsetPlusLimit = 100000;
constexpr int32_t kMaxScanLimit = 2000;
constexpr int64_t kSessionAliveMs = 10 * 60 * 1000;
// ComputeSplits: one split per this many documents (Chosen: the service gives a small index one
// split and more "as the data grows", unquantified), at most min(usable cores, 8).
constexpr uint64_t kDocsPerSplit = 1'000'000;
constexpr int32_t kMaxAliveTimeS = 86400;

// Every document with a docid above `floor`: lets a ParallelScan page start where the last
// one ended without walking the documents before it (the matcher skips to floor + 1).
class DocidFloorSource : public Xapian::PostingSource {
 public:
  explicit DocidFloorSource(Xapian::docid floor) : floor_(floor) {}
  Xapian::PostingSource* clone() const override { return new DocidFloorSource(floor_); }
  void init(const Xapian::Database& db) override {
    db_ = db;
    it_ = db_.postlist_begin("");
    end_ = db_.postlist_end("");
    if (it_ != end_) it_.skip_to(floor_ + 1);
    started_ = false;
    set_maxweight(0);
  }
  Xapian::doccount get_termfreq_min() const override { return 0; }
  Xapian::doccount get_termfreq_est() const override { return db_.get_doccount() / 2; }
  Xapian::doccount get_termfreq_max() const override { return db_.get_doccount(); }
  void next(double) override {
    if (!started_) {
      started_ = true;
      return;
    }
    ++it_;
  }
  void skip_to(Xapian::docid did, double) override {
    started_ = true;
    if (it_ != end_) it_.skip_to(did);
  }
  bool at_end() const override { return it_ == end_; }
  Xapian::docid get_docid() const override { return *it_; }

 private:
  Xapian::docid floor_;
  Xapian::Database db_;
  Xapian::PostingIterator it_, end_;
  bool started_ = false;
};

// Matches sorting after `key` under the key maker (the search-after of a token).
class AfterKey : public Xapian::MatchDecider {
 public:
  AfterKey(const Xapian::KeyMaker& km, std::string key) : km_(km), key_(std::move(key)) {}
  bool operator()(const Xapian::Document& doc) const override { return km_(doc) > key_; }

 private:
  const Xapian::KeyMaker& km_;
  std::string key_;
};

Xapian::Query WithTtl(Xapian::Query q, const model::SearchIndexMeta& index,
                      const model::TablestoreSchema& table, int64_t now_ms) {
  int64_t ttl = EffectiveTtlSeconds(index, table);
  if (ttl < 0) return q;
  return Xapian::Query(Xapian::Query::OP_FILTER, q,
                       Xapian::Query(Xapian::Query::OP_VALUE_GE, kSlotTimestamp,
                                     KeyBytes(LongKey(now_ms - ttl * 1000))));
}

// Runs `read` on one of `ix`'s pooled readers. A commit landing while it reads makes Xapian
// throw DatabaseModifiedError: the reader is reopened at the new commit and `read` runs again,
// at most three more times, so `read` starts its output afresh on each run (also after a
// DatabaseCorruptError: see below). Xapian's errors
// become the service's: an expansion past its cap a validation error, the rest internal ones.
Status WithReader(OpenIndex& ix, std::string_view what,
                  const std::function<Status(Xapian::Database&)>& read) {
  try {
    std::unique_ptr<Xapian::Database> db = ix.TakeReader();
    for (int attempt = 0;; ++attempt) {
      try {
        RETURN_IF_ERROR(read(*db));
        break;
      } catch (const Xapian::DatabaseModifiedError&) {
        if (attempt >= 3) throw;
        db->reopen();
      } catch (const Xapian::DatabaseCorruptError&) {
        // A long read (a KNN filter's bitmap, an exact scan) over a revision the writer has
        // since overwritten twice can meet reused blocks, which glass reports as corruption
        // ("Unexpected end of posting list"), not always as a modification: retried the same
        // way, and reported when it persists at the newest revision.
        if (attempt >= 3) throw;
        db->reopen();
      }
    }
    ix.PutReader(std::move(db));
  } catch (const Xapian::WildcardError&) {
    return Error::Validation("PrefixQuery matches more than " + std::to_string(kMaxExpansion) +
                             " distinct values");
  } catch (const Xapian::Error& e) {
    return Error::Internal(std::string(what) + " failed: " + e.get_description());
  }
  return Status::Ok();
}

Error InvalidToken() { return Error::Validation(kTokenErrorText); }

// Aggregations read an array field's elements from the row when the document predates
// its array slot (search/agg_columns.h): the row's current visible cell, as BuildDocument
// reads it.
RowValues RowValuesOf(storage::Store& store, const model::TablestoreSchema& table, int64_t now_ms) {
  return [&store, &table, now_ms](const std::string& key, const model::SearchField& f) {
    std::vector<model::CellValue> out;
    auto bytes = store.Get(storage::Family::kRows, key);
    versions::StoredRow row;
    if (!bytes.ok() || !bytes->has_value() || !versions::DecodeRow(**bytes, &row)) return out;
    const versions::Column* col = row.Find(f.name);
    if (!col) return out;
    const versions::Version* v = versions::LatestVisible(*col, table.options, now_ms);
    if (v) out = FieldValues(f, v->value);
    return out;
  };
}

// What KNN needs of the engine: the index's graphs (null: none), the switch to exact ranking,
// and the counters of each path.
struct KnnContext {
  const IndexGraphs* graphs = nullptr;
  size_t exact_up_to = 0;
  std::atomic<uint64_t>* graph_queries = nullptr;
  std::atomic<uint64_t>* exact_queries = nullptr;
};

// Runs the KnnVectorQuerys of a Search on `db` (search/knn.h): the nearest documents among
// those matching the filter and alive under the TTL, top_k widened to the Search's limit (the
// service: "If the value of topK is less than the value of limit, the server uses limit"),
// each scored as the service scores its metric (vector/score.h), min_score applied. Through the
// field's graph when it is ready and the filtered set is large (vector/knn_plan.h), else exact.
KnnRunner MakeKnnRunner(const model::SearchIndexMeta& index, const model::TablestoreSchema& table,
                        const Xapian::Database& db, int64_t now_ms, int32_t limit,
                        KnnContext ctx) {
  return [&index, &table, &db, now_ms, limit, ctx](
             const Query& q, const Xapian::Query& filter) -> Result<Xapian::Query> {
    size_t fi = FieldIndex(index, q.field);
    const model::SearchField& f = index.fields[fi];
    KnnSpec spec;
    spec.slot = kSlotFieldBase + unsigned(fi);
    spec.dim = f.vector_dimension;
    spec.metric = static_cast<vector::Metric>(f.vector_metric);
    spec.query = q.vector.data();
    spec.k = size_t(std::max(q.top_k, limit));
    Xapian::Query alive = WithTtl(filter, index, table, now_ms);
    std::optional<std::vector<vector::Neighbor>> nearest;
    std::shared_ptr<vector::VectorIndex> graph = ctx.graphs ? ctx.graphs->Graph(spec.slot) : nullptr;
    if (graph) {
      // With no filter but the TTL, every document counts: Xapian's estimate of a value range
      // can be far too low (it made a 50% TTL set look like 2.5%), and the graph's predicate
      // walks through the expired nodes anyway. A real filter's count is exact up to the switch
      // point and Xapian's term-based estimate above it.
      size_t matches = filter.get_type() == Xapian::Query::LEAF_MATCH_ALL
                           ? size_t(db.get_doccount())
                           : CountMatches(db, alive, ctx.exact_up_to + 1);
      vector::KnnPlan plan = vector::PlanKnn(matches, graph->size(), spec.k, ctx.exact_up_to);
      if (!plan.exact) {
        // num_candidates ([top_k, 1000]) widens the graph's candidate list, never narrows it.
        plan.ef = std::max(plan.ef, size_t(std::max(q.num_candidates, 0)));
        GraphFilter gf;
        gf.filter = filter;
        int64_t ttl = EffectiveTtlSeconds(index, table);
        if (ttl >= 0) gf.min_timestamp = KeyBytes(LongKey(now_ms - ttl * 1000));
        nearest = GraphNearestDocuments(db, *graph, spec, gf, alive, plan.ef);
      }
    }
    if (nearest) {
      if (ctx.graph_queries) ++*ctx.graph_queries;
    } else {
      nearest = NearestDocuments(db, spec, alive);
      if (ctx.exact_queries) ++*ctx.exact_queries;
    }
    std::vector<std::pair<Xapian::docid, double>> hits;
    for (const auto& n : *nearest) {
      double score = vector::TablestoreScore(spec.metric, n.distance);
      if (q.min_score > 0 && !(score > q.min_score)) continue;
      hits.emplace_back(Xapian::docid(n.label), score);
    }
    return HitsQuery(std::move(hits));
  };
}

}  // namespace

Status SearchEngine::Validate(const model::SearchIndexMeta& index, const Query& q) {
  return ValidateQuery(index, q);
}

Result<SearchResult> SearchEngine::Search(uint32_t table_id, const model::TablestoreSchema& table,
                                          const model::SearchIndexMeta& index,
                                          const SearchRequest& req) {
  if (auto s = ValidateQuery(index, req.query); !s.ok()) return s.error();
  const bool aggregate = req.aggs && !req.aggs->empty();
  if (aggregate) RETURN_IF_ERROR(ValidateAggregations(index, *req.aggs));
  if (req.limit < 0 || req.limit > kMaxLimit) {
    return Error::Validation("limit must be in [0, " + std::to_string(kMaxLimit) + "]");
  }
  if (req.offset < 0) return Error::Validation("offset must be >= 0");
  if (req.token.empty() && int64_t(req.offset) + req.limit > kMaxOffsetPlusLimit) {
    return Error::Validation("offset + limit must be <= " + std::to_string(kMaxOffsetPlusLimit) +
                             ", use next_token to read further");
  }
  // The sort: the token's (its first page's) when paging, else the request's.
  EffectiveSort sort;
  std::optional<Token> token;
  std::string_view token_rest;
  if (!req.token.empty()) {
    token = DecodeToken(req.token);
    if (!token || token->index_id != index.id || (token->kind != 'K' && token->kind != 'O')) {
      return InvalidToken();
    }
    std::string_view p = token->payload;
    uint64_t n = 0;
    if (!GetVarint64(&p, &n) || n > p.size()) return InvalidToken();
    auto decoded = DecodeSort(p.substr(0, n));
    if (!decoded || SortFingerprint(*decoded) != token->fingerprint) return InvalidToken();
    sort = std::move(*decoded);
    token_rest = p.substr(n);
    if (token->kind == 'O' && token_rest.size() != 8) return InvalidToken();
  } else {
    sort = SortOf(index, req);
  }
  if (auto s = ValidateSort(index, sort.keys); !s.ok()) return s.error();
  int collapse_field = -1;
  if (!req.collapse_field.empty()) {
    if (auto s = ValidateCollapse(index, req.collapse_field); !s.ok()) return s.error();
    // The service's collapse pages by offset and limit only (its "Collapse" page).
    if (token) {
      return Error::Validation("A search with collapse is paged by offset and limit only: "
                               "next_token can not be used with it.");
    }
    collapse_field = FieldIndex(index, req.collapse_field);
  }
  bool by_score = false;
  for (const auto& k : sort.keys) by_score |= k.key.kind == model::SearchSortKey::Kind::kScore;
  if (token && (token->kind == 'O') != by_score) return InvalidToken();
  std::string sort_bytes = EncodeSort(sort);
  uint64_t fingerprint = SortFingerprint(sort);
  SearchResult out;
  auto ix = impl_->Find(index.id);
  if (!ix) {  // not opened yet (just created): nothing is indexed
    if (req.total_count) out.total_hits = 0;
    if (aggregate) {
      Xapian::WritableDatabase empty(std::string(), Xapian::DB_BACKEND_INMEMORY);
      ASSIGN_OR_RETURN(aggs, RunAggregations(index, empty, MatchAll(), *req.aggs, {}));
      out.aggs = std::make_shared<AggOutput>(std::move(aggs));
    }
    return out;
  }
  RETURN_IF_ERROR(WithReader(*ix, "search", [&](Xapian::Database& db) -> Status {
    KnnContext ctx{ix->graphs.get(), impl_->knn_exact_up_to, &impl_->knn_graph_queries,
                   &impl_->knn_exact_queries};
    KnnRunner knn = MakeKnnRunner(index, table, db, req.now_ms, req.limit, ctx);
    auto built = BuildQuery(index, db, req.query, &knn);
    if (!built.ok()) return built.error();
    Xapian::Query q = WithTtl(*built, index, table, req.now_ms);
    SortKeyMaker km;
    MakeSortKeys(index, sort, &km);
    MatchOrder order = MatchOrder::kKey;
    if (by_score) {
      order = km.empty() ? MatchOrder::kRelevance
              : sort.keys.front().key.kind == model::SearchSortKey::Kind::kScore
                  ? MatchOrder::kRelevanceThenKey
                  : MatchOrder::kKeyThenRelevance;
    }
    auto configure = [&](Xapian::Enquire& e) {
      switch (order) {
        case MatchOrder::kRelevance: e.set_sort_by_relevance(); break;
        case MatchOrder::kRelevanceThenKey: e.set_sort_by_relevance_then_key(&km, false); break;
        case MatchOrder::kKeyThenRelevance: e.set_sort_by_key_then_relevance(&km, false); break;
        case MatchOrder::kKey:
          e.set_weighting_scheme(Xapian::BoolWeight());
          e.set_sort_by_key(&km, false);
          break;
      }
    };
    // Key order weighs nothing (BoolWeight): its query goes through BoolQuery (bool_query.h).
    const Xapian::Query matched = order == MatchOrder::kKey ? BoolQuery(q) : q;
    Xapian::Enquire enquire(db);
    enquire.set_query(matched);
    configure(enquire);
    Xapian::doccount first = Xapian::doccount(req.offset);
    std::unique_ptr<AfterKey> after;
    if (token && token->kind == 'O') {
      std::string_view p = token_rest;
      uint64_t off = 0;
      GetFixed64BE(&p, &off);
      if (off > uint64_t(kMaxOffsetPlusLimit) * 1000) return InvalidToken();
      first = Xapian::doccount(off);
    } else if (token) {
      after = std::make_unique<AfterKey>(km, std::string(token_rest));
      first = 0;
    }
    out = SearchResult();
    // Without a search-after decider the page's own match counts every match when asked
    // to check them all: one pass gives the page and the exact total (not when collapsing:
    // the total counts the rows before collapsing, as the service's).
    bool count_in_page = req.total_count && !after && req.limit > 0 && collapse_field < 0;
    if (collapse_field >= 0 && req.limit > 0) {
      for (auto& h : CollapsedPage(db, matched, size_t(collapse_field), configure, km, order, first,
                                   Xapian::doccount(req.limit))) {
        out.hits.push_back(Hit{h.doc.get_value(kSlotRowKey), h.weight});
      }
    } else if (req.limit > 0) {
      Xapian::MSet mset = enquire.get_mset(first, Xapian::doccount(req.limit) + 1,
                                           count_in_page ? db.get_doccount() : 0, nullptr,
                                           after.get());
      if (count_in_page) out.total_hits = int64_t(mset.get_matches_estimated());
      Xapian::doccount n = 0;
      bool inner = WantsInnerHits(req.query);
      for (auto m = mset.begin(); m != mset.end() && n < Xapian::doccount(req.limit); ++m, ++n) {
        Xapian::Document doc = m.get_document();
        out.hits.push_back(Hit{doc.get_value(kSlotRowKey), m.get_weight(), {}});
        if (inner) out.hits.back().inner_hits = CollectInnerHits(index, req.query, doc);
      }
      if (mset.size() > Xapian::doccount(req.limit)) {
        Token next;
        next.index_id = index.id;
        next.fingerprint = fingerprint;
        PutVarint64(&next.payload, sort_bytes.size());
        next.payload += sort_bytes;
        if (by_score) {
          next.kind = 'O';
          PutFixed64BE(&next.payload, uint64_t(first) + uint64_t(req.limit));
        } else {
          next.kind = 'K';
          auto last = mset[Xapian::doccount(req.limit) - 1];
          next.payload += km(last.get_document());
        }
        out.next_token = EncodeToken(next);
      }
    }
    if (req.total_count && !count_in_page) {
      Xapian::Enquire count(db);
      count.set_query(BoolQuery(q));
      count.set_weighting_scheme(Xapian::BoolWeight());
      Xapian::MSet all = count.get_mset(0, 0, db.get_doccount());
      out.total_hits = int64_t(all.get_matches_estimated());
    }
    if (out.total_hits > req.total_count_limit) out.total_hits = req.total_count_limit;
    if (aggregate) {
      ASSIGN_OR_RETURN(aggs, RunAggregations(index, db, q, *req.aggs,
                                             RowValuesOf(impl_->store, table, req.now_ms)));
      out.aggs = std::make_shared<AggOutput>(std::move(aggs));
    }
    return Status::Ok();
  }));
  return out;
}

int32_t SearchEngine::Impl::SplitsOf(const model::SearchIndexMeta& index) {
  uint64_t docs = 0;
  if (auto ix = Find(index.id)) {
    try {
      auto db = ix->TakeReader();
      docs = db->get_doccount();
      ix->PutReader(std::move(db));
    } catch (const Xapian::Error&) {
    }
  }
  uint64_t cap = std::min<unsigned>(UsableCpus(), 8);
  return int32_t(std::clamp<uint64_t>((docs + kDocsPerSplit - 1) / kDocsPerSplit, 1, cap));
}

Result<int32_t> SearchEngine::ComputeSplits(const model::SearchIndexMeta& index,
                                            std::string* session_id) {
  std::random_device rd;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id;
  for (int i = 0; i < 32; ++i) id.push_back(kHex[rd() & 15]);
  int32_t splits = impl_->SplitsOf(index);
  int64_t now = impl_->clock.NowMs();
  {
    std::lock_guard lock(impl_->sessions_mu);
    for (auto it = impl_->sessions.begin(); it != impl_->sessions.end();) {
      it = it->second.expiry_ms < now ? impl_->sessions.erase(it) : std::next(it);
    }
    impl_->sessions[id] = Impl::Session{now + kSessionAliveMs, splits};
  }
  *session_id = id;
  return splits;
}

Result<ScanResult> SearchEngine::ParallelScan(uint32_t table_id,
                                              const model::TablestoreSchema& table,
                                              const model::SearchIndexMeta& index,
                                              const ScanRequest& req) {
  if (auto s = ValidateQuery(index, req.query); !s.ok()) return s.error();
  if (req.session_id.size() > 256) return Error::Validation("session_id is too long");
  // max_parallel is bounded by the splits ComputeSplits gave this session (a session this
  // process does not know, or none, by the index's splits now); the service's texts.
  int32_t bound = 0;
  {
    std::lock_guard lock(impl_->sessions_mu);
    auto it = impl_->sessions.find(req.session_id);
    if (it != impl_->sessions.end()) bound = it->second.splits;
  }
  if (bound == 0) bound = impl_->SplitsOf(index);
  if (req.max_parallel < 1 || req.max_parallel > bound) {
    return Error::Validation("[parallel_scan.max_parallel_id] must in (0 ," +
                             std::to_string(bound) + "], current max_parallel_id is " +
                             std::to_string(req.max_parallel));
  }
  if (req.parallel_id < 0 || req.parallel_id >= req.max_parallel) {
    return Error::Validation("[parallel_scan.current_parallel_id] must in [0, max_parallel), "
                             "current max_parallel is " + std::to_string(req.max_parallel) +
                             ", current_parallel_id is " + std::to_string(req.parallel_id));
  }
  if (req.limit < 1 || req.limit > kMaxScanLimit) {
    return Error::Validation("limit must be in [1, " + std::to_string(kMaxScanLimit) + "]");
  }
  if (req.alive_time_s < 1 || req.alive_time_s > kMaxAliveTimeS) {
    return Error::Validation("[parallel_scan.alive_time] must be in [1, " +
                             std::to_string(kMaxAliveTimeS) + "], but was " +
                             std::to_string(req.alive_time_s));
  }
  Xapian::docid floor = 0;
  if (!req.token.empty()) {
    auto t = DecodeToken(req.token);
    if (!t || t->kind != 'P' || t->index_id != index.id || t->payload.size() < 20) {
      return InvalidToken();
    }
    std::string_view p = t->payload;
    uint32_t pid = 0, maxp = 0, last = 0;
    uint64_t expiry = 0;
    GetFixed32BE(&p, &pid);
    GetFixed32BE(&p, &maxp);
    GetFixed32BE(&p, &last);
    GetFixed64BE(&p, &expiry);
    if (int32_t(pid) != req.parallel_id || int32_t(maxp) != req.max_parallel ||
        p != req.session_id) {
      return InvalidToken();
    }
    if (int64_t(expiry) < req.now_ms) {
      return Error::Validation(std::string(kSessionExpiredPrefix) +
                               "ScanQuery'session is expired, please retry ComputeSplitsRequest "
                               "and ScanQuery.");
    }
    floor = last;
  }
  ScanResult out;
  auto ix = impl_->Find(index.id);
  if (!ix) return out;
  RETURN_IF_ERROR(WithReader(*ix, "parallel scan", [&](Xapian::Database& db) -> Status {
    auto built = BuildQuery(index, db, req.query);
    if (!built.ok()) return built.error();
    std::vector<std::string> shards;
    for (int s = req.parallel_id; s < kShards; s += req.max_parallel) {
      shards.push_back(ShardTerm(s));
    }
    Xapian::Query q(Xapian::Query::OP_FILTER, *built,
                    Xapian::Query(Xapian::Query::OP_OR, shards.begin(), shards.end()));
    q = Xapian::Query(Xapian::Query::OP_FILTER, q,
                      Xapian::Query((new DocidFloorSource(floor))->release()));
    q = WithTtl(q, index, table, req.now_ms);
    Xapian::Enquire enquire(db);
    enquire.set_query(BoolQuery(q));
    enquire.set_weighting_scheme(Xapian::BoolWeight());
    enquire.set_docid_order(Xapian::Enquire::ASCENDING);
    enquire.set_sort_by_relevance();
    Xapian::MSet mset = enquire.get_mset(0, Xapian::doccount(req.limit));
    out = ScanResult();
    Xapian::docid last = 0;
    for (auto m = mset.begin(); m != mset.end(); ++m) {
      out.row_keys.push_back(m.get_document().get_value(kSlotRowKey));
      last = *m;
    }
    // A page with rows always names the next one (which may be empty): the service's scroll,
    // as its SDKs' tests page until a page comes back empty.
    if (!out.row_keys.empty()) {
      Token next;
      next.kind = 'P';
      next.index_id = index.id;
      PutFixed32BE(&next.payload, uint32_t(req.parallel_id));
      PutFixed32BE(&next.payload, uint32_t(req.max_parallel));
      PutFixed32BE(&next.payload, last);
      PutFixed64BE(&next.payload, uint64_t(req.now_ms + int64_t(req.alive_time_s) * 1000));
      next.payload += req.session_id;
      out.next_token = EncodeToken(next);
    }
    return Status::Ok();
  }));
  return out;
}

}  // namespace ttlstore::search
