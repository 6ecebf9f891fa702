#pragma once
/// @file tools.hpp
/// Registration of the semantic layer's tools, one function per group.

#include "kioku/sdk/plugin.hpp"
#include "tool_support.hpp"

namespace kioku::semantic {

/// memory_remember, memory_suggest (write_tools.cpp).
void RegisterWriteTools(sdk::Registrar& registrar, ToolContext& ctx);
/// memory_recall (recall_tool.cpp).
void RegisterRecallTool(sdk::Registrar& registrar, ToolContext& ctx);
/// memory_get, memory_list, memory_edit, memory_forget, memory_pin (pinned: false unpins)
/// (manage_tools.cpp).
void RegisterManageTools(sdk::Registrar& registrar, ToolContext& ctx);
/// entity_graph, entity_relate, entity_unrelate (graph_tools.cpp).
void RegisterGraphTools(sdk::Registrar& registrar, ToolContext& ctx);
/// memory_review, memory_used, memory_maintain, memory_consolidate and the `kioku review`
/// command (review_tools.cpp).
void RegisterReviewTools(sdk::Registrar& registrar, ToolContext& ctx);

/// `kioku embed` (vector_commands.cpp).
sdk::CommandSpec EmbedCommand(ToolContext& ctx);

/// Parses one memory object of memory_remember/memory_suggest into a draft (validation
/// and secret screening; nothing touches the database). `where` prefixes messages in a
/// batch ("memories[3]: ").
MemoryDraft ParseDraft(const Json& item, const sdk::Caller& caller, const Settings& settings,
                       std::int64_t now_ms, bool suggest, const std::string& where);

/// Parses memory_recall arguments (already schema-validated) into a request.
RecallRequest ParseRecallArgs(const Json& args, const Settings& settings);

}  // namespace kioku::semantic
