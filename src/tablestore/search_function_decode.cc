// Function-score queries from the wire (see search_function_decode.h). Values are checked
// against the index's fields by the engine (search/function_score.h); here only what the
// messages themselves say is checked. Texts are Chosen (docs/tablestore.md, "Function score
// queries").
#include "tablestore/search_function_decode.h"

#include "search/geo.h"
#include "tablestore/ots_error.h"
#include "tablestore/search_shapes.h"

namespace ttlstore::tablestore {
namespace {

namespace pb = ::ttlstore::otssearchpb;
using search::Query;
using search::ScoreFunction;

template <typename Message>
Status Parse(std::string_view bytes, Message* m) {
  RETURN_IF_ERROR(CheckWire(bytes, WireShapeOf(*m)));
  if (!m->ParsePartialFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return Error::Validation(std::string(kParseFailedMessage));
  }
  return Status::Ok();
}

Error Invalid(std::string m) { return Error::Validation(std::move(m)); }

Result<ScoreFunction::Modifier> ModifierOf(pb::FunctionModifier m) {
  using M = ScoreFunction::Modifier;
  switch (m) {
    case pb::FM_NONE: return M::kNone;
    case pb::FM_LOG: return M::kLog;
    case pb::FM_LOG1P: return M::kLog1p;
    case pb::FM_LOG2P: return M::kLog2p;
    case pb::FM_LN: return M::kLn;
    case pb::FM_LN1P: return M::kLn1p;
    case pb::FM_LN2P: return M::kLn2p;
    case pb::FM_SQUARE: return M::kSquare;
    case pb::FM_SQRT: return M::kSqrt;
    case pb::FM_RECIPROCAL: return M::kReciprocal;
  }
  return Invalid("Invalid function modifier: " + std::to_string(int(m)) + ".");
}

// A DateTimeValue in milliseconds: units up to a day (the Java SDK's DecayFuncDateParam: "The
// largest supported time unit is DateTimeUnit.DAY").
Result<double> Millis(const pb::DateTimeValue& v, std::string_view what) {
  if (!v.has_value() || !v.has_unit()) {
    return Invalid("[decay_function] " + std::string(what) + " needs a value and a unit");
  }
  double unit = 0;
  switch (v.unit()) {
    case pb::DAY: unit = 86400000; break;
    case pb::HOUR: unit = 3600000; break;
    case pb::MINUTE: unit = 60000; break;
    case pb::SECOND: unit = 1000; break;
    case pb::MILLISECOND: unit = 1; break;
    default:
      return Invalid("[decay_function] the unit of " + std::string(what) + " must be at most "
                     "DAY, but was " + pb::DateTimeUnit_Name(v.unit()));
  }
  return double(v.value()) * unit;
}

Status DecodeDecay(const pb::DecayFunction& d, ScoreFunction* out) {
  out->kind = ScoreFunction::Kind::kDecay;
  out->field = d.field_name();
  if (d.has_math_function()) {
    switch (d.math_function()) {
      case pb::GAUSS: out->decay_kind = ScoreFunction::Decay::kGauss; break;
      case pb::EXP: out->decay_kind = ScoreFunction::Decay::kExp; break;
      case pb::LINEAR: out->decay_kind = ScoreFunction::Decay::kLinear; break;
    }
  }
  if (d.has_decay()) out->decay = d.decay();
  // multi_value_mode chooses among an array's values: the engine refuses decay functions on
  // array fields, so every mode gives the one value.
  if (!d.has_param_type() || !d.has_param()) {
    return Invalid("[decay_function] param_type and param must be set");
  }
  switch (d.param_type()) {
    case pb::DF_NUMERIC_PARAM: {
      pb::DecayFuncNumericParam p;
      RETURN_IF_ERROR(Parse(d.param(), &p));
      if (!p.has_origin() || !p.has_scale()) {
        return Invalid("[decay_function] DecayFuncNumericParam needs origin and scale");
      }
      out->origin = p.origin();
      out->scale = p.scale();
      out->offset = p.has_offset() ? p.offset() : 0;
      return Status::Ok();
    }
    case pb::DF_DATE_PARAM: {
      pb::DecayFuncDateParam p;
      RETURN_IF_ERROR(Parse(d.param(), &p));
      out->decay_date = true;
      if (p.has_origin_string()) {
        return Invalid("[decay_function] origin_string is not supported by ttlstore (it parses "
                       "no date strings): give origin_long");
      }
      if (!p.has_origin_long() || !p.has_scale()) {
        return Invalid("[decay_function] DecayFuncDateParam needs origin_long and scale");
      }
      // origin_long is a timestamp in nanoseconds (the Java SDK's DecayFuncDateParam); Date
      // fields hold milliseconds here.
      out->origin = double(p.origin_long()) / 1e6;
      ASSIGN_OR_RETURN(scale, Millis(p.scale(), "scale"));
      out->scale = scale;
      if (p.has_offset()) {
        ASSIGN_OR_RETURN(offset, Millis(p.offset(), "offset"));
        out->offset = offset;
      }
      return Status::Ok();
    }
    case pb::DF_GEO_PARAM: {
      pb::DecayFuncGeoParam p;
      RETURN_IF_ERROR(Parse(d.param(), &p));
      if (!p.has_origin() || !p.has_scale()) {
        return Invalid("[decay_function] DecayFuncGeoParam needs origin and scale");
      }
      // "lat,lon", as every geo point the protocol carries (GeoDistanceQuery's center_point).
      std::optional<search::GeoPoint> origin = search::ParseGeoPoint(p.origin());
      if (!origin) {
        return Invalid("[decay_function] origin:" + p.origin() + " is not a geo point");
      }
      out->decay_geo = true;
      out->geo_lat = origin->lat;
      out->geo_lon = origin->lon;
      out->origin = 0;
      out->scale = p.scale();
      out->offset = p.has_offset() ? p.offset() : 0;
      return Status::Ok();
    }
  }
  return Invalid("Invalid decay param_type.");
}

Result<ScoreFunction> DecodeFunction(const pb::Function& f, const SubQueryDecoder& sub) {
  ScoreFunction out;
  int kinds = f.has_field_value_factor() + f.has_random() + f.has_decay();
  if (kinds > 1) {
    return Invalid("A score function sets at most one of field_value_factor, decay and random.");
  }
  if (f.has_weight()) out.weight = f.weight();
  if (f.has_filter()) {
    ASSIGN_OR_RETURN(filter, sub(f.filter()));
    out.filter.push_back(std::move(filter));
  }
  if (f.has_field_value_factor()) {
    const auto& v = f.field_value_factor();
    out.kind = ScoreFunction::Kind::kFieldValueFactor;
    out.field = v.field_name();
    if (v.has_factor()) out.factor = v.factor();
    if (v.has_modifier()) {
      ASSIGN_OR_RETURN(m, ModifierOf(v.modifier()));
      out.modifier = m;
    }
    if (v.has_missing()) out.missing = v.missing();
  } else if (f.has_random()) {
    out.kind = ScoreFunction::Kind::kRandom;
  } else if (f.has_decay()) {
    RETURN_IF_ERROR(DecodeDecay(f.decay(), &out));
  }
  return out;
}

}  // namespace

Result<Query> DecodeFunctionScoreQuery(std::string_view body, const SubQueryDecoder& sub) {
  pb::FunctionScoreQuery m;
  RETURN_IF_ERROR(Parse(body, &m));
  if (!m.has_query()) return Invalid("[function_score_query] query must not be null");
  if (!m.has_field_value_factor() || m.field_value_factor().field_name().empty()) {
    return Invalid("[function_score_query] field_value_factor must not be null");
  }
  Query out;
  out.kind = Query::Kind::kFunctionScore;
  ASSIGN_OR_RETURN(inner, sub(m.query()));
  out.must.push_back(std::move(inner));
  // The query's score times the field's value: a field value factor of factor 1, multiplied.
  ScoreFunction f;
  f.kind = ScoreFunction::Kind::kFieldValueFactor;
  f.field = m.field_value_factor().field_name();
  out.functions.push_back(std::move(f));
  return out;
}

Result<Query> DecodeFunctionsScoreQuery(std::string_view body, const SubQueryDecoder& sub) {
  pb::FunctionsScoreQuery m;
  RETURN_IF_ERROR(Parse(body, &m));
  if (!m.has_query()) return Invalid("[functions_score_query] query must not be null");
  Query out;
  out.kind = Query::Kind::kFunctionScore;
  ASSIGN_OR_RETURN(inner, sub(m.query()));
  out.must.push_back(std::move(inner));
  using Mode = Query::FunctionScoreOptions::ScoreMode;
  using Combine = Query::FunctionScoreOptions::CombineMode;
  auto& o = out.function_score;
  if (m.has_score_mode()) {
    switch (m.score_mode()) {
      case pb::FSM_AVG: o.score_mode = Mode::kAvg; break;
      case pb::FSM_MAX: o.score_mode = Mode::kMax; break;
      case pb::FSM_SUM: o.score_mode = Mode::kSum; break;
      case pb::FSM_MIN: o.score_mode = Mode::kMin; break;
      case pb::FSM_MULTIPLY: o.score_mode = Mode::kMultiply; break;
      case pb::FSM_FIRST: o.score_mode = Mode::kFirst; break;
    }
  }
  if (m.has_combine_mode()) {
    switch (m.combine_mode()) {
      case pb::FCM_MULTIPLY: o.combine_mode = Combine::kMultiply; break;
      case pb::FCM_AVG: o.combine_mode = Combine::kAvg; break;
      case pb::FCM_MAX: o.combine_mode = Combine::kMax; break;
      case pb::FCM_SUM: o.combine_mode = Combine::kSum; break;
      case pb::FCM_MIN: o.combine_mode = Combine::kMin; break;
      case pb::FCM_REPLACE: o.combine_mode = Combine::kReplace; break;
    }
  }
  if (m.has_min_score()) o.min_score = m.min_score();
  if (m.has_max_score()) o.max_score = m.max_score();
  // The engine refuses more than kMaxScoreFunctions; the wire check bounds what is parsed.
  for (const auto& f : m.functions()) {
    ASSIGN_OR_RETURN(fn, DecodeFunction(f, sub));
    out.functions.push_back(std::move(fn));
  }
  return out;
}

}  // namespace ttlstore::tablestore
