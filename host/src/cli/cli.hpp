#pragma once
/// @file cli.hpp
/// The `kioku` command line: serve, tools, call, doctor, version, and the commands plugins
/// contribute (e.g. ingest, hook). Start-up failures print one line and exit non-zero.

#include <iosfwd>

namespace kioku::host::cli {

/// Runs the CLI. `proto_out_fd` is the real stdout (main points fd 1 at stderr so a stray
/// print cannot corrupt the stdio protocol); command output goes through it.
int Run(int argc, char** argv, int proto_out_fd);

/// Lets a one-shot command (`kioku call`, `kioku context`, plugin commands) keep its runtime
/// for the process's end instead of tearing it down (EndOneShot, load.hpp). For main only,
/// which then ends with std::_Exit when OneShotKept(); tests and embedders tear down.
void AllowExitWithoutTeardown();
/// Whether a one-shot command kept its runtime for the process's end.
bool OneShotKept();

}  // namespace kioku::host::cli
