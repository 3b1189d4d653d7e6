// ApplyStreamSpecification (CreateTable / UpdateTable rules) and the persistence of a table's
// streams in the catalog codec (tag 20).
#include <gtest/gtest.h>

#include "api/stream_spec.h"
#include "storage/catalog_codec.h"
#include "streams/stream_names.h"

namespace ttlstore::api {
namespace {

constexpr int64_t kNow = 1795335014523;

Status Apply(const char* json, bool on_create, model::TableDescriptor* t, int64_t now = kNow) {
  rapidjson::Document doc;
  doc.Parse(json);
  return ApplyStreamSpecification(doc, on_create, t, now);
}

std::string Message(const Status& s) { return s ? "" : s.error().message(); }

TEST(StreamSpecTest, CreateTableRules) {
  model::TableDescriptor t;
  t.name = "orders";
  EXPECT_EQ(Message(Apply(R"({"StreamEnabled":true})", true, &t)),
            "One or more parameter values were invalid: Table is being created with a stream "
            "enabled, UpdateViewType is required");
  EXPECT_EQ(Message(Apply(R"({"StreamEnabled":false,"StreamViewType":"KEYS_ONLY"})", true, &t)),
            "One or more parameter values were invalid: Table is being created with a stream "
            "disabled, UpdateViewType should not be specified");
  EXPECT_EQ(Message(Apply(R"({"StreamViewType":"KEYS_ONLY"})", true, &t)),
            "1 validation error detected: Value null at 'streamSpecification.streamEnabled' "
            "failed to satisfy constraint: Member must not be null");
  EXPECT_TRUE(t.streams.empty());
  EXPECT_TRUE(Apply(R"({"StreamEnabled":false})", true, &t).ok());
  EXPECT_TRUE(t.streams.empty());
  ASSERT_TRUE(Apply(R"({"StreamEnabled":true,"StreamViewType":"OLD_IMAGE"})", true, &t).ok());
  ASSERT_NE(t.enabled_stream(), nullptr);
  EXPECT_EQ(t.enabled_stream()->created_ms, kNow);
  EXPECT_EQ(t.enabled_stream()->view_type, model::StreamViewType::kOldImage);
}

TEST(StreamSpecTest, UpdateTableEnableDisableReenable) {
  model::TableDescriptor t;
  t.name = "orders";
  EXPECT_EQ(Message(Apply(R"({"StreamEnabled":false})", false, &t)),
            "Table has no stream to disable: TableName: orders");
  EXPECT_EQ(Message(Apply(R"({"StreamEnabled":true})", false, &t)),
            "One or more parameter values were invalid: If stream is being enabled then "
            "UpdateViewType is required");
  ASSERT_TRUE(Apply(R"({"StreamEnabled":true,"StreamViewType":"KEYS_ONLY"})", false, &t).ok());
  EXPECT_EQ(Message(Apply(R"({"StreamEnabled":true,"StreamViewType":"NEW_IMAGE"})", false, &t)),
            "Table already has an enabled stream: TableName: orders");
  EXPECT_EQ(Message(Apply(R"({"StreamEnabled":false,"StreamViewType":"NEW_IMAGE"})", false, &t)),
            "One or more parameter values were invalid: If stream is being disabled, then "
            "UpdateViewType must not be specified");
  ASSERT_TRUE(Apply(R"({"StreamEnabled":false})", false, &t).ok());
  EXPECT_EQ(t.enabled_stream(), nullptr);
  ASSERT_NE(t.latest_stream(), nullptr);
  EXPECT_EQ(t.latest_stream()->disabled_ms, kNow);
  // Re-enabled in the same millisecond: a new, later label.
  ASSERT_TRUE(Apply(R"({"StreamEnabled":true,"StreamViewType":"NEW_IMAGE"})", false, &t).ok());
  ASSERT_EQ(t.streams.size(), 2u);
  EXPECT_EQ(t.streams[1].created_ms, kNow + 1);
  // A stream disabled more than 24 hours ago is forgotten at the next change.
  ASSERT_TRUE(Apply(R"({"StreamEnabled":false})", false, &t, kNow + 2).ok());
  ASSERT_TRUE(Apply(R"({"StreamEnabled":true,"StreamViewType":"KEYS_ONLY"})", false, &t,
                    kNow + streams::kRetentionMs + 10).ok());
  ASSERT_EQ(t.streams.size(), 1u);
  EXPECT_EQ(t.streams[0].created_ms, kNow + streams::kRetentionMs + 10);
}

TEST(StreamSpecTest, StreamsSurviveTheCatalogCodec) {
  model::TableDescriptor t;
  t.id = 3;
  t.name = "orders";
  t.key.hash = {"pk", model::ValueType::kS};
  t.streams.push_back({kNow, model::StreamViewType::kNewImage, kNow + 5, std::nullopt});
  t.streams.push_back({kNow + 9, model::StreamViewType::kNewAndOldImages, 0, std::nullopt});
  auto back = storage::DecodeTableDescriptor(storage::EncodeTableDescriptor(t));
  ASSERT_TRUE(back);
  ASSERT_EQ(back->streams.size(), 2u);
  EXPECT_EQ(back->streams[0].disabled_ms, kNow + 5);
  EXPECT_EQ(back->streams[0].view_type, model::StreamViewType::kNewImage);
  ASSERT_NE(back->enabled_stream(), nullptr);
  EXPECT_EQ(back->enabled_stream()->created_ms, kNow + 9);
  // A descriptor written before streams existed has none.
  t.streams.clear();
  back = storage::DecodeTableDescriptor(storage::EncodeTableDescriptor(t));
  ASSERT_TRUE(back);
  EXPECT_TRUE(back->streams.empty());
}

}  // namespace
}  // namespace ttlstore::api
