// Update: parse (update_parser.cc), check and resolve (update_check.cc), then apply here.
//
// Apply follows DynamoDB's rules:
//  - Every SET value is computed from the item as it was before the update ("SET a = b, b = a"
//    swaps), so all values are computed before anything is written.
//  - SET on a nested path needs its parent to exist with the right type (a map for a member, a
//    list for an element); SET past the end of a list appends.
//  - REMOVE of a missing member or element is a no-op, but its parent must exist. List elements
//    are removed by their original positions ("REMOVE l[1], l[2]" drops both original
//    elements), so removals run last, highest index first.
//  - ADD creates a missing number or set; DELETE of a missing attribute is a no-op; a set that
//    DELETE empties is removed.
#include "expr/update.h"

#include <algorithm>

#include "expr/path_parser.h"
#include "expr/update_check.h"
#include "expr/value_ops.h"
#include "model/number.h"

namespace ttlstore::expr {

struct Update::Node {
  std::vector<UpdateAction> actions;
};

namespace {

using model::AttributeValue;
using model::ValueType;
using ActionKind = UpdateAction::Kind;

constexpr char kInvalidPath[] =
    "The document path provided in the update expression is invalid for update";
constexpr char kMissingAttribute[] =
    "The provided expression refers to an attribute that does not exist in the item";
constexpr char kWrongType[] = "An operand in the update expression has an incorrect data type";

// Where the last step of a path lives: a member of a map (the item itself at the top level) or
// an element of a list.
class Slot {
 public:
  static Slot Member(model::Map* map, std::string name) {
    return Slot(map, nullptr, std::move(name), 0);
  }
  static Slot Element(model::List* list, size_t index) { return Slot(nullptr, list, "", index); }

  AttributeValue* Get() const {
    if (map_) {
      auto it = map_->find(name_);
      return it == map_->end() ? nullptr : &it->second;
    }
    return index_ < list_->size() ? &(*list_)[index_] : nullptr;
  }
  // Past the end of a list, Put appends.
  void Put(AttributeValue v) const {
    if (map_)
      (*map_)[name_] = std::move(v);
    else if (index_ < list_->size())
      (*list_)[index_] = std::move(v);
    else
      list_->push_back(std::move(v));
  }
  void Erase() const {
    if (map_)
      map_->erase(name_);
    else if (index_ < list_->size())
      list_->erase(list_->begin() + static_cast<ptrdiff_t>(index_));
  }

 private:
  Slot(model::Map* map, model::List* list, std::string name, size_t index)
      : map_(map), list_(list), name_(std::move(name)), index_(index) {}

