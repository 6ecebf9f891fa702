// memory_review, memory_used, memory_maintain, memory_consolidate and `kioku review`.
#include <algorithm>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string_view>

#include "consolidate.hpp"
#include "consolidate_model.hpp"
#include "decay.hpp"
#include "kioku/sdk/args.hpp"
#include "kioku/sdk/caller.hpp"
#include "kioku/sdk/db.hpp"
#include "kioku/sdk/result_page.hpp"
#include "kioku/sdk/schema.hpp"
#include "model_tools.hpp"
#include "review_store.hpp"
#include "tools.hpp"

namespace kioku::semantic {
namespace {

constexpr std::string_view kToolFooter = "\nresolve: memory_review {action: promote|reject|undo, id}";

namespace schema = sdk::schema;

const std::vector<std::string> kBuckets = {"pending", "contested", "contradicted", "stale"};

Json RivalsJson(const std::vector<RivalNote>& rivals) {
  Json out = Json::array();
  for (const RivalNote& r : rivals) out.push_back({{"id", r.id}, {"text", r.text}, {"reason", r.reason}});
  return out;
}

std::string CountsLine(const std::map<std::string, int>& counts) {
  std::string line = "review:";
  for (std::size_t i = 0; i < kBuckets.size(); ++i) {
    const auto it = counts.find(kBuckets[i]);
    line += (i ? " · " : " ") + std::to_string(it == counts.end() ? 0 : it->second) + " " + kBuckets[i];
  }
  return line;
}

std::string ActionLine(const ReviewActionResult& r) {
  std::string line = r.action + " " + r.id + " → " + r.status;
  if (!r.superseded.empty()) {
    line += "; superseded";
    for (const std::string& id : r.superseded) line += " " + id;
  }
  if (!r.reinstated.empty()) {
    line += r.action == "undone" ? "; contested again" : "; reinstated";
    for (const std::string& id : r.reinstated) line += " " + id;
  }
  if (!r.note.empty()) line += " (" + r.note + ")";
  return line;
}

sdk::ToolResult HandleReview(ToolContext& ctx, const Json& args, const sdk::Caller& caller) {
  Env env = ctx.MakeEnv();
  const std::string action = args.value("action", "list");
  const int limit = args.value("limit", 10);
  Json out = Json::object();
  std::string text;
  if (action != "list") {
    const std::optional<std::string> id = sdk::TextArg(args, "id", 200);
    if (!id) throw sdk::ToolError("action " + action + " needs id: the memory to " + action + " (memory_review or `kioku review` lists them)");
    ReviewActionResult r;
    WithMemoryWriter(env, [&](MemoryWriter& writer) {
      const Memory m = ResolveMemory(env.db, *id);
      const Author author = AuthorOf(caller);
      if (action == "promote") {
        r = Promote(env, writer, m, author);
      } else if (action == "reject") {
        r = Reject(env, m, author);
      } else {
        r = Undo(env, m, author);
      }
    });
    out["result"] = {{"id", r.id}, {"action", r.action}, {"status", r.status},
                     {"superseded", r.superseded}, {"reinstated", r.reinstated}};
    text = ActionLine(r) + "\n";
  }
  const ReviewListing listing = ListReview(env, ViewerOf(caller), args.value("bucket", ""), limit);
  out["counts"] = listing.counts;
  Json items = Json::array();
  text += CountsLine(listing.counts);
  for (const ReviewItem& item : listing.items) {
    const Memory& m = item.memory;
    Json j = {{"id", m.id}, {"bucket", item.bucket}, {"kind", m.kind}, {"status", m.status},
              {"text", Preview(m.text, 200)}, {"confidence", m.confidence}};
    if (!m.subject.empty()) j["subject"] = m.subject;
    if (!item.rivals.empty()) j["rivals"] = RivalsJson(item.rivals);
    if (!item.note.empty()) j["note"] = item.note;
    items.push_back(std::move(j));
    text += "\n[" + item.bucket + "] " + m.id + " " + m.kind + ": " + Preview(m.text, 90);
    for (const RivalNote& r : item.rivals) text += "\n    vs " + r.id + " \"" + r.text + "\" (" + r.reason + ")";
    if (!item.note.empty()) text += "\n    " + item.note;
  }
  out["items"] = std::move(items);
  if (!listing.items.empty()) text += kToolFooter;
  return sdk::ToolResult::Ok(text, out);
}

sdk::ToolResult HandleUsed(ToolContext& ctx, const Json& args, const sdk::Caller& caller) {
  Env env = ctx.MakeEnv();
  std::string session = sdk::TextArg(args, "session_id", 200).value_or("");
  if (session.empty()) session = caller.session_id;
  if (session.empty()) {
    throw sdk::ToolError("send session_id: the session the memories were recalled in (this connection has none)");
  }
  const Json& ids = args.at("ids");
  int added = 0;
  std::vector<std::string> marked;
  WithMemoryWriter(env, [&](MemoryWriter&) {
    std::vector<Memory> memories;
    for (std::size_t i = 0; i < ids.size(); ++i) {
      try {
        memories.push_back(ResolveMemory(env.db, ids[i].get<std::string>()));
      } catch (const sdk::ToolError& e) {
        throw sdk::ToolError("ids[" + std::to_string(i) + "]: " + e.what() + " (nothing was marked)");
      }
    }
    marked.clear();
    for (const Memory& m : memories) marked.push_back(m.id);
    added = MarkUsed(env, memories, session, AuthorOf(caller).agent_id);
  });
  const int again = static_cast<int>(marked.size()) - added;
  std::string text = "marked " + Plural(static_cast<std::size_t>(added), "memory", "memories") + " helpful";
  if (again > 0) text += " (" + std::to_string(again) + " already marked in this session)";
  return sdk::ToolResult::Ok(text, Json{{"marked", added}, {"already", again}, {"ids", marked}});
}

sdk::ToolResult HandleMaintain(ToolContext& ctx, const sdk::Caller& caller) {
  Env env = ctx.MakeEnv();
  MaintainReport r;
  sdk::WithWriteTransaction(env.db, [&] { r = RunMaintenance(env, AuthorOf(caller).agent_id); });
  const Json j = MaintainReportJson(r);
  return sdk::ToolResult::Ok("housekeeping: " + std::to_string(r.expired) + " expired · " + std::to_string(r.decayed) +
                                 " decayed · " + std::to_string(r.stale) + " stale · " + std::to_string(r.reinstated) +
                                 " reinstated · " + std::to_string(r.pruned) + " pruned",
                             j);
}

// memory_consolidate synthesize: the model writes each listed cluster's canonical text (no
// transaction held meanwhile); with apply, verified texts are written and clusters with a
// pinned member merge into it as without synthesize.
struct SynthesisRun {
  std::vector<Synthesis> by_cluster;  ///< Same order as the listed clusters; action "" = not asked.
  int written = 0;
  int superseded = 0;
};

SynthesisRun RunSynthesis(ToolContext& ctx, const Env& env, const std::vector<Cluster>& clusters, std::size_t limit,
                          bool apply, const Author& author) {
  sdk::ChatModel& chat = RequireChatModel(ctx, "memory_consolidate synthesize");
  SynthesisRun run;
  bool down = false;
  for (std::size_t i = 0; i < clusters.size() && i < limit; ++i) {
    Synthesis s;
    if (clusters[i].has_pinned) {
      s.action = "pinned";
    } else if (down) {
      s.action = "unavailable";
    } else {
      s = Synthesize(chat, env, clusters[i]);
      down = s.action == "unavailable";
    }
    run.by_cluster.push_back(std::move(s));
  }
  if (!apply) return run;
  SynthesisRun done;
  WithMemoryWriter(env, [&](MemoryWriter& writer) {
    done = run;  // the body may run again after a lock: start from the model's answers each time
    for (std::size_t i = 0; i < done.by_cluster.size(); ++i) {
      Synthesis& s = done.by_cluster[i];
      if (s.action == "pinned") {
        std::vector<Memory> members;
        for (const std::string& id : clusters[i].members) {
          if (std::optional<Memory> m = LoadMemoryById(env.db, id)) members.push_back(std::move(*m));
        }
        done.superseded += SupersedeInto(env, clusters[i].keep, members, author.agent_id,
                                         "restates " + clusters[i].keep + "; superseded by it");
        continue;
      }
      done.superseded += WriteSynthesis(env, writer, s, author);
      done.written += s.action == "written" || s.action == "kept";
    }
    ResolveGoneRivals(env, author.agent_id);
  });
  return done;
}

Json SynthesisJson(const Synthesis& s) {
  Json j{{"action", s.action}};
  if (!s.text.empty()) j["text"] = s.text;
  if (!s.id.empty()) j["id"] = s.id;
  if (!s.rejected.empty()) j["why"] = Preview(s.rejected, 200);
  if (!s.sources.empty()) {
    j["sources"] = Json::array();
    for (const Memory& m : s.sources) j["sources"].push_back(m.id);
  }
  return j;
}

std::string SynthesisLine(const Synthesis& s) {
  if (s.action == "pinned") return "\n  = pinned: kept as written";
  if (s.action == "written") return "\n  => " + s.id + " (derived) \"" + Preview(s.text, 160) + "\"";
  if (s.action == "kept") return "\n  => " + s.id + " (its own words)";
  if (s.action == "proposed") return "\n  => proposed \"" + Preview(s.text, 160) + "\"";
  return "\n  x " + s.action + ": " + Preview(s.rejected, 160);
}

sdk::ToolResult HandleConsolidate(ToolContext& ctx, const Json& args, const sdk::CallContext& call) {
  const sdk::Caller& caller = call.caller;
  Env env = ctx.MakeEnv();
  ConsolidateOptions o;
  o.apply = args.value("apply", false);
  o.threshold = args.value("threshold", 0.5);
  o.kind = args.value("kind", "");
  const bool synthesize = args.value("synthesize", false);
  const std::size_t limit = args.value("limit", synthesize ? 5 : 20);
  ConsolidateReport r;
  SynthesisRun synthesis;
  if (synthesize) {
    ConsolidateOptions find = o;
    find.apply = false;
    r = Consolidate(env, ViewerOf(caller), find, AuthorOf(caller).agent_id);
    synthesis = RunSynthesis(ctx, env, r.clusters, limit, o.apply, AuthorOf(caller));
    r.superseded = synthesis.superseded;
  } else if (o.apply) {
    WithMemoryWriter(env, [&](MemoryWriter&) {
      r = Consolidate(env, ViewerOf(caller), o, AuthorOf(caller).agent_id);
      ResolveGoneRivals(env, AuthorOf(caller).agent_id);
    });
  } else {
    r = Consolidate(env, ViewerOf(caller), o, AuthorOf(caller).agent_id);
  }
  Json clusters = Json::array();
  std::string text = std::to_string(r.clusters.size()) + " clusters among " + std::to_string(r.memories) + " memories" +
                     (o.apply ? "; superseded " + std::to_string(r.superseded) : std::string("; dry run (apply: true merges)"));
  if (synthesize && o.apply) text += "; " + std::to_string(synthesis.written) + " merged texts written";
  // Fits the result cap: clusters largest first while they fit (the rest counted in
  // `omitted`), and one huge cluster lists as many members as half the room holds.
  const std::size_t room = sdk::ResultRoom(call);
  sdk::ResultPage page(0, limit, room);
  std::string lines;
  for (std::size_t ci = 0; ci < r.clusters.size(); ++ci) {
    const Cluster& c = r.clusters[ci];
    Json row = {{"keep", c.keep}, {"members", Json::array()}, {"texts", Json::array()}};
    std::string line = "\nkeep " + c.keep + " \"" + c.texts.front() + "\"";
    if (ci < synthesis.by_cluster.size()) {
      row["merged"] = SynthesisJson(synthesis.by_cluster[ci]);
      line += SynthesisLine(synthesis.by_cluster[ci]);
    }
    std::size_t used = sdk::RowBytes(row, line);
    std::size_t k = 0;
    for (; k < c.members.size(); ++k) {
      const std::string member_line = k == 0 ? std::string() : "\n  ~ " + c.members[k] + " \"" + c.texts[k] + "\"";
      const std::size_t cost = member_line.size() + c.members[k].size() + c.texts[k].size() * 2 + 8;
      if (k > 1 && used + cost > room / 2) break;
      used += cost;
      row["members"].push_back(c.members[k]);
      row["texts"].push_back(c.texts[k]);
      line += member_line;
    }
    if (k < c.members.size()) {
      row["members_omitted"] = c.members.size() - k;
      line += "\n  … " + std::to_string(c.members.size() - k) + " more members";
    }
    if (!page.Offer(sdk::RowBytes(row, line))) continue;
    clusters.push_back(std::move(row));
    lines += line;
  }
  text += lines;
  if (page.Omitted() > 0) {
    text += "\n… " + std::to_string(page.Omitted()) + " more clusters" + (page.CutByRoom() ? " (result size cap)" : "") +
            ": narrow with kind or a higher threshold" + (o.apply ? "" : "; apply: true merges every cluster");
  }
  return sdk::ToolResult::Ok(text, Json{{"clusters", clusters},
                                        {"omitted", page.Omitted()},
                                        {"total", r.clusters.size()},
                                        {"memories", r.memories},
                                        {"candidate_pairs", r.candidate_pairs},
                                        {"superseded", r.superseded},
                                        {"applied", o.apply}});
}

constexpr const char* kReviewUsage =
    "kioku review [--bucket pending|contested|contradicted|stale] [--limit N]\n"
    "             [--promote ID | --reject ID | --undo ID] [--project DIR|KEY] [--json]\n"
    "  Lists what waits for a person in the current project (and global memories):\n"
    "  pending suggestions, contested rivals, anchor-contradicted and stale memories,\n"
    "  with counts per bucket. --promote confirms one (superseding its rivals), --reject\n"
    "  supersedes it (reinstating the survivor), --undo reverses a rejection. The project is\n"
    "  --project (a folder, or a project key as memory_list shows it), else\n"
    "  $KIOKU_PROJECT_ROOT, else this folder's, as for `kioku call`.\n"
    "  Nothing is promoted automatically.";

int RunReviewCommand(ToolContext& ctx, const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  Json call = Json::object();
  bool json = false;
  std::optional<std::string> project;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool has_value = i + 1 < args.size();
    if (a == "--json") {
      json = true;
    } else if ((a == "--promote" || a == "--reject" || a == "--undo") && has_value) {
      call["action"] = a.substr(2);
      call["id"] = args[++i];
    } else if (a == "--bucket" && has_value) {
      call["bucket"] = args[++i];
      if (std::find(kBuckets.begin(), kBuckets.end(), args[i]) == kBuckets.end()) {
        err << "kioku review: --bucket is one of pending, contested, contradicted, stale (got '" << args[i] << "')\n";
        return 2;
      }
    } else if (a == "--project" && has_value) {
      project = args[++i];
    } else if (a == "--limit" && has_value) {
      try {
        call["limit"] = std::stoi(args[++i]);
      } catch (const std::exception&) {
        err << "kioku review: --limit needs a number\n" << kReviewUsage << "\n";
        return 2;
      }
    } else if (a == "--help" || a == "-h") {
      out << kReviewUsage << "\n";
      return 0;
    } else {
      err << "kioku review: unknown argument '" << a << "'\n" << kReviewUsage << "\n";
      return 2;
    }
  }
  sdk::Caller caller;
  caller.agent_id = "kioku-review";
  caller.agent_source = sdk::AgentSource::kConfig;
  try {
    sdk::UseCommandLineProject(caller, project, ctx.host.Projects());
  } catch (const std::invalid_argument& e) {
    err << "kioku review: " << e.what() << "\n";
    return 2;
  }
  const sdk::ToolResult r = ctx.host.CallTool("memory_review", call, caller);
  if (r.is_error) {
    err << "kioku review: " << r.text << "\n";
    return 1;
  }
  std::string text = r.text;
  // The tool's footer names tool arguments; a person at the shell types flags.
  if (text.ends_with(kToolFooter)) {
    text.replace(text.size() - kToolFooter.size(), std::string::npos,
                 "\nresolve: kioku review --promote ID | --reject ID | --undo ID");
  }
  out << (json ? sdk::DumpJson(r.structured) : text) << "\n";
  return 0;
}

}  // namespace

