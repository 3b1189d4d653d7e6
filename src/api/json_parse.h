// Bounded parsing of untrusted JSON: request bodies, pagination tokens, the policy file.
//
// RapidJSON's default parser recurses once per nesting level, so a 16 MB body of '[' (or an
// item nested a few hundred thousand levels deep) overflows any thread's stack and kills the
// server. ParseJson instead runs RapidJSON's iterative parser (kParseIterativeFlag: its own
// heap-allocated state stack, a constant call depth) behind a handler that counts the depth
// and gives up past `max_depth`. A document that parses is therefore at most max_depth deep,
// and the code that walks it afterwards (attribute-value decoding, Accept, rendering) may
// recurse over it safely: 1,000 levels of recursion fit a server thread's stack with a wide
// margin (kServerThreadStackBytes, common/thread.h).
#pragma once

#include <rapidjson/document.h>

#include <string_view>

namespace ttlstore::api {

// The deepest JSON accepted: objects and arrays nested 1,000 levels. Every valid DynamoDB request
// is far shallower: a document attribute is at most 32 levels (64 JSON levels, {"M": {...}} being
// two), inside a request that adds fewer than ten. Deeper bodies are refused like any other
// body the parser cannot read. 1,000 is the default maximum nesting depth of Jackson's
// StreamReadConstraints, the JSON parser of the JVM services, so an item nested up to ~495
// levels still reaches the service's own nesting check ("Nesting Levels have exceeded supported
// limits"), as it would on the service.
inline constexpr int kMaxJsonDepth = 1000;

enum class JsonParse {
  kOk,
  kInvalid,   // not JSON (syntax error, empty, trailing bytes)
  kTooDeep,   // nested deeper than max_depth; nothing past that depth was read
};

// Parses `text` into `doc` without recursion. On any outcome but kOk, `doc` is left null.
JsonParse ParseJson(std::string_view text, rapidjson::Document* doc, int max_depth = kMaxJsonDepth);

}  // namespace ttlstore::api
