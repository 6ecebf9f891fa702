#pragma once
/// @file cli.hpp
/// The `kioku` command line: serve, tools, call, doctor, version, and the commands plugins
/// contribute (e.g. ingest, hook). Start-up failures print one line and exit non-zero.

#include <iosfwd>

namespace kioku::host::cli {

/// Runs the CLI. `proto_out_fd` is the real stdout (main points fd 1 at stderr so a stray
/// print cannot corrupt the stdio protocol); command output goes through it.
int Run(int argc, char** argv, int proto_out_fd);

}  // namespace kioku::host::cli
