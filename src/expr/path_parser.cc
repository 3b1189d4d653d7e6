#include "expr/path_parser.h"

#include "expr/projection.h"

namespace ttlstore::expr {
namespace {

// One name step: a bare word that is not a keyword, or a #placeholder.
Result<RawElement> ParseName(const TokenStream& ts, size_t* pos, std::string_view kind,
                             KeywordTest is_keyword) {
  const TokenKind k = ts.at(*pos).kind;
  if (k == TokenKind::kNameRef) return RawElement::NameRef(std::string(ts.TextOf((*pos)++)));
  if (k == TokenKind::kName && !is_keyword(ts, *pos)) {
    return RawElement::Name(std::string(ts.TextOf((*pos)++)));
  }
  return ts.SyntaxError(kind, *pos);
}

}  // namespace

Error InvalidExpression(std::string_view kind, std::string_view message) {
  return Error::Validation("Invalid " + std::string(kind) + ": " + std::string(message));
}

Status CheckExpressionText(std::string_view text, std::string_view kind) {
  if (text.size() > kMaxExpressionBytes) {
    // The service quotes the size for conditions only: a real UpdateExpression error reads
    // "...maximum allowed size;" with nothing after (aws/aws-sdk-java-v2#4597), and DynamoDB
    // Local, which shares the service's expression front end, adds "expression size: N" for
    // Condition, Filter and KeyCondition expressions but not for Update and Projection ones.
    std::string message = "Expression size has exceeded the maximum allowed size;";
    if (kind != "UpdateExpression" && kind != "ProjectionExpression") {
      message += " expression size: " + std::to_string(text.size());
    }
    return InvalidExpression(kind, message);
  }
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return InvalidExpression(kind, "The expression can not be empty;");
  }
  return Status::Ok();
}

Result<std::vector<RawElement>> ParseRawPath(const TokenStream& ts, size_t* pos,
                                             std::string_view kind, KeywordTest is_keyword) {
  std::vector<RawElement> path;
  ASSIGN_OR_RETURN(first, ParseName(ts, pos, kind, is_keyword));
  path.push_back(std::move(first));
  RETURN_IF_ERROR(ParsePathTail(ts, pos, kind, is_keyword, &path));
  return path;
}

Status ParsePathTail(const TokenStream& ts, size_t* pos, std::string_view kind,
                     KeywordTest is_keyword, std::vector<RawElement>* path) {
  while (true) {
    const TokenKind k = ts.at(*pos).kind;
    if (k == TokenKind::kDot) {
      ++*pos;
      ASSIGN_OR_RETURN(name, ParseName(ts, pos, kind, is_keyword));
      path->push_back(std::move(name));
    } else if (k == TokenKind::kLBracket) {
      ++*pos;
      if (ts.at(*pos).kind != TokenKind::kNumber) return ts.SyntaxError(kind, *pos);
      std::string_view digits = ts.TextOf(*pos);
      // An int holds 9 digits safely; DynamoDB's own list limit is far below that anyway.
      if (digits.size() > 9) {
        return InvalidExpression(kind, "List index is not within the allowable range; index: [" +
                                           std::string(digits) + "]");
      }
      int index = std::stoi(std::string(digits));
      ++*pos;
      if (ts.at(*pos).kind != TokenKind::kRBracket) return ts.SyntaxError(kind, *pos);
      ++*pos;
      path->push_back(RawElement::Index(index));
    } else {
      break;
    }
  }
  if (path->size() > kMaxPathDepth) {
    return InvalidExpression(kind,
                             "The document path has too many nesting levels; nesting "
                             "levels: " +
                                 std::to_string(path->size()));
  }
  return Status::Ok();
}

}  // namespace ttlstore::expr
