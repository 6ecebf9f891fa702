#include "cli/init.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "cli/init_targets.hpp"
#include "cli/json_edit.hpp"
#include "cli/marked_block.hpp"
#include "cli/text_diff.hpp"
#include "cli/toml_edit.hpp"
#include "config.hpp"

namespace kioku::host::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct Outcome {
  std::string after;
  std::string conflict;  // non-empty: nothing may be written
  std::string note;      // e.g. a hand-written entry left alone on uninstall
};

bool Ours(const std::optional<json>& entry) {
  return entry && entry->is_object() && entry->contains("env") && (*entry)["env"].is_object() &&
         (*entry)["env"].contains(kInitMarkerEnv);
}

std::string ConflictText(const std::string& label) {
  return label + ": an MCP server named \"kioku\" is already there and was not written by kioku init; left as it "
                 "is (remove it, or run again with --force to replace it)";
}

Outcome McpJson(const FileEdit& e, const std::string& before, const std::string& label, bool install, bool force) {
  JsonText doc(before, label);
  JsonPath path = e.container;
  path.push_back(kServerName);
  auto existing = doc.Get(path);
  if (install) {
    if (existing && !Ours(existing) && !force) return {before, ConflictText(label), ""};
    if (existing && *existing == json::parse(e.entry.dump())) return {before, "", ""};
    doc.Set(path, e.entry);
    return {doc.Text(), "", ""};
  }
  if (!existing) return {before, "", ""};
  if (!Ours(existing)) return {before, "", label + ": its \"kioku\" server was not written by kioku init; left alone"};
  doc.Remove(path);
  return {doc.Text(), "", ""};
}

Outcome McpToml(const FileEdit& e, const std::string& before, const std::string& label, bool install, bool force) {
  TomlText doc(before, label);
  std::vector<std::string> path = e.container;
  path.push_back(kServerName);
  auto existing = doc.Get(path);
  if (install) {
    if (existing && !Ours(existing) && !force) return {before, ConflictText(label), ""};
    if (existing && *existing == json::parse(e.entry.dump())) return {before, "", ""};
    doc.SetTable(path, e.entry);
    return {doc.Text(), "", ""};
  }
  if (!existing) return {before, "", ""};
  if (!Ours(existing)) return {before, "", label + ": its [mcp_servers.kioku] was not written by kioku init; left alone"};
  doc.RemoveTable(path);
  return {doc.Text(), "", ""};
}

// Indexes of the hook groups of `event` that kioku init wrote (a command with the marker).
std::vector<std::size_t> OurGroups(const std::optional<json>& groups) {
  std::vector<std::size_t> out;
  if (!groups || !groups->is_array()) return out;
  for (std::size_t i = 0; i < groups->size(); ++i) {
    const json& g = (*groups)[i];
    if (!g.is_object() || !g.contains("hooks") || !g["hooks"].is_array()) continue;
    for (const auto& h : g["hooks"]) {
      if (h.is_object() && h.value("command", std::string()).find(kHookMarker) != std::string::npos) {
        out.push_back(i);
        break;
      }
    }
  }
  return out;
}

Outcome HooksJson(const FileEdit& e, const std::string& before, const std::string& label, bool install) {
  JsonText doc(before, label);
  bool changed = false;
  for (const auto& spec : e.hooks) {
    const JsonPath path = {"hooks", spec.event};
    const nlohmann::ordered_json group = {
        {"hooks", nlohmann::ordered_json::array(
                      {{{"type", "command"}, {"command", spec.command}, {"timeout", spec.timeout_s}}})}};
    auto groups = doc.Get(path);
    auto ours = OurGroups(groups);
    if (install && ours.size() == 1) {
      if ((*groups)[ours[0]] == json::parse(group.dump())) continue;
      doc.SetElement(path, ours[0], group);
      changed = true;
      continue;
    }
    for (auto it = ours.rbegin(); it != ours.rend(); ++it) doc.RemoveElement(path, *it);
    if (install) doc.Append(path, group);
    changed = changed || install || !ours.empty();
  }
  return {changed ? doc.Text() : before, "", ""};
}

