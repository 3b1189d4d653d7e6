// `ttlstore replicate --from URL --to URL --table T [--to-table T2]`: copies a table between two
// DynamoDB-API endpoints with no downtime and keeps the copy current from the source's stream
// until stopped (SIGINT/SIGTERM: a clean stop with a checkpoint). See cli/replicator.h for how,
// docs/scaling.md for why, docs/background-jobs.md for the checkpoint.
//
// Exit codes: 0 stopped by a signal (the checkpoint is saved), 1 a failure during the run,
// 2 bad flags or URL, 3 a precondition the user must fix (source table missing, no stream with
// new images, a checkpoint of another replication, a target of another key schema).
#pragma once

namespace CLI {
class App;
}

namespace ttlstore::cli {

void AddReplicateCommand(CLI::App& app, int* exit_code);

}  // namespace ttlstore::cli