  model::Map* map_;
  model::List* list_;
  std::string name_;
  size_t index_;
};

// Finds the slot for `path`; every step before the last must exist with the right type.
Result<Slot> Locate(model::Item* item, const Path& path) {
  if (path.size() == 1) return Slot::Member(item, path[0].name);
  auto top = item->find(path[0].name);
  if (top == item->end()) return Error::Validation(kInvalidPath);
  AttributeValue* v = &top->second;
  for (size_t i = 1; i + 1 < path.size(); ++i) {
    const PathElement& e = path[i];
    if (e.is_index()) {
      if (v->type() != ValueType::kL || static_cast<size_t>(e.index) >= v->list().size()) {
        return Error::Validation(kInvalidPath);
      }
      v = &v->mutable_list()[e.index];
    } else {
      if (v->type() != ValueType::kM) return Error::Validation(kInvalidPath);
      auto it = v->mutable_map().find(e.name);
      if (it == v->mutable_map().end()) return Error::Validation(kInvalidPath);
      v = &it->second;
    }
  }
  const PathElement& last = path.back();
  if (last.is_index()) {
    if (v->type() != ValueType::kL) return Error::Validation(kInvalidPath);
    return Slot::Element(&v->mutable_list(), static_cast<size_t>(last.index));
  }
  if (v->type() != ValueType::kM) return Error::Validation(kInvalidPath);
  return Slot::Member(&v->mutable_map(), last.name);
}

Result<AttributeValue> EvalOperand(const Operand& op, const model::Item& item) {
  switch (op.kind) {
    case Operand::Kind::kValue:
      return op.value;
    case Operand::Kind::kPath: {
      const AttributeValue* v = FindPath(item, op.path);
      if (!v) return Error::Validation(kMissingAttribute);
      return *v;
    }
    case Operand::Kind::kCall:
      break;
  }
  if (op.function == Function::kIfNotExists) {
    // if_not_exists(a, if_not_exists(b, ...)) nests 240 deep in 4 KB: followed in a loop.
    const Operand* o = &op;
    while (o->is_call() && o->function == Function::kIfNotExists) {
      if (const AttributeValue* v = FindPath(item, o->args[0].path)) return *v;
      o = &o->args[1];
    }
    return EvalOperand(*o, item);
  }
  // list_append(a, b): both lists; either may be a path, a :value or another function.
  ASSIGN_OR_RETURN(a, EvalOperand(op.args[0], item));
  if (a.type() != ValueType::kL) return Error::Validation(kWrongType);
  ASSIGN_OR_RETURN(b, EvalOperand(op.args[1], item));
  if (b.type() != ValueType::kL) return Error::Validation(kWrongType);
  model::List joined = a.list();
  joined.insert(joined.end(), b.list().begin(), b.list().end());
  return AttributeValue::OfList(std::move(joined));
}

Result<model::Number> AsNumber(const AttributeValue& v) {
  if (v.type() != ValueType::kN) return Error::Validation(kWrongType);
  return model::Number::Parse(v.scalar());
}

Result<AttributeValue> EvalSetValue(const SetValue& value, const model::Item& item) {
  ASSIGN_OR_RETURN(a, EvalOperand(value.operands[0], item));
  if (value.kind == SetValue::Kind::kOperand) return a;
  ASSIGN_OR_RETURN(x, AsNumber(a));
  ASSIGN_OR_RETURN(b, EvalOperand(value.operands[1], item));
  ASSIGN_OR_RETURN(y, AsNumber(b));
  ASSIGN_OR_RETURN(sum, value.kind == SetValue::Kind::kPlus ? x.Add(y) : x.Subtract(y));
  return AttributeValue::Num(sum.ToString());
}

// ADD: a number is added, a set gets the new members; a missing attribute is created.
Status ApplyAdd(const Slot& slot, const AttributeValue& operand) {
  AttributeValue* existing = slot.Get();
  if (!existing) {
    slot.Put(operand);
    return Status::Ok();
  }
  if (existing->type() != operand.type()) return Error::Validation(kWrongType);
  if (operand.type() == ValueType::kN) {
    ASSIGN_OR_RETURN(x, model::Number::Parse(existing->scalar()));
    ASSIGN_OR_RETURN(y, model::Number::Parse(operand.scalar()));
    ASSIGN_OR_RETURN(sum, x.Add(y));
    *existing = AttributeValue::Num(sum.ToString());
    return Status::Ok();
  }
  // Set members are canonical, so equal members have equal text (also for NS).
  std::vector<std::string> members = existing->set();
  for (const std::string& m : operand.set()) {
    if (std::find(members.begin(), members.end(), m) == members.end()) members.push_back(m);
  }
  *existing = AttributeValue::Set(operand.type(), std::move(members));
  return Status::Ok();
}

// DELETE: removes members from a set; an emptied set disappears.
Status ApplyDelete(const Slot& slot, const AttributeValue& operand) {
  AttributeValue* existing = slot.Get();
  if (!existing) return Status::Ok();
  if (existing->type() != operand.type()) return Error::Validation(kWrongType);
  std::vector<std::string> members;
  for (const std::string& m : existing->set()) {
    if (std::find(operand.set().begin(), operand.set().end(), m) == operand.set().end()) {
      members.push_back(m);
    }
  }
  if (members.empty())
    slot.Erase();
  else
    *existing = AttributeValue::Set(operand.type(), std::move(members));
  return Status::Ok();
}

// Orders REMOVE paths so that, within one list, higher indexes go first.
bool RemoveFirst(const Path& a, const Path& b) {
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (a[i].is_index() && b[i].is_index() && a[i].index != b[i].index)
      return a[i].index > b[i].index;
    if (a[i].name != b[i].name) return a[i].name > b[i].name;
  }
  return a.size() > b.size();
}

}  // namespace

