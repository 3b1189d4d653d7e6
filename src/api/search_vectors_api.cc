// SearchVectors: the k items of a vector index nearest to a search vector (API reference,
// SearchVectors; docs/vector-indexes.md gives every rule's source). Request checks in the
// service's order (shape, TopK, table, index, index state, vector, condition, projection),
// then the ranking (api/search_vectors_rank.h): exact for an index or HASH partition of at most
// --knn-exact-up-to entries, else by the index's HNSW graph (ops/vector_graphs.h), whose
// candidates are read back and re-checked.
#include <algorithm>

#include "api/expression_params.h"
#include "api/handlers.h"
#include "api/item_common.h"
#include "api/search_condition.h"
#include "api/search_vectors_rank.h"
#include "expr/projection.h"
#include "index/index_key.h"
#include "index/vector_value.h"
#include "vector/distance.h"

namespace ttlstore::api {
namespace {

// TopK's range (Troubleshooting vector indexes: "TopK was outside 1 to 100").
constexpr int64_t kMinTopK = 1;
constexpr int64_t kMaxTopK = 100;

// The search vector: a list of N values (SearchVectorsInput.SearchVector, "Each element is a
// 32-bit IEEE-754 floating point number, provided in DynamoDB list format").
Result<std::vector<model::AttributeValue>> DecodeSearchVector(const rapidjson::Value& json) {
  std::vector<model::AttributeValue> out;
  out.reserve(json.Size());
  for (const auto& e : json.GetArray()) {
    if (!e.IsObject()) return Error::Serialization("Unexpected value type in SearchVector");
    ASSIGN_OR_RETURN(v, DecodeAttributeValue(e));
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace

Result<std::string> SearchVectors(const Services& s, const rapidjson::Value& req) {
  Constraints c;
  ASSIGN_OR_RETURN(head, ParseHead(req, nullptr, nullptr, c));
  ASSIGN_OR_RETURN(index_name, OptString(req, "IndexName"));
  c.NotNull("indexName", index_name.has_value());
  c.TableName("indexName", index_name, 3);
  ASSIGN_OR_RETURN(search_json, OptArray(req, "SearchVector"));
  c.NotNull("searchVector", search_json != nullptr);
  ASSIGN_OR_RETURN(top_k, OptInt(req, "TopK"));
  c.NotNull("topK", top_k.has_value());
  ASSIGN_OR_RETURN(select, OptString(req, "Select"));
  // Select is not in the service model of the pinned SDK; AWS Tools for PowerShell's
  // Search-DDBVector has it. Chosen: the two values that fit a vector index's projection.
  c.Enum("select", select, {"ALL_PROJECTED_ATTRIBUTES", "SPECIFIC_ATTRIBUTES"});
  ASSIGN_OR_RETURN(condition_text, OptString(req, "SearchConditionExpression"));
  if (!c.ok()) return c.ToError();
  if (*top_k < kMinTopK || *top_k > kMaxTopK) {
    // The service's whole text (a conformance suite's capture against it, error-messages/
    // searchVectors); the troubleshooting page quotes its first sentence.
    return Error::Validation("Provided TopK value '" + std::to_string(*top_k) +
                             "' is out of valid range. The value must be between 1 and 100 "
                             "inclusive");
  }
  ASSIGN_OR_RETURN(search, DecodeSearchVector(*search_json));
  ASSIGN_OR_RETURN(ph, DecodePlaceholders(req));
  std::optional<expr::Projection> projection;
  ASSIGN_OR_RETURN(text, OptString(req, "ProjectionExpression"));
  if (text) {
    ASSIGN_OR_RETURN(p, expr::Projection::Parse(*text, ph.names, &ph.used_names));
    projection = std::move(p);
  }
  if (select == "SPECIFIC_ATTRIBUTES" && !projection) {
    return Error::Validation("Must specify the ProjectionExpression when choosing to get "
                             "SPECIFIC_ATTRIBUTES");
  }
  RETURN_IF_ERROR(Resolve(s, head));
  const model::TableDescriptor& table = *head.table;
  const model::SecondaryIndex* ix = index::FindIndex(table, *index_name);
  // Troubleshooting vector indexes: "ValidationException: The table does not have the
  // specified index: <indexName>", and "Cannot search backfilling vector index: <indexName>".
  if (!ix || !ix->IsVector()) {
    return Error::Validation("The table does not have the specified index: " + *index_name);
  }
  if (ix->status == model::IndexStatus::kCreating) {
    return Error::Validation("Cannot search backfilling vector index: " + ix->name);
  }
  const model::VectorIndexSettings& vs = *ix->vector;
  // Its values first, then its length (the same capture: a one-element vector of a list is
  // refused for its value).
  auto query = index::VectorOf(model::AttributeValue::OfList(search),
                               static_cast<uint32_t>(search.size()));
  if (!query) {
    return Error::Validation("Search vector contains invalid values. All values in the search "
                             "vector must be a 32-bit floating-point number attribute");
  }
  if (search.size() != vs.dimensions) {
    return Error::Validation("Input search vector dimension " + std::to_string(search.size()) +
                             " does not match vector index dimension " +
                             std::to_string(vs.dimensions));
  }
  SearchCondition condition;
  if (condition_text) {
    ASSIGN_OR_RETURN(parsed, ParseSearchCondition(*condition_text, *ix, ph));
    condition = std::move(parsed);
  }
  if (vs.has_hash && !condition.hash) {
    return Error::Validation("SearchConditionExpression must be provided when SearchSchema has "
                             "a HASH key");
  }
  RETURN_IF_ERROR(CheckPlaceholdersUsed(ph));
  // SearchVectorsInput.ProjectionExpression: "Only attributes projected into the vector index
  // can be retrieved."
  if (projection && ix->projection != model::ProjectionType::kAll) {
    std::vector<std::string> missing;
    for (const expr::Path& path : projection->paths()) {
      const std::string& name = path.front().name;
      if (!index::Projects(table, *ix, name) &&
          std::find(missing.begin(), missing.end(), name) == missing.end()) {
        missing.push_back(name);
      }
    }
    if (!missing.empty()) {
      return Error::Validation("One or more parameter values were invalid: Vector index " +
                               ix->name + " does not project " + JoinNames(missing));
    }
  }

  const vector::Metric metric = index::EngineMetric(vs.metric);
  const size_t k = static_cast<size_t>(*top_k);
  VectorRanker ranker(s, table, *ix, condition, std::move(*query), k);
  std::optional<std::vector<VectorCandidate>> ranked;
  // Large indexes by their graph when it is built (search_vectors_rank.h); a HASH partition of
  // at most --knn-exact-up-to entries exactly (vector::PlanKnn decides).
  std::shared_ptr<const ops::IndexGraph> graph =
      s.vector_graphs ? s.vector_graphs->Find(table, *ix) : nullptr;
  if (graph && graph->graph().size() > s.knn_exact_up_to) {
    // The graph's count of the HASH partition (as of its last update) plans the search.
    size_t matches = condition.hash ? graph->CountPrefix(ranker.lower(), SIZE_MAX)
                                    : graph->graph().size();
    ASSIGN_OR_RETURN(by_graph, ranker.ByGraph(*graph, matches, s.knn_exact_up_to));
    ranked = std::move(by_graph);
    if (ranked) s.vector_graphs->CountGraphSearch();
  }
  if (!ranked) {
    ASSIGN_OR_RETURN(exact, ranker.Exact());
    ranked = std::move(exact);
  }

  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  w.Key("SearchResults");
  w.StartArray();
  for (const VectorCandidate& cand : *ranked) {
    w.StartObject();
    w.Key("Item");
    WriteProjected(w, cand.item, projection);
    w.Key("Score");
    w.Double(vector::DynamoScoreOf(metric, cand.distance));
    w.EndObject();
  }
  w.EndArray();
  if (head.return_capacity && *head.return_capacity != "NONE") {
    // SearchVectorsOutput.ConsumedCapacity is a VectorCapacity. Chosen: the search vector's
    // bytes at float32 precision (the service's metering formula was not found).
    w.Key("ConsumedCapacity");
    w.StartObject();
    w.Key("VectorSearchRequestBytes");
    w.Double(4.0 * vs.dimensions);
    w.EndObject();
  }
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

}  // namespace ttlstore::api
