#pragma once
/// @file logging.hpp
/// The process logger: spdlog to stderr only (stdout belongs to the stdio transport).

#include <memory>
#include <string>

#include "kioku/sdk/host.hpp"

namespace kioku::host {

/// Sets the global level from "debug" | "info" | "warn" | "error" | "off". Throws
/// std::invalid_argument on anything else.
void SetLogLevel(const std::string& level);

/// A logger whose lines carry `[name]`. Thread-safe.
std::unique_ptr<sdk::Logger> MakeLogger(std::string name);

}  // namespace kioku::host
