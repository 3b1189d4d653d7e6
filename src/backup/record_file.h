// The small text files that keep the records of imports and exports across restarts
// (<data-dir>/imports/<id>.import, <data-dir>/exports/<id>.export): one "name=value" line per
// field, `\` escaping backslash and newline; replaced whole by write-to-temp, fsync and rename,
// so a crash leaves the old record or the new one, never a mix (docs/formats.md).
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "common/result.h"

namespace ttlstore::backup {

std::string EscapeRecordValue(const std::string& v);
std::string UnescapeRecordValue(std::string_view v);

// Replaces `dir`/`name` with `text` (temp file, fsync, rename).
Status SaveRecordFile(const std::string& dir, const std::string& name, const std::string& text);

// At start-up: creates `dir` if missing, deletes the temp files a crash left in it, and calls
// `each` with the path and text of every file named *`extension` (".import"), stopping at the
// first error `each` returns.
Status ForEachRecordFile(const std::string& dir, const std::string& extension,
                         const std::function<Status(const std::string& path,
                                                    const std::string& text)>& each);

}  // namespace ttlstore::backup
