// OtsError: an error as the Tablestore protocol reports it: an HTTP status and a protobuf Error
// body with the service's code string and message (tablestore-protocol.md section 3).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ttlstore::tablestore {

struct OtsError {
  int http_status = 400;
  std::string code;
  std::string message;
};

// Longest piece of a request (a name, a date, an action) echoed into an error message. The
// service echoes such pieces whole; a request may carry megabytes of one, and each error is also
// a log line, so longer pieces are cut here and end in "...".
inline constexpr size_t kMaxEchoBytes = 1024;

inline std::string EchoForError(std::string_view s) {
  if (s.size() <= kMaxEchoBytes) return std::string(s);
  std::string out(s.substr(0, kMaxEchoBytes));
  out += "...";
  return out;
}

}  // namespace ttlstore::tablestore
