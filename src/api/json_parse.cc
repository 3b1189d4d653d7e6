#include "api/json_parse.h"

#include <rapidjson/encodedstream.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

namespace ttlstore::api {
namespace {

// Forwards every SAX event to the document that is being built, and refuses the event that
// would open one level more than allowed (a handler returning false stops the reader at once).
class DepthLimitedHandler {
 public:
  DepthLimitedHandler(rapidjson::Document& doc, int max_depth) : doc_(doc), max_depth_(max_depth) {}

  bool too_deep() const { return too_deep_; }

  bool Null() { return doc_.Null(); }
  bool Bool(bool b) { return doc_.Bool(b); }
  bool Int(int i) { return doc_.Int(i); }
  bool Uint(unsigned i) { return doc_.Uint(i); }
  bool Int64(int64_t i) { return doc_.Int64(i); }
  bool Uint64(uint64_t i) { return doc_.Uint64(i); }
  bool Double(double d) { return doc_.Double(d); }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool copy) {
    return doc_.RawNumber(s, n, copy);
  }
  bool String(const char* s, rapidjson::SizeType n, bool copy) { return doc_.String(s, n, copy); }
  bool Key(const char* s, rapidjson::SizeType n, bool copy) { return doc_.Key(s, n, copy); }
  bool StartObject() { return Open() && doc_.StartObject(); }
  bool EndObject(rapidjson::SizeType members) {
    --depth_;
    return doc_.EndObject(members);
  }
  bool StartArray() { return Open() && doc_.StartArray(); }
  bool EndArray(rapidjson::SizeType elements) {
    --depth_;
    return doc_.EndArray(elements);
  }

 private:
  bool Open() {
    if (++depth_ <= max_depth_) return true;
    too_deep_ = true;
    return false;
  }

  rapidjson::Document& doc_;
  const int max_depth_;
  int depth_ = 0;
  bool too_deep_ = false;
};

}  // namespace

JsonParse ParseJson(std::string_view text, rapidjson::Document* doc, int max_depth) {
  rapidjson::MemoryStream bytes(text.data(), text.size());
  rapidjson::EncodedInputStream<rapidjson::UTF8<>, rapidjson::MemoryStream> in(bytes);
  DepthLimitedHandler handler(*doc, max_depth);
  bool ok = false;
  // Populate hands the document's own SAX interface to the generator and, if it returns true,
  // moves the one value the parse left on the document's stack into the document.
  auto generate = [&](rapidjson::Document&) {
    rapidjson::Reader reader;
    ok = !reader.Parse<rapidjson::kParseIterativeFlag>(in, handler).IsError();
    return ok;
  };
  doc->Populate(generate);
  if (ok) return JsonParse::kOk;
  doc->SetNull();
  return handler.too_deep() ? JsonParse::kTooDeep : JsonParse::kInvalid;
}

}  // namespace ttlstore::api
