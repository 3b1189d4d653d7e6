// The mapping from the engine's Error to the Tablestore protocol's (status, code, message).
#pragma once

#include <string_view>

#include "common/error.h"
#include "tablestore/ots_error.h"

namespace ttlstore::tablestore {

OtsError ToOtsError(const Error& error);

OtsError ParameterInvalid(std::string message);

// A not-found or already-exists error whose message starts with this keeps its own message
// (a search index's, not the table's "Requested table does not exist.").
inline constexpr std::string_view kSearchIndexMessagePrefix = "Search index ";

// A validation error whose message starts with this is the service's 400 OTSMetaNotMatch (a
// missing search index in ComputeSplits) with the rest of the message.
inline constexpr std::string_view kMetaNotMatchPrefix = "OTSMetaNotMatch:";

}  // namespace ttlstore::tablestore
