// The Ion item reader of ImportTable (dataio/ion_item.h) on hostile bytes: never a crash, never
// deeper than its nesting bound; an item it accepts formats to a line that reads back as the
// same item (so the exporter and the importer agree on everything the reader takes).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "dataio/ion_item.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto item = ttlstore::dataio::ParseIonItemLine(text);
  if (!item) return 0;
  auto again = ttlstore::dataio::ParseIonItemLine(ttlstore::dataio::FormatIonItemLine(*item));
  if (!again || !(*again == *item)) std::abort();
  return 0;
}
