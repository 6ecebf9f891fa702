#include "kioku/sdk/caller.hpp"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

namespace kioku::sdk {

bool CallerKnown(const Caller& caller) {
  if (caller.agent_id.empty() || caller.agent_id == "unknown") return false;
  return true;
}

void UseCommandLineProject(Caller& caller, const std::optional<std::string>& given,
                           const ProjectOptions& projects) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path folder;
  if (!given) {
    const char* root = std::getenv("KIOKU_PROJECT_ROOT");
    folder = (root != nullptr && *root != '\0') ? fs::path(ExpandHome(root)) : fs::current_path(ec);
  } else if (given->empty()) {
    throw std::invalid_argument("--project is empty: send a folder or a project key such as github.com/acme/webapp");
  } else {
    const std::string& dir_or_key = *given;
    folder = ExpandHome(dir_or_key);
    if (!fs::is_directory(folder, ec)) {
      const char c = dir_or_key.front();
      if (c == '.' || c == '~') {
        throw std::invalid_argument("--project '" + dir_or_key + "' is no folder here (" +
                                    fs::absolute(folder, ec).lexically_normal().string() +
                                    "); send an existing folder or a project key as memory_list shows it");
      }
      caller.project_id = CanonicalProjectKey(dir_or_key, projects);
      caller.project_root.clear();
      caller.working_dir.clear();
      return;
    }
  }
  folder = fs::absolute(folder, ec).lexically_normal();
  const ProjectInfo info = ResolveProject(folder, projects);
  caller.project_root = info.root;
  caller.project_id = info.id;
  caller.working_dir = folder.string();
}

std::string_view AgentSourceName(AgentSource source) {
  switch (source) {
    case AgentSource::kToken: return "an HTTP bearer token";
    case AgentSource::kConfig: return "KIOKU_AGENT_ID / the client configuration";
    case AgentSource::kClientInfo: return "MCP clientInfo";
    case AgentSource::kNone: break;
  }
  return "the transport";
}

void CheckAgentId(std::string_view id) {
  if (id.empty() || id.size() > kMaxAgentIdBytes) {
    throw ToolError("agent_id must be 1 to " + std::to_string(kMaxAgentIdBytes) + " bytes");
  }
  for (unsigned char c : id) {
    if (c <= 0x20 || c == 0x7f) {
      throw ToolError("agent_id '" + std::string(id.substr(0, 40)) +
                      "' contains whitespace or a control character; send a name like \"claude-code-1\"");
    }
  }
  if (id.find('#') != std::string_view::npos) {
    throw ToolError("agent_id '" + std::string(id.substr(0, 40)) +
                    "' contains '#', which separates an agent from its instance; send a name like \"claude-code-1\"");
  }
  if (id == "unknown") throw ToolError("agent_id 'unknown' is reserved; send a name like \"claude-code-1\"");
}

std::string ResolveAgentId(const Caller& caller, const Json& args, bool required, AgentArgument policy) {
  std::string arg;
  if (args.is_object()) {
    if (auto it = args.find("agent_id"); it != args.end() && !it->is_null()) {
      if (!it->is_string()) throw ToolError("agent_id must be a string such as \"claude-code-1\"");
      arg = it->get<std::string>();
      CheckAgentId(arg);
    }
  }
  if (CallerKnown(caller)) {
    if (arg.empty() || arg == caller.agent_id) return caller.agent_id;
    if (policy == AgentArgument::kOverrideUnlessToken && caller.agent_source != AgentSource::kToken) return arg;
    throw ToolError("this connection is already identified as agent '" + caller.agent_id + "' (from " +
                    std::string(AgentSourceName(caller.agent_source)) + "); omit agent_id or send '" +
                    caller.agent_id + "' (agent_id is only for transports that cannot tell who calls)");
  }
  if (!arg.empty()) return arg;
  if (required) {
    throw ToolError("cannot tell which agent is calling: send agent_id (a stable name such as \"claude-code-1\"), "
                    "or set KIOKU_AGENT_ID in the MCP server's environment");
  }
  return {};
}

std::string InstanceHolder(std::string_view agent_id, const Caller& caller) {
  std::string holder(agent_id);
  if (!holder.empty() && !caller.instance_id.empty()) holder += "#" + caller.instance_id;
  return holder;
}

std::string_view HolderAgent(std::string_view holder) { return holder.substr(0, holder.find('#')); }

}  // namespace kioku::sdk
