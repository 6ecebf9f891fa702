#include "logging.hpp"

#include <stdexcept>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace kioku::host {
namespace {

std::shared_ptr<spdlog::logger> StderrLogger() {
  static std::shared_ptr<spdlog::logger> logger = [] {
    auto l = spdlog::stderr_color_mt("kioku");
    l->set_pattern("%Y-%m-%dT%H:%M:%S.%eZ %^%l%$ %v", spdlog::pattern_time_type::utc);
    l->set_level(spdlog::level::info);
    return l;
  }();
  return logger;
}

class PluginLogger final : public sdk::Logger {
 public:
  explicit PluginLogger(std::string name) : prefix_("[" + std::move(name) + "] ") {}
  void Log(sdk::LogLevel level, std::string_view message) override {
    auto& l = *StderrLogger();
    switch (level) {
      case sdk::LogLevel::kDebug: l.debug("{}{}", prefix_, message); break;
      case sdk::LogLevel::kInfo: l.info("{}{}", prefix_, message); break;
      case sdk::LogLevel::kWarn: l.warn("{}{}", prefix_, message); break;
      case sdk::LogLevel::kError: l.error("{}{}", prefix_, message); break;
    }
  }

 private:
  std::string prefix_;
};

}  // namespace

void SetLogLevel(const std::string& level) {
  static const std::pair<const char*, spdlog::level::level_enum> kLevels[] = {
      {"debug", spdlog::level::debug}, {"info", spdlog::level::info},
      {"warn", spdlog::level::warn},   {"error", spdlog::level::err},
      {"off", spdlog::level::off}};
  for (const auto& [name, value] : kLevels) {
    if (level == name) {
      StderrLogger()->set_level(value);
      return;
    }
  }
  throw std::invalid_argument("log level '" + level + "' is not one of debug, info, warn, error, off");
}

std::unique_ptr<sdk::Logger> MakeLogger(std::string name) {
  return std::make_unique<PluginLogger>(std::move(name));
}

}  // namespace kioku::host
