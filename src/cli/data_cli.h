// `ttlstore export` and `ttlstore import`: DynamoDB's export to S3 and import from S3, from the
// command line, in the same files and layout as ExportTableToPointInTime and ImportTable
// (backup/table_export.h, backup/table_import.h), with a progress bar.
//
// Each works two ways:
// - `--endpoint URL`: through a running server (or any DynamoDB endpoint): one signed call
//   (client/dynamodb_client.h, http or https), then DescribeExport / DescribeImport polled until
//   the job ends.
// - `--data-dir D` (the default, ./ttlstore-data): on the data dir itself. `export` reads a
//   read-only view of it, so it works while a server runs on it; `import` writes it, so the
//   server must be stopped. The "S3" folder is --export-dir (default <data-dir>/s3), as the
//   server's.
// Exit codes: 0 the job completed, 1 it failed or was refused (the reason on stderr), 2 a usage
// error.
#pragma once

#include "backup/table_export.h"
#include "backup/table_import.h"

namespace CLI {
class App;
}

namespace ttlstore::cli {

// The DynamoDB JSON codecs, which live in api/ (the JSON library stays there).
struct DataCodecs {
  backup::JsonLineDecoder json_lines;
  backup::ExportLineFormat export_lines;
};

// Adds the `export` and `import` subcommands to `app`; when one runs, its exit code goes to
// *exit_code.
void AddDataCommands(CLI::App& app, int* exit_code, DataCodecs codecs);

}  // namespace ttlstore::cli
