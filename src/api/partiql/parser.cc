#include "api/partiql/parser.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace ttlstore::api::partiql {
namespace {

// Words that cannot be an unquoted attribute or table name because the grammar needs them.
// (Quote a name that collides: "value".)
constexpr std::string_view kReserved[] = {
    "SELECT",  "FROM",    "WHERE",  "AND",    "OR",     "NOT",       "IN",     "IS",
    "BETWEEN", "MISSING", "NULL",   "TRUE",   "FALSE",  "SET",       "REMOVE", "VALUE",
    "VALUES",  "INTO",    "INSERT", "UPDATE", "DELETE", "RETURNING", "EXISTS", "ORDER"};

// Type names accepted after IS [NOT] (PartiQL's type names DynamoDB supports).
constexpr std::string_view kTypeNames[] = {"BOOLEAN", "BOOL",   "STRING",  "NUMERIC", "NUMBER",
                                           "DECIMAL", "INT",    "INTEGER", "FLOAT",   "DOUBLE",
                                           "BLOB",    "STRUCT", "TUPLE",   "LIST"};

// Nesting limit for parentheses and literals, so a hostile statement cannot exhaust the stack.
constexpr int kMaxDepth = 64;

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string At(Position p) { return std::to_string(p.line) + ":" + std::to_string(p.column); }

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : t_(std::move(tokens)) {}

  Result<Statement> Run() {
    Statement s;
    const Token& first = Peek();
    Status st;
    if (first.IsKeyword("SELECT")) {
      st = Select(s);
    } else if (first.IsKeyword("INSERT")) {
      st = Insert(s);
    } else if (first.IsKeyword("UPDATE")) {
      st = Update(s);
    } else if (first.IsKeyword("DELETE")) {
      st = Delete(s);
    } else if (first.IsKeyword("EXISTS")) {
      Next();
      RETURN_IF_ERROR(Expect("("));
      st = Select(s);
      if (st) st = Expect(")");
      s.kind = Statement::Kind::kExists;
    } else if ((first.IsKeyword("CREATE") || first.IsKeyword("DROP")) &&
               (Peek(1).IsKeyword("TABLE") || Peek(1).IsKeyword("INDEX"))) {
      // PartiQL's DDL parses, and DynamoDB then refuses it by name.
      return Error::Validation(std::string("Unsupported operation: ") +
                               (first.IsKeyword("CREATE") ? "Create" : "Drop") +
                               (Peek(1).IsKeyword("TABLE") ? "Table" : "Index"));
    } else {
      return Error::Validation(std::string(kMalformed) + "Expected data manipulation");
    }
    RETURN_IF_ERROR(st);
    if (Peek().IsPunct(";")) Next();
    if (Peek().kind != Token::Kind::kEnd) return Unexpected(Peek());
    s.parameter_count = params_;
    return s;
  }

 private:
  const Token& Peek(size_t ahead = 0) const { return t_[std::min(i_ + ahead, t_.size() - 1)]; }
  const Token& Next() {
    const Token& t = Peek();
    if (i_ < t_.size() - 1) ++i_;
    return t;
  }
  bool AcceptKeyword(std::string_view w) {
    if (!Peek().IsKeyword(w)) return false;
    Next();
    return true;
  }
  bool AcceptPunct(std::string_view p) {
    if (!Peek().IsPunct(p)) return false;
    Next();
    return true;
  }

  static Error Syntax(const std::string& what, Position p) {
    return Error::Validation(std::string(kMalformed) + what + " at " + At(p));
  }
  static Error Unexpected(const Token& t) { return Syntax("Unexpected " + Describe(t), t.pos); }
  Status ExpectKeyword(std::string_view w) {
    if (AcceptKeyword(w)) return Status::Ok();
    return Syntax("Expected " + std::string(w) + " but found " + Describe(Peek()), Peek().pos);
  }
  Status Expect(std::string_view p) {
    if (AcceptPunct(p)) return Status::Ok();
    return Syntax("Expected '" + std::string(p) + "' but found " + Describe(Peek()), Peek().pos);
  }

