// Replicator: the two phases of `ttlstore replicate` over a checkpoint (cli/replicate_checkpoint.h).
//
//   NoteStreamPosition  before anything is copied, the stream's position: every shard that is
//                       closed is finished (all its changes precede the copy); every open shard
//                       is read to its current end and its last sequence number kept. Saved.
//   Copy                a parallel Scan (one thread per segment, ConsistentRead so that no
//                       change older than the position is missed), each page written to the
//                       target with BatchWriteItem, then its LastEvaluatedKey saved.
//   Stream              from the position on, GetRecords shard by shard, parents before
//                       children (cli/shard_lineage.h), each page applied (cli/replicate_writer.h)
//                       before its last sequence number is saved; until stopped.
//
// Why the target converges: the copy reads every item at or after the position; a change after
// the position is applied after the copy; a change the copy already saw may be applied again,
// but then so is every later change of its key, in order (per key, one shard at a time, parent
// before child). A restart from any saved checkpoint repeats work, never skips it.
#pragma once

#include <atomic>
#include <mutex>
#include <string>

#include "cli/replicate_checkpoint.h"
#include "cli/replicate_status.h"
#include "client/dynamodb_client.h"
#include "common/result.h"

namespace ttlstore::cli {

struct ReplicateContext {
  client::ClientOptions source;          // DynamoDB API of the source
  client::ClientOptions source_streams;  // its Streams API
  client::ClientOptions target;
  std::string source_table;
  std::string target_table;
  std::string checkpoint_path;
  int scan_limit = 0;  // Scan's Limit per page; 0: the service's 1 MB pages
  const std::atomic<bool>* stop = nullptr;
  ReplicateStats* stats = nullptr;

  std::mutex mu;
  ReplicateCheckpoint checkpoint;  // GUARDED_BY(mu)

  // Saves the checkpoint (takes mu).
  Status Save();
};

// Fills checkpoint.shards with the stream's current position (see above).
Status NoteStreamPosition(ReplicateContext& ctx);

// Runs (or resumes) the copy with checkpoint.segments; sets copy_done when every segment is.
// Returns early, with the checkpoint saved, when *stop becomes true.
Status RunCopy(ReplicateContext& ctx);

// Applies the stream until *stop; the checkpoint is saved at most every second and on return.
Status RunStream(ReplicateContext& ctx);

}  // namespace ttlstore::cli
