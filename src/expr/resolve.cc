#include "expr/resolve.h"

#include "expr/projection.h"

namespace ttlstore::expr {
namespace {

std::string Base64(const std::string& bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    uint32_t n = (static_cast<unsigned char>(bytes[i]) << 16) |
                 (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                 static_cast<unsigned char>(bytes[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out += kAlphabet[(n >> s) & 63];
  }
  if (i < bytes.size()) {
    uint32_t n = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) n |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(n >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

void NoteUndefined(UndefinedRefs* u, bool is_value, const std::string& ref) {
  std::optional<std::string>& slot = is_value ? u->value : u->name;
  if (slot) return;
  if (!u->any())
    u->first_message = is_value ? UndefinedValueMessage(ref) : UndefinedNameMessage(ref);
  slot = ref;
}

}  // namespace

std::string UndefinedNameMessage(const std::string& name) {
  return "An expression attribute name used in the document path is not defined; attribute "
         "name: " +
         name;
}

std::string UndefinedValueMessage(const std::string& value) {
  return "An expression attribute value used in expression is not defined; attribute value: " +
         value;
}

namespace {

// ResolveOperand for a :value or a path.
void ResolveLeaf(Operand* op, Placeholders& ph, UndefinedRefs* undefined) {
  switch (op->kind) {
    case Operand::Kind::kValue: {
      auto it = ph.values.find(op->name);
      if (it == ph.values.end()) {
        NoteUndefined(undefined, true, op->name);
        return;
      }
      ph.used_values.insert(it->first);
      op->value = it->second;
      op->resolved = true;
      return;
    }
    case Operand::Kind::kPath: {
      op->path.clear();
      op->resolved = true;
      for (const RawElement& e : op->raw) {
        if (e.kind == RawElement::Kind::kIndex) {
          op->path.push_back({"", e.index});
        } else if (e.kind == RawElement::Kind::kName) {
          op->path.push_back({e.text, -1});
        } else {
          auto it = ph.names.find(e.text);
          if (it == ph.names.end()) {
            NoteUndefined(undefined, false, e.text);
            op->resolved = false;
            op->path.push_back({"", -1});
            continue;
          }
          ph.used_names.insert(it->first);
          op->path.push_back({it->second, -1});
        }
      }
      return;
    }
    case Operand::Kind::kCall:
      return;
  }
}

}  // namespace

void ResolveOperand(Operand* op, Placeholders& ph, UndefinedRefs* undefined) {
  // Arguments in textual order, without recursing (calls nest as deep as 4 KB allows).
  std::vector<Operand*> pending = {op};
  while (!pending.empty()) {
    Operand* o = pending.back();
    pending.pop_back();
    if (!o->is_call()) {
      ResolveLeaf(o, ph, undefined);
      continue;
    }
    for (auto it = o->args.rbegin(); it != o->args.rend(); ++it) pending.push_back(&*it);
  }
}

void ForEachCall(const Operand& op, const std::function<void(const Operand&)>& f) {
  if (!op.is_call()) return;
  // (call, index of the next argument to visit)
  std::vector<std::pair<const Operand*, size_t>> stack = {{&op, 0}};
  while (!stack.empty()) {
    const Operand* call = stack.back().first;
    size_t next = stack.back().second;
    if (next < call->args.size()) {
      ++stack.back().second;
      const Operand& arg = call->args[next];
      if (arg.is_call()) stack.push_back({&arg, 0});
      continue;
    }
    stack.pop_back();
    f(*call);
  }
}

std::optional<std::string> FirstReservedName(const Operand& op) {
  // Depth first, in textual order, without recursing.
  std::vector<const Operand*> pending = {&op};
  while (!pending.empty()) {
    const Operand* o = pending.back();
    pending.pop_back();
    if (o->is_call()) {
      for (auto it = o->args.rbegin(); it != o->args.rend(); ++it) pending.push_back(&*it);
      continue;
    }
    for (const RawElement& e : o->raw) {
      if (e.kind == RawElement::Kind::kName && IsReservedWord(e.text)) return e.text;
    }
  }
  return std::nullopt;
}

std::optional<std::string> StaticType(const Operand& op) {
  if (op.is_call()) {
    switch (op.function) {
      case Function::kSize:
        return "N";
      case Function::kBeginsWith:
      case Function::kContains:
      case Function::kAttributeType:
        return "BOOL";
      default:
        return std::nullopt;
    }
  }
  return ImmediateType(op);
}

std::optional<std::string> ImmediateType(const Operand& op) {
  if (!op.is_value() || !op.resolved) return std::nullopt;
  return std::string(model::TypeName(op.value.type()));
}

std::string RenderPath(const Operand& op) { return PathToString(op.path); }

std::string RenderValue(const model::AttributeValue& v) {
  std::string out = std::string(model::TypeName(v.type())) + ":";
  switch (v.type()) {
    case model::ValueType::kS:
    case model::ValueType::kN:
      return out + v.scalar();
    case model::ValueType::kB:
      return out + Base64(v.scalar());
    case model::ValueType::kBool:
      return out + (v.boolean() ? "true" : "false");
    case model::ValueType::kNull:
      return out + "true";
    case model::ValueType::kSS:
    case model::ValueType::kNS:
    case model::ValueType::kBS: {
      out += "[";
      for (size_t i = 0; i < v.set().size(); ++i) {
        if (i) out += ", ";
        out += v.type() == model::ValueType::kBS ? Base64(v.set()[i]) : v.set()[i];
      }
      return out + "]";
    }
    case model::ValueType::kL:
      return out + "[...]";
    case model::ValueType::kM:
      return out + "{...}";
  }
  return out;
}

}  // namespace ttlstore::expr
