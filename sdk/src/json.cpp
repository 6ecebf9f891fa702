#include "kioku/sdk/json.hpp"

namespace kioku::sdk {

std::string DumpJson(const Json& value, int indent) {
  // error_handler_t::replace turns invalid UTF-8 into U+FFFD instead of throwing
  // type_error 316: tool text often comes from files and transcripts we do not control.
  return value.dump(indent, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace);
}

}  // namespace kioku::sdk
