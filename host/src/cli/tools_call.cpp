#include <iostream>
#include <iterator>

#include "cli/commands.hpp"
#include "kioku/sdk/caller.hpp"
#include "kioku/sdk/ids.hpp"

namespace kioku::host::cli {

int Tools(const GlobalOptions& global, bool all, std::ostream& out) {
  auto loaded = LoadRuntime(global);
  for (const auto* tool : all ? loaded.runtime->AllTools() : loaded.runtime->Tools()) {
    std::string line = tool->spec.description.substr(0, tool->spec.description.find('\n'));
    out << tool->spec.name << std::string(tool->spec.name.size() < 24 ? 24 - tool->spec.name.size() : 1, ' ')
        << "[" << tool->plugin << (tool->listed ? "" : ", unlisted") << "] " << line << "\n";
  }
  return 0;
}

int Call(const GlobalOptions& global, const std::string& tool, const std::string& arguments,
         const std::optional<std::string>& project, std::ostream& out) {
  std::string text = arguments;
  if (text == "-") text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  nlohmann::json args = nlohmann::json::object();
  if (text.find_first_not_of(" \t\r\n") != std::string::npos) {
    try {
      args = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
      std::cerr << "kioku call: arguments are not valid JSON (" << e.what()
                << "); send an object such as '{\"query\": \"pnpm\"}'\n";
      return 2;
    }
  }
  if (!args.is_object()) {
    std::cerr << "kioku call: arguments must be a JSON object, got " << args.type_name() << "\n";
    return 2;
  }
  auto loaded = LoadRuntime(global, StartMode::kServe, /*one_shot=*/true);
  auto caller = LocalCaller("cli", loaded.config.projects);
  if (project) {
    try {
      sdk::UseCommandLineProject(caller, project, loaded.config.projects);
    } catch (const std::invalid_argument& e) {
      std::cerr << "kioku call: " << e.what() << "\n";
      return 2;
    }
  }
  caller.session_id = sdk::NewId(loaded.runtime->Clock().NowMs());
  try {
    auto result = loaded.runtime->CallTool(tool, args, caller);
    out << result.text << "\n";
    if (!result.structured.is_null()) out << sdk::DumpJson(result.structured, 2) << "\n";
    out.flush();
    EndOneShot(loaded);
    return result.is_error ? 1 : 0;
  } catch (const UnknownToolError& e) {
    std::cerr << "kioku call: " << e.what() << "; run `kioku tools` for the list\n";
    return 2;
  }
}

}  // namespace kioku::host::cli