void RegisterReviewTools(sdk::Registrar& registrar, ToolContext& ctx) {
  sdk::ToolSpec review;
  review.name = "memory_review";
  review.profile = sdk::ToolProfile::kFull;
  review.title = "Review pending and contested memories";
  review.description =
      "What waits for a person: pending, contested, anchor-contradicted, stale (counts per "
      "bucket). promote confirms (supersedes rivals), reject supersedes (reinstates the survivor), "
      "undo reverses a reject.";
  review.schemas = [=](sdk::ToolSpec& t) {
    t.input_schema = schema::Object({
        {"action", schema::Enum({"list", "promote", "reject", "undo"}, "default list")},
        {"id", schema::IdPrefix()},
        {"bucket", schema::Enum(kBuckets)},
        {"limit", schema::Integer(1, 50, "per bucket, default 10")},
    });
    t.output_schema = schema::Output(
        {{"counts", schema::Type("object")}, {"items", schema::Type("array")}, {"result", schema::Type("object")}},
        {"counts", "items"});
  };
  review.annotations.read_only = false;
  review.annotations.destructive = false;
  registrar.AddTool(review, [&ctx](const Json& args, const sdk::CallContext& call) {
    return HandleReview(ctx, args, call.caller);
  });

  sdk::ToolSpec used;
  used.name = "memory_used";
  used.profile = sdk::ToolProfile::kFull;
  used.title = "Mark recalled memories helpful";
  used.description = "Mark memories that helped in this session; recall ranks them higher. Once per session.";
  used.schemas = [=](sdk::ToolSpec& t) {
    t.input_schema = schema::Object({{"ids", schema::Array(schema::IdPrefix(), 20, "", 1)},
                                     {"session_id", schema::String(200, "default: this connection's")}},
                                    {"ids"});
    t.output_schema = schema::Output(
        {{"marked", schema::Type("integer")}, {"already", schema::Type("integer")}, {"ids", schema::Type("array")}},
        {"marked", "already", "ids"});
  };
  used.annotations.read_only = false;
  used.annotations.destructive = false;
  used.annotations.idempotent = true;
  registrar.AddTool(used, [&ctx](const Json& args, const sdk::CallContext& call) {
    return HandleUsed(ctx, args, call.caller);
  });

  sdk::ToolSpec maintain;
  maintain.name = "memory_maintain";
  maintain.profile = sdk::ToolProfile::kFull;
  maintain.title = "Run memory housekeeping";
  maintain.description =
      "Decay unpinned confidence, expire, settle resolved rivals, prune superseded per retention. "
      "Returns counts. Never deletes pinned or active memories.";
  maintain.schemas = [=](sdk::ToolSpec& t) {
    t.input_schema = schema::Object(Json::object());
    t.output_schema = schema::Output({{"expired", schema::Type("integer")},
                                      {"decayed", schema::Type("integer")},
                                      {"stale", schema::Type("integer")},
                                      {"reinstated", schema::Type("integer")},
                                      {"pruned", schema::Type("integer")}},
                                     {"expired", "decayed", "stale", "reinstated", "pruned"});
  };
  maintain.annotations.read_only = false;
  maintain.annotations.destructive = true;
  registrar.AddTool(maintain, [&ctx](const Json&, const sdk::CallContext& call) {
    return HandleMaintain(ctx, call.caller);
  });

  sdk::ToolSpec consolidate;
  consolidate.name = "memory_consolidate";
  consolidate.profile = sdk::ToolProfile::kFull;
  consolidate.title = "Merge memories that restate each other";
  consolidate.description =
      "Lists clusters of restated memories (same kind and scope); apply: true keeps pinned, else "
      "most confident, else newest, and supersedes the rest. synthesize: the chat model writes "
      "one verified text per cluster instead. Dry run by default.";
  consolidate.schemas = [=](sdk::ToolSpec& t) {
    t.input_schema = schema::Object({
        {"apply", schema::Bool()},
        {"threshold", schema::Number(0.2, 1, "Jaccard floor, default 0.5")},
        {"kind", schema::Enum(MemoryKinds())},
        {"limit", schema::Integer(1, 100, "clusters listed, default 20 (5 with synthesize)")},
        {"synthesize", schema::Bool()},
    });
    t.output_schema = schema::Output({{"clusters", schema::Type("array")},
                                      {"total", schema::Type("integer")},
                                      {"superseded", schema::Type("integer")}},
                                     {"clusters", "total", "superseded"});
  };
  consolidate.annotations.read_only = false;
  consolidate.annotations.destructive = false;
  registrar.AddTool(consolidate, [&ctx](const Json& args, const sdk::CallContext& call) {
    return HandleConsolidate(ctx, args, call);
  });

  sdk::CommandSpec cmd;
  cmd.name = "review";
  cmd.summary = "Review pending, contested, contradicted and stale memories (promote/reject/undo)";
  cmd.usage = kReviewUsage;
  cmd.run = [&ctx](const std::vector<std::string>& args, std::istream&, std::ostream& out, std::ostream& err) {
    return RunReviewCommand(ctx, args, out, err);
  };
  registrar.AddCommand(std::move(cmd));
}

}  // namespace kioku::semantic
