// The command line of rule T13: `ttlstore alter -t mytable --ttl 86400 --version 1` changes a
// table's options and `ttlstore describe -t mytable` shows them, both talking to a running
// server over the Tablestore protocol.
#pragma once

namespace CLI {
class App;
}

namespace ttlstore::cli {

// Adds the `alter` and `describe` subcommands to `app`; when one of them runs, its exit code
// goes to *exit_code.
void AddTablestoreCommands(CLI::App& app, int* exit_code);

}  // namespace ttlstore::cli
