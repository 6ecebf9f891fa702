// `kioku embed`: backfill, re-embed, status and relevance-floor calibration, all the SDK's
// (sdk::RunEmbedCommand); this layer keeps its own wording and unlabelled lines.
#include "kioku/sdk/embed_worker.hpp"
#include "tool_support.hpp"
#include "tools.hpp"

namespace kioku::semantic {

sdk::CommandSpec EmbedCommand(ToolContext& ctx) {
  sdk::CommandSpec cmd;
  cmd.name = sdk::kEmbedCommandName;
  cmd.summary = "Embed queued memories now; --all re-embeds everything (after a model change)";
  cmd.usage =
      "kioku embed [--all | --status | --calibrate [N]]\n"
      "  (none)       embed every queued memory now (the server does this in the background)\n"
      "  --all        make the configured model the store's model and re-embed every memory\n"
      "  --status     embedder, store model, vector and queue counts, what recall will do\n"
      "  --calibrate  suggest semantic.vectors.min_score from on-topic vs off-topic cosine\n"
      "               scores on N (default 200) of your own memories\n"
      "Needs providers.embedding in the config (except --status).";
  cmd.run = [&ctx](const std::vector<std::string>& args, std::istream&, std::ostream& out, std::ostream& err) {
    return sdk::RunEmbedCommand(ctx.host, *ctx.vectors, *ctx.worker, "", args, out, err);
  };
  return cmd;
}

}  // namespace kioku::semantic
