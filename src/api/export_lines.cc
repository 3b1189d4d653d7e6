#include "api/export_lines.h"

#include <rapidjson/stringbuffer.h>

#include "api/item_common.h"
#include "api/json_value.h"

namespace ttlstore::api {

std::string ExportItemJsonLine(const model::Item& item) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  w.Key("Item");
  WriteItem(w, item);
  w.EndObject();
  return Finish(buf);
}

std::string ExportChangeJsonLine(int64_t write_micros, const model::Item& keys,
                                 const model::Item* old_image, const model::Item* new_image) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  w.Key("Metadata");
  w.StartObject();
  w.Key("WriteTimeEpochMicros");
  WriteString(w, std::to_string(write_micros));
  w.EndObject();
  w.Key("Keys");
  WriteItem(w, keys);
  if (old_image) {
    w.Key("OldImage");
    WriteItem(w, *old_image);
  }
  if (new_image) {
    w.Key("NewImage");
    WriteItem(w, *new_image);
  }
  w.EndObject();
  return Finish(buf);
}

backup::ExportLineFormat ExportJsonLines() {
  return {&ExportItemJsonLine, &ExportChangeJsonLine};
}

}  // namespace ttlstore::api
