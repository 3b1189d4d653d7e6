#include "api/stream_spec.h"

#include <algorithm>
#include <optional>

#include "api/request.h"
#include "streams/stream_names.h"

namespace ttlstore::api {
namespace {

constexpr char kInvalid[] = "One or more parameter values were invalid: ";

std::optional<model::StreamViewType> ParseViewType(const std::string& s) {
  if (s == "KEYS_ONLY") return model::StreamViewType::kKeysOnly;
  if (s == "NEW_IMAGE") return model::StreamViewType::kNewImage;
  if (s == "OLD_IMAGE") return model::StreamViewType::kOldImage;
  if (s == "NEW_AND_OLD_IMAGES") return model::StreamViewType::kNewAndOldImages;
  return std::nullopt;
}

}  // namespace

const char* StreamViewTypeName(model::StreamViewType type) {
  switch (type) {
    case model::StreamViewType::kKeysOnly: return "KEYS_ONLY";
    case model::StreamViewType::kNewImage: return "NEW_IMAGE";
    case model::StreamViewType::kOldImage: return "OLD_IMAGE";
    case model::StreamViewType::kNewAndOldImages: return "NEW_AND_OLD_IMAGES";
  }
  return "KEYS_ONLY";
}

Status ApplyStreamSpecification(const JsonValue& spec, bool on_create,
                                model::TableDescriptor* table, int64_t now_ms) {
  if (!spec.IsObject()) return Error::Serialization("Unexpected field type");
  ASSIGN_OR_RETURN(enabled, OptBool(spec, "StreamEnabled"));
  ASSIGN_OR_RETURN(view_name, OptString(spec, "StreamViewType"));
  Constraints c;
  c.NotNull("streamSpecification.streamEnabled", enabled.has_value());
  c.Enum("streamSpecification.streamViewType", view_name,
         {"NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES", "KEYS_ONLY"});
  if (!c.ok()) return c.ToError();
  std::optional<model::StreamViewType> view =
      view_name ? ParseViewType(*view_name) : std::nullopt;

  if (on_create) {
    if (*enabled && !view) {
      return Error::Validation(std::string(kInvalid) +
                               "Table is being created with a stream enabled, UpdateViewType is "
                               "required");
    }
    if (!*enabled && view) {
      return Error::Validation(std::string(kInvalid) +
                               "Table is being created with a stream disabled, UpdateViewType "
                               "should not be specified");
    }
  } else {
    if (*enabled && !view) {
      return Error::Validation(std::string(kInvalid) +
                               "If stream is being enabled then UpdateViewType is required");
    }
    if (!*enabled && view) {
      return Error::Validation(std::string(kInvalid) +
                               "If stream is being disabled, then UpdateViewType must not be "
                               "specified");
    }
    if (*enabled && table->enabled_stream()) {
      return Error::Validation("Table already has an enabled stream: TableName: " + table->name);
    }
    if (!*enabled && !table->enabled_stream()) {
      return Error::Validation("Table has no stream to disable: TableName: " + table->name);
    }
  }

  if (*enabled) {
    model::StreamInfo st;
    st.created_ms = now_ms;
    if (!table->streams.empty()) {
      st.created_ms = std::max(now_ms, table->streams.back().created_ms + 1);
    }
    st.view_type = *view;
    table->streams.push_back(st);
  } else if (!on_create) {
    table->streams.back().disabled_ms = std::max(now_ms, table->streams.back().created_ms);
  }
  // Streams disabled longer than the retention period are gone (their records are trimmed);
  // the latest one (maybe just added) is kept so that DescribeTable still names it, as the service does.
  if (table->streams.size() > 1) {
    auto expired = [&](const model::StreamInfo& st) {
      return st.disabled_ms != 0 && st.disabled_ms + streams::kRetentionMs < now_ms;
    };
    table->streams.erase(
        std::remove_if(table->streams.begin(), table->streams.end() - 1, expired),
        table->streams.end() - 1);
  }
  return Status::Ok();
}

}  // namespace ttlstore::api
