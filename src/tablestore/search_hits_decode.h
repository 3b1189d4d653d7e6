// The SearchQuery options that shape the hits rather than choose them: Highlight and Collapse
// (issue 32), turned into the engine's structs (search/query.h). Pure; the engine checks them
// against the index (search/highlight.h, search/collapse.h).
#pragma once

#include <string>

#include "common/result.h"
#include "search/query.h"
#include "tablestore/search.pb.h"

namespace ttlstore::tablestore {

// Highlight: each HighlightParameter with the service's defaults for what it leaves out
// (fragment_size 100, tags <em> and </em>, TEXT_SEQUENCE, the PLAIN encoder: its
// "HighlightParameter" page) and number_of_fragments 5 (Chosen: Elasticsearch's default).
Result<search::HighlightSpec> DecodeHighlight(const otssearchpb::Highlight& highlight);

// Collapse: the field to collapse by (required).
Result<std::string> DecodeCollapse(const otssearchpb::Collapse& collapse);

}  // namespace ttlstore::tablestore