Result<Update> Update::Parse(std::string_view text, Placeholders& ph, bool generated) {
  if (!generated) RETURN_IF_ERROR(CheckExpressionText(text, "UpdateExpression"));
  TokenStream ts(text);
  ASSIGN_OR_RETURN(parsed, ParseUpdateSyntax(ts));
  RETURN_IF_ERROR(CheckUpdate(&parsed, ph));
  Update u;
  for (const UpdateAction& a : parsed.actions) u.targets_.push_back(a.target.path);
  u.root_ = std::make_shared<const Node>(Node{std::move(parsed.actions)});
  return u;
}

Status Update::Apply(model::Item* item) const {
  if (!root_) return Status::Ok();
  const std::vector<UpdateAction>& actions = root_->actions;
  // 1. Every SET value, from the item as it was.
  std::vector<AttributeValue> values(actions.size());
  // AttributeUpdates' wording for a type that does not fit (UseLegacyWording).
  auto worded = [&](Error e) -> Error {
    if (legacy_ && e.message() == kWrongType) {
      return Error::Validation("Type mismatch for attribute to update");
    }
    return e;
  };
  for (size_t i = 0; i < actions.size(); ++i) {
    if (actions[i].kind != ActionKind::kSet) continue;
    auto v = EvalSetValue(actions[i].value, *item);
    if (!v) return worded(std::move(v).error());
    values[i] = std::move(*v);
  }
  // 2. SET, ADD and DELETE in expression order (their paths never overlap), except SETs of list
  // elements, last and by element number: one past a list's end is appended, and several are
  // appended "sorted in order by element number" (the developer guide, "SET—modifying or adding
  // item attributes"; ScyllaDB's Alternator test_nested_attribute_update_array_out_of_bounds).
  std::vector<size_t> order;
  std::vector<size_t> elements;
  for (size_t i = 0; i < actions.size(); ++i) {
    const Path& path = actions[i].target.path;
    const bool element = actions[i].kind == ActionKind::kSet && !path.empty() &&
                         path.back().is_index();
    (element ? elements : order).push_back(i);
  }
  std::stable_sort(elements.begin(), elements.end(), [&](size_t x, size_t y) {
    return actions[x].target.path.back().index < actions[y].target.path.back().index;
  });
  order.insert(order.end(), elements.begin(), elements.end());
  std::vector<const Path*> removals;
  for (size_t i : order) {
    const UpdateAction& a = actions[i];
    if (a.kind == ActionKind::kRemove) {
      removals.push_back(&a.target.path);
      continue;
    }
    ASSIGN_OR_RETURN(slot, Locate(item, a.target.path));
    Status applied = Status::Ok();
    if (a.kind == ActionKind::kSet)
      slot.Put(std::move(values[i]));
    else if (a.kind == ActionKind::kAdd)
      applied = ApplyAdd(slot, a.operand.value);
    else
      applied = ApplyDelete(slot, a.operand.value);
    if (!applied) return worded(std::move(applied).error());
  }
  // 3. REMOVE, by original list positions.
  std::sort(removals.begin(), removals.end(),
            [](const Path* a, const Path* b) { return RemoveFirst(*a, *b); });
  for (const Path* path : removals) {
    ASSIGN_OR_RETURN(slot, Locate(item, *path));
    slot.Erase();
  }
  return Status::Ok();
}

}  // namespace ttlstore::expr
