// Shard lineage for the stream phase of `ttlstore replicate`: which shards may be read now.
// Changes to one key move from a parent shard to its child (DynamoDB splits and rolls shards
// over; ttlstore rolls its one open shard over), so a child is read only after its parent has
// been read to its end: every record of a key is then applied in the order it was written
// [DynamoDB developer guide, "Reading and processing a stream": process a parent shard before
// its children]. Siblings, and shards whose parents are done, are independent.
//
// Pure functions over the shards DescribeStream lists and the checkpoint's states.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cli/replicate_checkpoint.h"

namespace ttlstore::cli {

struct ListedShard {
  std::string id;
  std::string parent;         // "" if none
  std::string starting_seq;   // StartingSequenceNumber
  std::string ending_seq;     // "" while the shard is open
  bool closed() const { return !ending_seq.empty(); }
};

struct ShardPlan {
  // Unfinished shards whose parent is finished, unknown or gone, in DescribeStream's order.
  std::vector<std::string> ready;
  // Shards the checkpoint had not finished but the stream no longer lists (trimmed while the
  // replicator was stopped): their unapplied changes are lost.
  std::vector<std::string> lost;
};

// `states`: the checkpoint's shards (a listed shard absent from it is new: read from
// TRIM_HORIZON once its parent is done).
ShardPlan PlanShards(const std::vector<ListedShard>& listed,
                     const std::map<std::string, ShardState>& states);

// Numeric order of two decimal sequence numbers (as strings of digits, any length).
int CompareSequenceNumbers(const std::string& a, const std::string& b);

}  // namespace ttlstore::cli