Outcome Block(const std::string& before, const std::string& label, bool install) {
  if (install) return {SetMarkedBlock(before, AgentInstructionsBlock()), "", ""};
  return {RemoveMarkedBlock(before, label), "", ""};
}

std::string Label(const fs::path& path, const InitOptions& o) {
  auto rel = [](const fs::path& p, const fs::path& base) -> std::optional<std::string> {
    if (base.empty()) return std::nullopt;
    auto r = p.lexically_relative(base);
    if (r.empty() || *r.begin() == "..") return std::nullopt;
    return r.string();
  };
  if (auto r = rel(path, o.project_dir)) return *r;
  if (auto r = rel(path, o.home)) return "~/" + *r;
  return path.string();
}

// Reads the file; "" when it does not exist. Throws when it exists but cannot be read.
std::string ReadIfExists(const fs::path& path, bool& exists) {
  std::error_code ec;
  exists = fs::exists(path, ec);
  if (!exists) return "";
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Writes through a symlink to its target, via a temporary file and rename, keeping the mode.
void WriteFile(const fs::path& path, const std::string& text) {
  std::error_code ec;
  fs::path target = fs::is_symlink(path, ec) ? fs::canonical(path) : path;
  fs::create_directories(target.parent_path(), ec);
  fs::path tmp = target;
  tmp += ".kioku-tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush()) throw std::runtime_error("cannot write " + tmp.string());
  }
  if (fs::exists(target, ec)) fs::permissions(tmp, fs::status(target).permissions(), ec);
  fs::rename(tmp, target);
}

// A file left holding nothing of its own once kioku's part is gone.
bool LeftEmpty(EditKind kind, const std::string& text) {
  auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return true;
  if (kind == EditKind::kMcpJson || kind == EditKind::kHooksJson) {
    auto last = text.find_last_not_of(" \t\r\n");
    return text.substr(first, last - first + 1) == "{}";
  }
  return false;
}

}  // namespace

// The home and config an earlier `kioku init` wrote into the client's MCP entry, kept when
// this run names none (no KIOKU_HOME, no --config or KIOKU_CONFIG): running init again to
// update kioku's path or hooks must not point the agent at ~/.kioku, where its memories are
// not. Said on `out`. A file that cannot be read or parsed is left to the edits to report.
void KeepEarlierHomeAndConfig(InitOptions& o, const std::vector<FileEdit>& edits, std::ostream& out) {
  for (const FileEdit& e : edits) {
    if (e.kind != EditKind::kMcpJson && e.kind != EditKind::kMcpToml) continue;
    const std::string label = Label(e.path, o);
    std::optional<json> entry;
    try {
      bool exists = false;
      const std::string text = ReadIfExists(e.path, exists);
      if (!exists) return;
      std::vector<std::string> path = e.container;
      path.push_back(kServerName);
      entry = e.kind == EditKind::kMcpJson ? JsonText(text, label).Get(path) : TomlText(text, label).Get(path);
    } catch (const std::exception&) {
      return;
    }
    if (!Ours(entry)) return;
    const json& env = (*entry)["env"];
    if (o.data_home.empty() && env.contains("KIOKU_HOME") && env["KIOKU_HOME"].is_string()) {
      o.data_home = env["KIOKU_HOME"].get<std::string>();
      out << label << ": kept KIOKU_HOME=" << o.data_home
          << " from the entry kioku init wrote before (run with KIOKU_HOME set to change it)\n";
    }
    const json* args = entry->contains("args") && (*entry)["args"].is_array() ? &(*entry)["args"] : nullptr;
    for (std::size_t i = 0; o.config_path.empty() && args != nullptr && i + 1 < args->size(); ++i) {
      if ((*args)[i] == "--config" && (*args)[i + 1].is_string()) {
        o.config_path = (*args)[i + 1].get<std::string>();
        out << label << ": kept --config " << o.config_path
            << " from the entry kioku init wrote before (run with --config or KIOKU_CONFIG to change it)\n";
      }
    }
    return;
  }
}

