// kioku entry point: keep the real stdout for the protocol, send everything else to stderr.
#include <unistd.h>

#include "cli/cli.hpp"

int main(int argc, char** argv) {
  const int proto_out = ::dup(STDOUT_FILENO);
  ::dup2(STDERR_FILENO, STDOUT_FILENO);
  return kioku::host::cli::Run(argc, argv, proto_out);
}