  static bool IsReserved(const Token& t) {
    for (std::string_view w : kReserved) {
      if (t.IsKeyword(w)) return true;
    }
    return false;
  }
  bool AtName() const {
    const Token& t = Peek();
    return t.kind == Token::Kind::kQuotedIdentifier ||
           (t.kind == Token::Kind::kIdentifier && !IsReserved(t));
  }

  Result<std::string> Name() {
    if (!AtName()) {
      return Syntax("Expected an identifier but found " + Describe(Peek()), Peek().pos);
    }
    const Token& t = Next();
    if (t.text.empty()) {
      return Error::Validation("Path component cannot be an empty string");
    }
    return t.text;
  }

  Result<expr::Path> Path() {
    expr::Path path;
    ASSIGN_OR_RETURN(first, Name());
    path.push_back({first, -1});
    while (true) {
      if (AcceptPunct(".")) {
        ASSIGN_OR_RETURN(member, Name());
        path.push_back({member, -1});
      } else if (Peek().IsPunct("[")) {
        Next();
        const Token& t = Next();
        if (t.kind == Token::Kind::kString) {
          path.push_back({t.text, -1});
        } else if (t.kind == Token::Kind::kNumber &&
                   std::all_of(t.text.begin(), t.text.end(), ::isdigit) && t.text.size() <= 9) {
          path.push_back({"", std::stoi(t.text)});
        } else {
          return Syntax("Expected a list index but found " + Describe(t), t.pos);
        }
        RETURN_IF_ERROR(Expect("]"));
      } else {
        return path;
      }
    }
  }

  Status Table(Statement& s) {
    ASSIGN_OR_RETURN(table, Name());
    s.table = std::move(table);
    if (AcceptPunct(".")) {
      ASSIGN_OR_RETURN(index, Name());
      s.index = std::move(index);
    }
    return Status::Ok();
  }

  Status Where(Statement& s) {
    if (!AcceptKeyword("WHERE")) return Status::Ok();
    ASSIGN_OR_RETURN(cond, Or(0));
    s.where = std::move(cond);
    return Status::Ok();
  }

  Status Select(Statement& s) {
    s.kind = Statement::Kind::kSelect;
    RETURN_IF_ERROR(ExpectKeyword("SELECT"));
    if (AcceptPunct("*")) {
      s.select_all = true;
    } else {
      std::set<std::string> names;
      do {
        const Token& t = Peek();
        if (t.kind == Token::Kind::kString || t.kind == Token::Kind::kNumber ||
            (t.kind == Token::Kind::kIdentifier && Peek(1).IsPunct("("))) {
          // A literal or a function (COUNT(*)) where an attribute path belongs.
          return Error::Validation("Unexpected path component at " + At(t.pos) + ":" +
                                   std::to_string(t.length));
        }
        ASSIGN_OR_RETURN(path, Path());
        std::string name = OutputName(path);
        if (!names.insert(name).second) {
          return Error::Validation("Duplicate identifiers in select clause: " + name);
        }
        s.projection.push_back(std::move(path));
      } while (AcceptPunct(","));
    }
    RETURN_IF_ERROR(ExpectKeyword("FROM"));
    RETURN_IF_ERROR(Table(s));
    RETURN_IF_ERROR(Where(s));
    if (AcceptKeyword("ORDER")) {
      RETURN_IF_ERROR(ExpectKeyword("BY"));
      do {
        OrderBy o;
        ASSIGN_OR_RETURN(path, Path());
        o.path = std::move(path);
        if (AcceptKeyword("DESC")) {
          o.descending = true;
        } else {
          AcceptKeyword("ASC");
        }
        s.order_by.push_back(std::move(o));
      } while (AcceptPunct(","));
    }
    return Status::Ok();
  }

