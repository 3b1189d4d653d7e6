// The replicator's readers of a remote endpoint's answers and of its own checkpoint file: the
// bounded JSON parse (client/json.h), a GetRecords page reduced to writes (CollapseRecords),
// the CreateTable request built from a DescribeTable answer, the stream-view check, and the
// checkpoint decoder. Any bytes: no crash, no unbounded recursion, no undefined behaviour.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <boost/json.hpp>

#include "cli/replicate_checkpoint.h"
#include "cli/replicate_target.h"
#include "cli/replicate_writer.h"
#include "client/json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)ttlstore::cli::ReplicateCheckpoint::Decode(text);
  auto doc = ttlstore::client::ParseJson(text);
  if (!doc) return 0;
  if (const auto* records = ttlstore::client::Member(*doc, "Records"); records && records->is_array()) {
    (void)ttlstore::cli::CollapseRecords(records->as_array());
  }
  if (const auto* table = ttlstore::client::Member(*doc, "Table"); table && table->is_object()) {
    (void)boost::json::serialize(ttlstore::cli::CreateTableRequestFrom(table->as_object(), "t"));
    std::string why;
    (void)ttlstore::cli::NewImageStreamViewType(table->as_object(), &why);
  }
  return 0;
}
