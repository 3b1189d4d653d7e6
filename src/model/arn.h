// A DynamoDB table's ARN, arn:aws:dynamodb:<region>:<account>:table/<name>, built in one place:
// the API's responses (TableArn, and the stream, backup, import and export ARNs under it) and the
// policy checks that match resources against it.
#pragma once

#include <string>
#include <string_view>

namespace ttlstore::model {

// What a server answers as its region and account unless told otherwise (and what the command
// line tools write into backup files, which have no server to ask).
inline constexpr char kDefaultRegion[] = "us-east-1";
inline constexpr char kDefaultAccountId[] = "000000000000";

// "arn:aws:dynamodb:<region>:<account>:table/": every table ARN of this server starts so.
inline std::string TableArnPrefix(std::string_view region, std::string_view account_id) {
  std::string arn = "arn:aws:dynamodb:";
  arn += region;
  arn += ':';
  arn += account_id;
  arn += ":table/";
  return arn;
}

inline std::string TableArn(std::string_view region, std::string_view account_id,
                            std::string_view table_name) {
  std::string arn = TableArnPrefix(region, account_id);
  arn += table_name;
  return arn;
}

}  // namespace ttlstore::model
