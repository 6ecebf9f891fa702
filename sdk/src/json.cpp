#include "kioku/sdk/json.hpp"

namespace kioku::sdk {

std::string DumpJson(const Json& value, int indent) {
  // error_handler_t::replace turns invalid UTF-8 into U+FFFD instead of throwing
  // type_error 316: tool text often comes from files and transcripts we do not control.
  return value.dump(indent, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace);
}

std::size_t DumpedSizeBound(const Json& value) {
  switch (value.type()) {
    case Json::value_t::string:
      return 6 * value.get_ref<const std::string&>().size() + 2;
    case Json::value_t::array: {
      std::size_t n = 2;
      for (const Json& e : value) n += DumpedSizeBound(e) + 1;
      return n;
    }
    case Json::value_t::object: {
      std::size_t n = 2;
      for (auto it = value.begin(); it != value.end(); ++it) n += 6 * it.key().size() + 4 + DumpedSizeBound(it.value());
      return n;
    }
    case Json::value_t::binary:  // {"bytes":[…],"subtype":…}
      return 4 * value.get_binary().size() + 64;
    default:
      return 32;
  }
}

}  // namespace kioku::sdk