  Status Insert(Statement& s) {
    s.kind = Statement::Kind::kInsert;
    Next();
    RETURN_IF_ERROR(ExpectKeyword("INTO"));
    RETURN_IF_ERROR(Table(s));
    RETURN_IF_ERROR(ExpectKeyword("VALUE"));
    if (!Peek().IsPunct("{")) {
      // The service parses any value here and then refuses what is not a struct.
      ASSIGN_OR_RETURN(ignored, Literal(0));
      (void)ignored;
      return Error::Validation(
          "Unsupported format in item expression. Please use struct format {...} to express "
          "item values for insert statement.");
    }
    ASSIGN_OR_RETURN(item, Literal(0));
    s.item = std::move(item);
    if (Peek().IsKeyword("RETURNING")) {
      return Error::Validation("RETURNING is not supported in INSERT");
    }
    return Status::Ok();
  }

  Status Update(Statement& s) {
    s.kind = Statement::Kind::kUpdate;
    Next();
    RETURN_IF_ERROR(Table(s));
    bool any = false;
    while (true) {
      if (AcceptKeyword("SET")) {
        do {
          Assignment a;
          ASSIGN_OR_RETURN(path, Path());
          a.path = std::move(path);
          RETURN_IF_ERROR(Expect("="));
          ASSIGN_OR_RETURN(value, Additive(0));
          a.value = std::move(value);
          s.set.push_back(std::move(a));
        } while (AcceptPunct(","));
      } else if (AcceptKeyword("REMOVE")) {
        do {
          ASSIGN_OR_RETURN(path, Path());
          s.remove.push_back(std::move(path));
        } while (AcceptPunct(","));
      } else {
        break;
      }
      any = true;
    }
    if (!any) return Syntax("Expected SET or REMOVE but found " + Describe(Peek()), Peek().pos);
    RETURN_IF_ERROR(Where(s));
    return ReturningClause(s);
  }

  Status Delete(Statement& s) {
    s.kind = Statement::Kind::kDelete;
    Next();
    RETURN_IF_ERROR(ExpectKeyword("FROM"));
    RETURN_IF_ERROR(Table(s));
    RETURN_IF_ERROR(Where(s));
    return ReturningClause(s);
  }

  Status ReturningClause(Statement& s) {
    if (!AcceptKeyword("RETURNING")) return Status::Ok();
    bool all = AcceptKeyword("ALL");
    bool modified = !all && AcceptKeyword("MODIFIED");
    bool old_image = AcceptKeyword("OLD");
    bool new_image = !old_image && AcceptKeyword("NEW");
    if ((!all && !modified) || (!old_image && !new_image) || !AcceptPunct("*")) {
      return Syntax("Expected '*' after ( MODIFIED | ALL ) ( NEW | OLD ) in RETURNING clause",
                    Peek().pos);
    }
    s.returning = all ? (old_image ? Returning::kAllOld : Returning::kAllNew)
                      : (old_image ? Returning::kModifiedOld : Returning::kModifiedNew);
    return Status::Ok();
  }

  // ---- conditions and operands (precedence: OR < AND < NOT < predicate < + - < primary)

  static Expr Binary(Expr::Kind kind, Expr l, Expr r, Position p) {
    Expr e;
    e.kind = kind;
    e.pos = p;
    e.args.push_back(std::move(l));
    e.args.push_back(std::move(r));
    return e;
  }

  Result<Expr> Or(int depth) {
    ASSIGN_OR_RETURN(l, And(depth));
    while (Peek().IsKeyword("OR")) {
      Position p = Next().pos;
      ASSIGN_OR_RETURN(r, And(depth));
      l = Binary(Expr::Kind::kOr, std::move(l), std::move(r), p);
    }
    return l;
  }

  Result<Expr> And(int depth) {
    ASSIGN_OR_RETURN(l, Not(depth));
    while (Peek().IsKeyword("AND")) {
      Position p = Next().pos;
      ASSIGN_OR_RETURN(r, Not(depth));
      l = Binary(Expr::Kind::kAnd, std::move(l), std::move(r), p);
    }
    return l;
  }

  Result<Expr> Not(int depth) {
    if (!Peek().IsKeyword("NOT")) return Predicate(depth);
    if (depth > kMaxDepth) return Syntax("Statement is nested too deeply", Peek().pos);
    Expr e;
    e.kind = Expr::Kind::kNot;
    e.pos = Next().pos;
    ASSIGN_OR_RETURN(inner, Not(depth + 1));
    e.args.push_back(std::move(inner));
    return e;
  }

