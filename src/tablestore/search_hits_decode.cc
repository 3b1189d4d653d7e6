// Highlight and Collapse from the wire (see search_hits_decode.h).
#include "tablestore/search_hits_decode.h"

namespace ttlstore::tablestore {

namespace pb = ::ttlstore::otssearchpb;

Result<search::HighlightSpec> DecodeHighlight(const pb::Highlight& highlight) {
  search::HighlightSpec out;
  out.html = highlight.has_highlight_encoder() && highlight.highlight_encoder() == pb::HTML_MODE;
  for (const auto& p : highlight.highlight_parameters()) {
    search::HighlightSpec::Field f;
    f.name = p.field_name();
    if (p.has_number_of_fragments()) f.number_of_fragments = p.number_of_fragments();
    if (p.has_fragment_size()) f.fragment_size = p.fragment_size();
    if (p.has_pre_tag()) f.pre_tag = p.pre_tag();
    if (p.has_post_tag()) f.post_tag = p.post_tag();
    f.order_by_score = p.has_fragments_order() && p.fragments_order() == pb::SCORE;
    out.fields.push_back(std::move(f));
  }
  return out;
}

Result<std::string> DecodeCollapse(const pb::Collapse& collapse) {
  if (collapse.field_name().empty()) {
    return Error::Validation("[collapse] field_name must not be null");
  }
  return collapse.field_name();
}

}  // namespace ttlstore::tablestore
