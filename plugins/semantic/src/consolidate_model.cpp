#include "consolidate_model.hpp"

#include <algorithm>
#include <set>

#include "kioku/sdk/secrets.hpp"
#include "kioku/sdk/text.hpp"
#include "model_tools.hpp"
#include "normalize.hpp"
#include "rivals.hpp"
#include "tool_support.hpp"

namespace kioku::semantic {
namespace {

constexpr std::size_t kMaxSources = 12;  // 12 ids fit source_ref's 500 characters
constexpr std::size_t kSourceTextBytes = 600;

sdk::ChatRequest BuildRequest(const std::vector<Memory>& sources) {
  sdk::ChatRequest r;
  r.schema_name = "merged_memory";
  r.json_schema = CitingAnswerSchema("text");
  r.messages.push_back(
      {"system",
       "You merge memories of a software project that say the same thing into one canonical "
       "memory of 1-3 sentences. Keep every fact they state (names, versions, paths, numbers); "
       "add nothing they do not say. List in \"cited\" the ids (exactly as written in brackets) "
       "of the memories your text restates; leave out any memory that says something else. If "
       "they do not restate each other, answer {\"text\": \"\", \"cited\": []}. Answer with the "
       "JSON object only."});
  std::string user = "Kind: " + sources.front().kind + "\n\nMemories:\n";
  for (const Memory& m : sources) {
    user += "[" + m.id + "] " + sdk::TruncateUtf8(sdk::CollapseWhitespace(m.text), kSourceTextBytes) + "\n";
  }
  r.messages.push_back({"user", user});
  return r;
}

// Everything a profile names as a fact: values and every category member it mentions.
std::set<std::string> Named(const TopicProfile& p) {
  std::set<std::string> out(p.values.begin(), p.values.end());
  for (const CategoryMembers& c : p.mentioned) out.insert(c.members.begin(), c.members.end());
  return out;
}

bool HasDigit(const std::string& s) {
  return std::any_of(s.begin(), s.end(), [](unsigned char c) { return c >= '0' && c <= '9'; });
}

std::string Quoted(const std::string& s) { return "\"" + sdk::TruncateUtf8(s, 60) + "\""; }

std::string CommonSubject(const std::vector<Memory>& sources) {
  for (const Memory& m : sources) {
    if (!m.subject.empty()) return m.subject;
  }
  return "";
}

// The value every source with a subject gives, when they agree; "" otherwise.
std::string CommonValue(const std::vector<Memory>& sources) {
  std::string value;
  for (const Memory& m : sources) {
    if (m.value.empty()) continue;
    if (!value.empty() && value != m.value) return "";
    value = m.value;
  }
  return value;
}

}  // namespace

std::string VerifyMerged(const std::string& merged_text, const std::vector<Memory>& sources) {
  const std::string merged(Trim(merged_text));
  if (merged.empty()) return "the text is empty";
  if (sdk::Utf8Length(merged) > static_cast<std::size_t>(kMaxTextChars)) {
    return "the text is longer than " + std::to_string(kMaxTextChars) + " characters";
  }
  try {
    sdk::ScreenText(merged, "merged text");
  } catch (const sdk::ToolError& e) {
    return e.what();
  }
  const TopicProfile mp = BuildTopicProfile(merged, CommonSubject(sources));
  std::set<std::string> source_words;  // every term and named fact of any source
  std::set<std::string> source_terms;
  std::set<std::string> common;        // facts every source names
  bool first = true;
  for (const Memory& s : sources) {
    const TopicProfile sp = BuildTopicProfile(s.text, s.subject, s.value);
    const PairVerdict v = ClassifyPair(sp, mp);
    if (v.kind == PairKind::kRival) return "it contradicts " + s.id + (v.reason.empty() ? "" : ": " + v.reason);
    const std::set<std::string> named = Named(sp);
    source_words.insert(named.begin(), named.end());
    source_words.insert(sp.terms.begin(), sp.terms.end());
    source_terms.insert(sp.terms.begin(), sp.terms.end());
    if (first) {
      common = named;
      first = false;
    } else {
      std::set<std::string> keep;
      std::set_intersection(common.begin(), common.end(), named.begin(), named.end(), std::inserter(keep, keep.end()));
      common = std::move(keep);
    }
  }
  const std::set<std::string> merged_named = Named(mp);
  for (const std::string& v : merged_named) {
    if (!source_words.count(v)) return "it names " + Quoted(v) + ", which no source says";
  }
  for (const std::string& t : mp.terms) {
    if (HasDigit(t) && !source_words.count(t)) return "it names " + Quoted(t) + ", which no source says";
  }
  for (const std::string& v : common) {
    if (!merged_named.count(v) && !Holds(mp.terms, v)) return "it drops " + Quoted(v) + ", which every source says";
  }
  if (!mp.terms.empty()) {
    std::size_t shared = 0;
    for (const std::string& t : mp.terms) shared += source_terms.count(t);
    if (2 * shared < mp.terms.size()) {
      return "it is about something else: " + std::to_string(shared) + " of its " + std::to_string(mp.terms.size()) +
             " topic words occur in the sources";
    }
  }
  return "";
}

Synthesis Synthesize(sdk::ChatModel& chat, const Env& env, const Cluster& cluster) {
  Synthesis out;
  std::vector<Memory> members;
  for (const std::string& id : cluster.members) {
    if (members.size() == kMaxSources) break;
    std::optional<Memory> m = LoadMemoryById(env.db, id);
    if (m && (m->status == "active" || m->status == "pinned")) members.push_back(std::move(*m));
  }
  out.action = "rejected";
  if (members.size() < 2) {
    out.rejected = "fewer than two of its memories are still live";
    return out;
  }
  const sdk::ChatResult r = chat.Complete(BuildRequest(members));
  if (!r.ok()) {
    out.action = r.kind == sdk::ChatError::kInvalidAnswer ? "rejected" : "unavailable";
    out.rejected = r.error;
    return out;
  }
  out.text = std::string(Trim(r.json.at("text").get<std::string>()));
  std::vector<std::string> ids;
  for (const Memory& m : members) ids.push_back(m.id);
  const Citations citations = ResolveCitations(r.json.at("cited"), ids);
  for (std::size_t i : citations.found) out.sources.push_back(members[i]);
  std::vector<std::string> unknown;
  for (const std::string& u : citations.unknown) unknown.push_back(Quoted(u));
  if (!unknown.empty()) {
    std::string list;
    for (const std::string& u : unknown) list += (list.empty() ? "" : ", ") + u;
    out.rejected = "it cites " + list + ", not in the cluster";
  } else if (out.text.empty() || out.sources.size() < 2) {
    out.rejected = "the model found no two of them restating each other";
  } else {
    out.rejected = VerifyMerged(out.text, out.sources);
  }
  if (out.rejected.empty()) out.action = "proposed";
  return out;
}

int WriteSynthesis(const Env& env, MemoryWriter& writer, Synthesis& s, const Author& author) {
  if (s.action != "proposed") return 0;
  for (const Memory& was : s.sources) {
    const std::optional<Memory> now = LoadMemoryBySeq(env.db, was.seq);
    if (!now || now->status != "active" || now->text != was.text) {
      s.action = "changed";
      s.rejected = was.id + " changed while the model answered";
      return 0;
    }
  }
  MemoryDraft d;
  d.text = s.text;
  d.kind = s.sources.front().kind;
  d.subject = CommonSubject(s.sources);
  d.value = d.subject.empty() ? "" : CommonValue(s.sources);
  d.source = "derived";
  d.scope = s.sources.front().scope;
  d.importance = s.sources.front().importance;
  d.confidence = s.sources.front().confidence;
  std::set<std::string> tags;
  bool permanent = false;
  for (const Memory& m : s.sources) {
    d.source_ref += (d.source_ref.empty() ? std::string(kConsolidateSourcePrefix) : ",") + m.id;
    d.importance = std::max(d.importance, m.importance);
    d.confidence = std::max(d.confidence, m.confidence);
    tags.insert(m.tags.begin(), m.tags.end());
    permanent = permanent || m.expires_at == 0;
    d.expires_at = std::max(d.expires_at, m.expires_at);
  }
  if (permanent) d.expires_at = 0;
  d.tags.assign(tags.begin(), tags.end());
  const WriteResult w = writer.Remember(d, author);
  s.id = w.id;
  // The model may answer with a source's own words: that source then stays as it is.
  s.action = w.action == "reaffirmed" ? "kept" : "written";
  return SupersedeInto(env, w.id, s.sources, author.agent_id, "restated by " + w.id + " (merged by the chat model)");
}

}  // namespace kioku::semantic
