// The mapping from the engine's Error to the Tablestore protocol's (status, code, message).
#pragma once

#include "common/error.h"
#include "tablestore/ots_error.h"

namespace ttlstore::tablestore {

OtsError ToOtsError(const Error& error);

OtsError ParameterInvalid(std::string message);

}  // namespace ttlstore::tablestore
