// `ttlstore backup` and `ttlstore restore`: on-demand backups from the command line, with a
// progress bar. `backup` reads a data dir even while a server serves it (a read-only view);
// `restore` writes, so the server must be stopped (through a running server, use the API's
// RestoreTableFromBackup). Both use the backup files of backup/backup_file.h, so a file written
// by one is listed and restorable by the other.
#pragma once

namespace CLI {
class App;
}

namespace ttlstore::cli {

// Adds the `backup` and `restore` subcommands to `app`; when one runs, its exit code goes to
// *exit_code.
void AddBackupCommands(CLI::App& app, int* exit_code);

}  // namespace ttlstore::cli
