// The DynamoDB JSON lines of an export (backup/table_export.h asks api/ for them: RapidJSON
// stays here). A full export's line is `{"Item":{...}}`, as the developer guide's "DynamoDB
// table export output format" shows; an incremental export's is
// `{"Metadata":{"WriteTimeEpochMicros":"<µs>"},"Keys":{...},"OldImage":{...},"NewImage":{...}}`
// (docs/formats.md, "Export to S3", says where each member comes from).
#pragma once

#include <cstdint>
#include <string>

#include "backup/table_export.h"
#include "model/attribute_value.h"

namespace ttlstore::api {

std::string ExportItemJsonLine(const model::Item& item);
std::string ExportChangeJsonLine(int64_t write_micros, const model::Item& keys,
                                 const model::Item* old_image, const model::Item* new_image);

// Both, as backup::Exports takes them.
backup::ExportLineFormat ExportJsonLines();

}  // namespace ttlstore::api
