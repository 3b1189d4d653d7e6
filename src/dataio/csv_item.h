// A CSV import record as an item. The developer guide ("Amazon S3 import formats"): the first
// line is the header unless the request gives a HeaderList; "all columns other than the hash
// range and keys of your base table and secondary indexes are imported as DynamoDB strings".
// So key attributes take the type their AttributeDefinition gives (N parsed as a number, B as
// base64) and every other column is S. Chosen where the guide is silent: an empty cell of a
// non-key column leaves the attribute out (CSV cannot tell an empty string from no value, and
// an export of a sparse table writes empty cells), an empty key cell is an error.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/result.h"
#include "model/attribute_value.h"

namespace ttlstore::dataio {

// `key_types`: the attributes of the table's and its indexes' keys, by name, with their types
// (kS, kN or kB). Errors (for the import's log): a record whose field count differs from the
// header's, a bad number or base64 in a key column, an empty key cell, text that is not UTF-8.
Result<model::Item> CsvRecordToItem(const std::vector<std::string>& header,
                                    const std::vector<std::string>& fields,
                                    const std::map<std::string, model::ValueType>& key_types);

}  // namespace ttlstore::dataio