int RunInit(const InitOptions& requested, bool install, std::ostream& out, std::ostream& err) {
  InitOptions options = requested;
  std::vector<FileEdit> edits;
  try {
    edits = PlanInit(options);
    if (install && (options.data_home.empty() || options.config_path.empty())) {
      KeepEarlierHomeAndConfig(options, edits, out);
      edits = PlanInit(options);
    }
  } catch (const std::invalid_argument& e) {
    err << "kioku: " << e.what() << "\n";
    return 2;
  }
  struct Planned {
    const FileEdit* edit;
    std::string label;
    bool existed;
    std::string before;
    Outcome outcome;
  };
  std::vector<Planned> planned;
  bool blocked = false;
  for (const auto& edit : edits) {
    Planned p{&edit, Label(edit.path, options), false, "", {}};
    try {
      p.before = ReadIfExists(edit.path, p.existed);
      if (!install && !p.existed) {
        p.outcome.after = p.before;
      } else if (edit.kind == EditKind::kMcpJson) {
        p.outcome = McpJson(edit, p.before, p.label, install, options.force);
      } else if (edit.kind == EditKind::kMcpToml) {
        p.outcome = McpToml(edit, p.before, p.label, install, options.force);
      } else if (edit.kind == EditKind::kHooksJson) {
        p.outcome = HooksJson(edit, p.before, p.label, install);
      } else {
        p.outcome = Block(p.before, p.label, install);
      }
    } catch (const std::exception& e) {
      p.outcome.conflict = e.what();
    }
    if (!p.outcome.conflict.empty()) {
      err << "kioku: " << p.outcome.conflict << "\n";
      blocked = true;
    }
    planned.push_back(std::move(p));
  }
  if (blocked) {
    err << "kioku: nothing written\n";
    return 1;
  }
  for (const auto& p : planned) {
    if (!p.outcome.note.empty()) out << p.outcome.note << "\n";
    const bool remove_file = !install && p.existed && p.outcome.after != p.before && LeftEmpty(p.edit->kind, p.outcome.after);
    if (p.outcome.after == p.before) {
      out << p.label << ": " << (install ? "up to date" : "nothing of kioku's") << "\n";
      continue;
    }
    if (options.dry_run) {
      out << UnifiedDiff(p.label, p.before, remove_file ? "" : p.outcome.after);
      if (remove_file) out << p.label << ": would be deleted (nothing else left in it)\n";
      continue;
    }
    try {
      if (remove_file) {
        fs::remove(p.edit->path);
        out << p.label << ": removed kioku (file deleted: nothing else was in it)\n";
      } else {
        WriteFile(p.edit->path, p.outcome.after);
        out << p.label << ": " << (install ? (p.existed ? "updated" : "created") : "removed kioku") << "\n";
      }
    } catch (const std::exception& e) {
      err << "kioku: " << e.what() << "\n";
      return 1;
    }
  }
  if (install && !options.dry_run) {
    // Where the memory goes, so a person can find (and back up) it: the home this run
    // wrote into the agent's config, else the default one (a config file may name another).
    if (!options.data_home.empty()) {
      out << "Memory is kept in " << options.data_home << " (KIOKU_HOME).\n";
    } else if (!options.config_path.empty()) {
      out << "Memory is kept in the home " << options.config_path << " names (" << ResolveHome("").string()
          << " if it names none).\n";
    } else {
      out << "Memory is kept in " << ResolveHome("").string()
          << " (set KIOKU_HOME before kioku init to keep it elsewhere).\n";
    }
    out << "Restart " << options.client
        << "; it may ask you to approve the kioku server and hooks. Check: ask the agent \"what do you remember "
           "about this project?\" (it calls memory_recall), or run `kioku tools`.\n";
  }
  return 0;
}

std::string PrintSnippet(const InitOptions& options) {
  nlohmann::ordered_json doc = {{"mcpServers", {{kServerName, ServerEntry(options, false)}}}};
  return doc.dump(2) + "\n";
}

}  // namespace kioku::host::cli
