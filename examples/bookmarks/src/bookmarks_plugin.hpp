#pragma once
/// @file bookmarks_plugin.hpp
/// Example plugin: per-project bookmarks. One migration, two tools, two settings.

#include <cstdint>
#include <string>
#include <vector>

#include "kioku/sdk/host.hpp"
#include "kioku/sdk/plugin.hpp"

namespace bookmarks {

class BookmarksPlugin final : public kioku::sdk::Plugin {
 public:
  /// Settings are complete here: the host validated them and filled the defaults.
  explicit BookmarksPlugin(kioku::sdk::HostServices& host);

  static kioku::sdk::Json SettingsSchema();
  std::string Instructions() const override;
  std::vector<kioku::sdk::Migration> Migrations() const override;
  void Register(kioku::sdk::Registrar& registrar) override;

 private:
  kioku::sdk::ToolResult Add(const kioku::sdk::Json& args, const kioku::sdk::CallContext& ctx);
  kioku::sdk::ToolResult List(const kioku::sdk::Json& args, const kioku::sdk::CallContext& ctx);

  kioku::sdk::HostServices& host_;
  const std::int64_t max_per_project_;
  const std::string default_tag_;
};

}  // namespace bookmarks