  Result<Expr> Predicate(int depth) {
    ASSIGN_OR_RETURN(l, Additive(depth));
    const Token& t = Peek();
    static constexpr std::string_view kCompare[] = {"=", "<>", "!=", "<", "<=", ">", ">="};
    for (std::string_view op : kCompare) {
      if (!t.IsPunct(op)) continue;
      Position p = Next().pos;
      ASSIGN_OR_RETURN(r, Additive(depth));
      Expr e = Binary(Expr::Kind::kCompare, std::move(l), std::move(r), p);
      e.op = op == "!=" ? "<>" : std::string(op);
      return e;
    }
    bool negated = false;
    if (t.IsKeyword("NOT") && (Peek(1).IsKeyword("BETWEEN") || Peek(1).IsKeyword("IN"))) {
      Next();
      negated = true;
    }
    if (!negated && !Peek().IsKeyword("BETWEEN") && !Peek().IsKeyword("IN") &&
        !Peek().IsKeyword("IS")) {
      return l;
    }
    Expr e;
    e.pos = Peek().pos;
    e.negated = negated;
    e.args.push_back(std::move(l));
    if (AcceptKeyword("BETWEEN")) {
      e.kind = Expr::Kind::kBetween;
      ASSIGN_OR_RETURN(lo, Additive(depth));
      RETURN_IF_ERROR(ExpectKeyword("AND"));
      ASSIGN_OR_RETURN(hi, Additive(depth));
      e.args.push_back(std::move(lo));
      e.args.push_back(std::move(hi));
      return e;
    }
    if (AcceptKeyword("IN")) {
      e.kind = Expr::Kind::kIn;
      std::string close = AcceptPunct("[") ? "]" : "";
      if (close.empty()) {
        RETURN_IF_ERROR(Expect("("));
        close = ")";
      }
      if (!AcceptPunct(close)) {
        do {
          ASSIGN_OR_RETURN(member, Additive(depth));
          e.args.push_back(std::move(member));
        } while (AcceptPunct(","));
        RETURN_IF_ERROR(Expect(close));
      }
      return e;
    }
    if (AcceptKeyword("IS")) {
      e.kind = Expr::Kind::kIs;
      e.negated = AcceptKeyword("NOT");
      const Token& what = Next();
      std::string word = Upper(what.text);
      bool ok =
          what.kind == Token::Kind::kIdentifier &&
          (word == "MISSING" || word == "NULL" ||
           std::find(std::begin(kTypeNames), std::end(kTypeNames), word) != std::end(kTypeNames));
      if (!ok) return Syntax("Expected a type after IS but found " + Describe(what), what.pos);
      e.op = word;
      return e;
    }
    return Unexpected(Peek());  // unreachable: NOT is followed by BETWEEN or IN
  }

  Result<Expr> Additive(int depth) {
    ASSIGN_OR_RETURN(l, Primary(depth));
    while (Peek().IsPunct("+") || Peek().IsPunct("-")) {
      const Token& op = Next();
      std::string sign = op.text;
      ASSIGN_OR_RETURN(r, Primary(depth));
      l = Binary(Expr::Kind::kArith, std::move(l), std::move(r), op.pos);
      l.op = sign;
    }
    return l;
  }

  Result<Expr> Primary(int depth) {
    if (depth > kMaxDepth) return Syntax("Statement is nested too deeply", Peek().pos);
    const Token& t = Peek();
    Expr e;
    e.pos = t.pos;
    if (t.IsPunct("(")) {
      Next();
      ASSIGN_OR_RETURN(inner, Or(depth + 1));
      RETURN_IF_ERROR(Expect(")"));
      return inner;
    }
    if (t.kind == Token::Kind::kIdentifier && Peek(1).IsPunct("(") && !IsReserved(t)) {
      e.kind = Expr::Kind::kCall;
      std::string name = t.text;
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      e.op = name;
      Next();
      Next();
      if (!AcceptPunct(")")) {
        do {
          ASSIGN_OR_RETURN(arg, Or(depth + 1));
          e.args.push_back(std::move(arg));
        } while (AcceptPunct(","));
        RETURN_IF_ERROR(Expect(")"));
      }
      return e;
    }
    if (AtName()) {
      e.kind = Expr::Kind::kPath;
      ASSIGN_OR_RETURN(path, Path());
      e.path = std::move(path);
      return e;
    }
    e.kind = Expr::Kind::kValue;
    ASSIGN_OR_RETURN(value, Literal(depth));
    e.value = std::move(value);
    return e;
  }

