#include <stdexcept>

#include "cli/commands.hpp"

namespace kioku::host::cli {

int ServeHttp(Loaded&, mcp::Dispatcher&, const std::string& listen, int) {
  throw std::runtime_error("HTTP transport for " + listen + " is not built into this binary yet");
}

}  // namespace kioku::host::cli
