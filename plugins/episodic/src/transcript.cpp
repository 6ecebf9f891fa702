#include "transcript.hpp"

#include <algorithm>
#include <cctype>

#include "facets.hpp"
#include "kioku/sdk/clock.hpp"
#include "kioku/sdk/text.hpp"

namespace kioku::episodic {

using nlohmann::json;

std::string FormatName(Format f) {
  switch (f) {
    case Format::kClaudeCode:
      return "claude-code";
    case Format::kCodex:
      return "codex";
    case Format::kGeneric:
      return "generic";
    default:
      return "unknown";
  }
}

Format FormatFromName(std::string_view name) {
  if (name == "claude-code") return Format::kClaudeCode;
  if (name == "codex") return Format::kCodex;
  if (name == "generic") return Format::kGeneric;
  return Format::kUnknown;
}

Format DetectLineFormat(const json& line) {
  if (!line.is_object()) return Format::kUnknown;
  const std::string type = line.contains("type") && line["type"].is_string()
                               ? line["type"].get<std::string>()
                               : std::string();
  if (line.contains("payload") && line["payload"].is_object() &&
      (type == "session_meta" || type == "response_item" || type == "event_msg" ||
       type == "turn_context" || type == "compacted")) {
    return Format::kCodex;
  }
  if ((type == "user" || type == "assistant" || type == "system") && line.contains("sessionId")) {
    return Format::kClaudeCode;
  }
  if ((type == "summary" && line.contains("leafUuid")) || type == "file-history-snapshot") {
    return Format::kClaudeCode;
  }
  if (line.contains("role") && line["role"].is_string() && line.contains("content")) {
    return Format::kGeneric;
  }
  return Format::kUnknown;
}

SessionDelta& ParsedBatch::Touch(const std::string& id, std::int64_t at) {
  auto [it, inserted] = sessions.try_emplace(id);
  SessionDelta& s = it->second;
  if (inserted) {
    s.id = id;
    session_order.push_back(id);
  }
  if (at > 0) {
    if (s.first_at == 0 || at < s.first_at) s.first_at = at;
    if (at > s.last_at) s.last_at = at;
  }
  return s;
}

bool ParsedBatch::Empty() const {
  return sessions.empty() && human.empty() && outcomes.empty() && files.empty() &&
         seen_keys.empty();
}

namespace transcript {

std::optional<std::int64_t> Time(const json& value) {
  if (!value.is_string()) return std::nullopt;
  return sdk::ParseRfc3339(value.get<std::string>());
}

std::string ContentText(const json& content) {
  if (content.is_string()) return content.get<std::string>();
  std::string out;
  if (!content.is_array()) return out;
  for (const auto& block : content) {
    if (!block.is_object()) continue;
    const std::string type = block.value("type", "");
    if ((type == "text" || type == "input_text" || type == "output_text") &&
        block.contains("text") && block["text"].is_string()) {
      const std::string t = block["text"].get<std::string>();
      if (t.empty()) continue;
      if (!out.empty()) out += ' ';
      out += t;
    }
  }
  return out;
}

std::string Brief(std::string_view text, std::size_t max_bytes) {
  // Only the first few lines matter and the input may be a huge tool output.
  std::string_view head = text.substr(0, std::min<std::size_t>(text.size(), max_bytes * 4));
  return sdk::TruncateUtf8(sdk::CollapseWhitespace(sdk::SanitizeUtf8(head)), max_bytes);
}

std::string StripHarnessBlocks(std::string_view text) {
  std::string out(text);
  for (const char* tag : {"system-reminder", "ide_selection", "ide_opened_file"}) {
    const std::string open = std::string("<") + tag + ">";
    const std::string close = std::string("</") + tag + ">";
    std::size_t pos;
    while ((pos = out.find(open)) != std::string::npos) {
      std::size_t end = out.find(close, pos);
      end = end == std::string::npos ? out.size() : end + close.size();
      out.erase(pos, end - pos);
    }
  }
  return out;
}

std::string StripImagePlaceholders(std::string_view text) {
  static constexpr std::string_view kOpen = "[Image #";
  std::string out;
  std::size_t from = 0;
  for (std::size_t pos; (pos = text.find(kOpen, from)) != std::string_view::npos;) {
    std::size_t end = pos + kOpen.size();
    while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
    if (end == pos + kOpen.size() || end >= text.size() || text[end] != ']') {
      out.append(text.substr(from, end - from));  // not a placeholder: kept as written
      from = end;
      continue;
    }
    out.append(text.substr(from, pos - from));
    from = end + 1;
    if (from < text.size() && text[from] == ' ') ++from;
  }
  out.append(text.substr(from));
  return out;
}

std::vector<std::string> PatchPaths(std::string_view patch) {
  std::vector<std::string> out;
  for (std::string_view marker : {std::string_view("*** Update File: "),
                                  std::string_view("*** Add File: "),
                                  std::string_view("*** Delete File: ")}) {
    std::size_t pos = 0;
    while ((pos = patch.find(marker, pos)) != std::string_view::npos) {
      pos += marker.size();
      std::size_t end = patch.find('\n', pos);
      if (end == std::string_view::npos) end = patch.size();
      std::string p(patch.substr(pos, end - pos));
      while (!p.empty() && (p.back() == '\r' || p.back() == ' ')) p.pop_back();
      if (!p.empty() && std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
    }
  }
  return out;
}

std::vector<std::string> ShellReadPaths(std::string_view script) {
  std::vector<std::string> out;
  std::vector<std::string> segment;
  auto flush = [&] {
    if (!segment.empty()) {
      static const char* kReaders[] = {"cat", "nl", "head", "tail", "sed", "less", "bat"};
      const bool reader = std::any_of(std::begin(kReaders), std::end(kReaders),
                                      [&](const char* r) { return segment[0] == r; });
      if (reader) {
        // Every operand of a reader is a file, except sed's script and head/tail counts.
        bool script_seen = segment[0] != "sed";
        for (std::size_t i = 1; i < segment.size(); ++i) {
          const std::string& a = segment[i];
          if (a.empty() || a[0] == '-' || a.find('*') != std::string::npos) continue;
          if (!script_seen) {
            script_seen = true;
            continue;
          }
          if (std::all_of(a.begin(), a.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
            continue;
          }
          if (std::find(out.begin(), out.end(), a) == out.end()) out.push_back(a);
        }
      }
    }
    segment.clear();
  };
  std::string tok;
  char quote = 0;
  for (std::size_t i = 0; i <= script.size(); ++i) {
    const char c = i < script.size() ? script[i] : '\n';
    if (quote) {
      if (c == quote) {
        quote = 0;
      } else {
        tok += c;
      }
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '|' || c == '&' || c == '>' ||
        c == '<' || c == '(' || c == ')') {
      if (!tok.empty()) segment.push_back(std::move(tok));
      tok.clear();
      if (c != ' ' && c != '\t') flush();
      continue;
    }
    tok += c;
  }
  flush();
  return out;
}

}  // namespace transcript
}  // namespace kioku::episodic
