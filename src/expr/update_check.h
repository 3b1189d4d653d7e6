// The semantic checks DynamoDB applies to an UpdateExpression once it has parsed, in the
// service's order of precedence (each is reported only if no earlier kind exists anywhere):
//   1. bare reserved words            "Attribute name is a reserved keyword; ..."
//   2. unknown functions              "Invalid function name; function: size"
//   3. a clause used twice            "The "SET" section can only be used once in an update
//                                      expression;"
//   4. undefined #names, then 5. undefined :values
//   6. overlapping target paths, then 7. conflicting ones ([a, b] vs [a, [1]])
//   8. ADD/DELETE :values of the wrong type
//        "Incorrect operand type for operator or function; operator: ADD, operand type: STRING"
//   9. function misuse: operand counts, if_not_exists without a path, list_append / + / - on
//      :values of the wrong type.
// (Precedence as observed by dynalite's tests against DynamoDB.)
#pragma once

#include "common/result.h"
#include "expr/placeholders.h"
#include "expr/update_parser.h"

namespace ttlstore::expr {

// Checks `parsed` and resolves its placeholders in place. Errors are
// "Invalid UpdateExpression: ...".
Status CheckUpdate(ParsedUpdate* parsed, Placeholders& ph);

}  // namespace ttlstore::expr