  // A literal value (possibly a container) or a `?` parameter.
  Result<Value> Literal(int depth) {
    if (depth > kMaxDepth) return Syntax("Statement is nested too deeply", Peek().pos);
    const Token& t = Next();
    Value v;
    v.pos = t.pos;
    if (t.kind == Token::Kind::kString) {
      v.kind = Value::Kind::kString;
      v.text = t.text;
    } else if (t.kind == Token::Kind::kNumber) {
      v.kind = Value::Kind::kNumber;
      v.text = t.text;
    } else if (t.IsPunct("-") || t.IsPunct("+")) {
      const Token& n = Next();
      if (n.kind != Token::Kind::kNumber) return Unexpected(n);
      v.kind = Value::Kind::kNumber;
      v.text = (t.text == "-" ? "-" : "") + n.text;
    } else if (t.IsKeyword("TRUE") || t.IsKeyword("FALSE")) {
      v.kind = Value::Kind::kBool;
      v.boolean = t.IsKeyword("TRUE");
    } else if (t.IsKeyword("NULL")) {
      v.kind = Value::Kind::kNull;
    } else if (t.IsKeyword("MISSING")) {
      v.kind = Value::Kind::kMissing;
    } else if (t.IsPunct("?")) {
      v.kind = Value::Kind::kParameter;
      v.parameter = params_++;
    } else if (t.IsPunct("[") || t.IsPunct("<<")) {
      bool bag = t.IsPunct("<<");
      v.kind = bag ? Value::Kind::kBag : Value::Kind::kList;
      std::string close = bag ? ">>" : "]";
      if (!AcceptPunct(close)) {
        do {
          ASSIGN_OR_RETURN(element, Literal(depth + 1));
          v.elements.push_back(std::move(element));
        } while (AcceptPunct(","));
        RETURN_IF_ERROR(Expect(close));
      }
      if (bag && v.elements.empty()) return Error::Validation("Empty bags are not supported");
    } else if (t.IsPunct("{")) {
      v.kind = Value::Kind::kMap;
      if (!AcceptPunct("}")) {
        do {
          const Token& key = Next();
          if (key.kind != Token::Kind::kString) {
            if (key.kind == Token::Kind::kEnd || key.kind == Token::Kind::kPunct) {
              return Unexpected(key);
            }
            return Error::Validation(
                "Tuple keys must be of type String. Actual type: " +
                std::string(key.kind == Token::Kind::kNumber ? "Literal" : "VariableReference"));
          }
          if (std::find(v.keys.begin(), v.keys.end(), key.text) != v.keys.end()) {
            return Error::Validation("Duplicate keys in tuple. Key: " + key.text);
          }
          v.keys.push_back(key.text);
          RETURN_IF_ERROR(Expect(":"));
          ASSIGN_OR_RETURN(member, Literal(depth + 1));
          v.elements.push_back(std::move(member));
        } while (AcceptPunct(","));
        RETURN_IF_ERROR(Expect("}"));
      }
    } else {
      return Unexpected(t);
    }
    return v;
  }

  std::vector<Token> t_;
  size_t i_ = 0;
  int params_ = 0;
};

}  // namespace

Result<Statement> Parse(std::string_view text) {
  ASSIGN_OR_RETURN(tokens, Lex(text));
  return Parser(std::move(tokens)).Run();
}

std::string OutputName(const expr::Path& path) {
  std::string name;
  for (const auto& e : path) {
    if (e.is_index()) {
      name += "[" + std::to_string(e.index) + "]";
    } else {
      name = e.name;
    }
  }
  return name;
}

}  // namespace ttlstore::api::partiql
