// Recursive-descent parser for the PartiQL statements DynamoDB accepts
// (developer guide, "PartiQL statements for DynamoDB"):
//
//   statement  := (select | insert | update | delete | exists) [;]
//   select     := SELECT (* | path {, path}) FROM source [WHERE cond]
//                 [ORDER BY path [ASC|DESC] {, path [ASC|DESC]}]
//   source     := name [. name]                          (table, or table.index)
//   insert     := INSERT INTO name VALUE map
//   update     := UPDATE name (SET path = operand {, path = operand} | REMOVE path {, path})+
//                 [WHERE cond] [returning]
//   delete     := DELETE FROM name [WHERE cond] [returning]
//   exists     := EXISTS ( select )                      (ExecuteTransaction only)
//   returning  := RETURNING (ALL | MODIFIED) (OLD | NEW) *
//   cond       := cond OR cond | cond AND cond | NOT cond | ( cond )
//               | operand (= | <> | != | < | <= | > | >=) operand
//               | operand [NOT] BETWEEN operand AND operand
//               | operand [NOT] IN ( [ | ( ) operand {, operand} ( ] | ) )
//               | operand IS [NOT] (MISSING | NULL | type) | function ( args )
//   operand    := path | value | function ( args ) | operand (+ | -) operand
//   path       := name { . name | [ integer ] | [ 'string' ] }
//   name       := identifier | "quoted identifier"
//   value      := 'string' | [-]number | TRUE | FALSE | NULL | MISSING | ?
//               | [ value, ... ] | { 'key' : value, ... } | << value, ... >>
//
// Keywords are case-insensitive. Parse checks syntax and the shape of literals only (duplicate
// map keys, empty bags, duplicate SELECT names); translate.h checks meaning (functions, key
// conditions, operand types), because some of those checks need the table's key schema.
#pragma once

#include <string_view>

#include "api/partiql/ast.h"
#include "common/result.h"

namespace ttlstore::api::partiql {

// DynamoDB limit on a statement's length, in bytes (ExecuteStatement API reference).
inline constexpr size_t kMaxStatementBytes = 8192;

// Syntax errors are ValidationExceptions "Statement wasn't well formed, can't be processed: ...";
// a statement that does not start with SELECT, INSERT, UPDATE, DELETE or EXISTS is
// "... can't be processed: Expected data manipulation", as the service words it.
Result<Statement> Parse(std::string_view text);

// The attribute name a SELECT path is returned under: its last name step plus any list indexes
// after it ("a.b" -> "b", "l[1]" -> "l[1]"), as the service names projected values.
std::string OutputName(const expr::Path& path);

}  // namespace ttlstore::api::partiql
