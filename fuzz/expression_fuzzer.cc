// The expression parsers (condition, update, projection, key condition): the input is split at
// the first NUL bytes into the expression and what the placeholders resolve to; any bytes in,
// never a crash, a hang or a leak.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "expr/condition.h"
#include "expr/key_condition.h"
#include "expr/placeholders.h"
#include "expr/projection.h"
#include "expr/update.h"

using namespace ttlstore;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  if (in.empty()) return 0;
  uint8_t which = static_cast<uint8_t>(in[0]) % 4;
  std::string_view text = in.substr(1);
  expr::Placeholders ph;
  ph.names = {{"#a", "a"}, {"#b", "b.c"}, {"#k", "pk"}};
  ph.values = {{":n", model::AttributeValue::Num("1")},
               {":s", model::AttributeValue::String("x")},
               {":l", model::AttributeValue::String("y")}};
  switch (which) {
    case 0: (void)expr::Condition::Parse(text, "ConditionExpression", ph); break;
    case 1: (void)expr::Update::Parse(text, ph); break;
    case 2: (void)expr::Projection::Parse(text, ph.names, &ph.used_names); break;
    case 3: {
      model::KeySchema schema;
      schema.hash = {"pk", model::ValueType::kS};
      schema.range = model::KeyElement{"sk", model::ValueType::kN};
      (void)expr::KeyCondition::Parse(text, schema, ph);
      break;
    }
  }
  return 0;
}
